/** The shortcut sheet (`?`): a modal dialog, so focus stays in it and Escape closes it. */
import { useEffect, useRef } from "preact/hooks";
import type { MessageKey } from "../messages.ts";
import { t } from "../store.ts";

const KEYS: [string, MessageKey][] = [
  ["↑ ↓", "kArrows"],
  ["Home / End", "kHomeEnd"],
  ["Enter", "kEnter"],
  ["Backspace", "kBackspace"],
  ["Delete", "kDelete"],
  ["F2", "kF2"],
  ["S", "kStar"],
  ["Ctrl/⌘ + A", "kSelectAll"],
  ["Esc", "kEscape"],
  ["/", "kSlash"],
  ["?", "kHelp"],
];

export function ShortcutSheet(props: { onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    dialog.current!.showModal();
  }, []);
  return (
    <dialog
      ref={dialog}
      class="sheet"
      aria-labelledby="shortcuts-title"
      onClose={props.onClose}
    >
      <h2 id="shortcuts-title">{t("shortcuts")}</h2>
      <dl class="keys">
        {KEYS.map(([k, what]) => (
          <div key={k}>
            <dt>
              <kbd>{k}</kbd>
            </dt>
            <dd>{t(what)}</dd>
          </div>
        ))}
      </dl>
      <form method="dialog">
        <button type="submit" class="button primary">{t("close")}</button>
      </form>
    </dialog>
  );
}
