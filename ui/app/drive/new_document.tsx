/**
 * "New document": a disclosure menu of the built-in templates (word, excel, ppt, note). The
 * document is made in the open folder in the app's language (ko-KR or en-US templates), and the
 * page shows it selected with its name ready to edit, as a new folder is.
 */
import { useRef, useState } from "preact/hooks";
import type { Row } from "./api.ts";
import { errorText, newDocument, TEMPLATE_TYPES, type TemplateType } from "./files_api.ts";
import type { MessageKey } from "../messages.ts";
import { locale, t } from "../store.ts";

const LABELS: Record<TemplateType, MessageKey> = {
  word: "docWord",
  excel: "docExcel",
  ppt: "docPpt",
  note: "docNote",
};

export function NewDocumentMenu(
  p: {
    folder: number | null;
    ss?: number;
    onCreated: (row: Row) => void;
    onError: (text: string) => void;
  },
) {
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const make = async (tt: TemplateType) => {
    setOpen(false);
    try {
      p.onCreated(await newDocument(tt, p.folder, p.ss, locale.value));
    } catch (err) {
      p.onError(t("error", errorText(err)));
      toggle.current?.focus();
    }
  };
  return (
    <div
      class="menu"
      onKeyDown={(e) => {
        if (e.key === "Escape" && open) {
          e.stopPropagation();
          setOpen(false);
          toggle.current?.focus();
        }
      }}
    >
      <button
        ref={toggle}
        type="button"
        class="button"
        aria-expanded={open}
        aria-controls="new-document-menu"
        onClick={() => setOpen(!open)}
      >
        {t("newDocument")}
      </button>
      {open && (
        <ul id="new-document-menu" class="menu-list" aria-label={t("newDocument")}>
          {TEMPLATE_TYPES.map((tt) => (
            <li key={tt}>
              <button type="button" onClick={() => make(tt)}>{t(LABELS[tt])}</button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
