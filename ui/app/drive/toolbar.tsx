/**
 * Above the list: the views, search as you type with its type filter, and the new-folder form.
 * Typing waits a moment (SEARCH_DELAY_MS) before it changes the address, so every keystroke does
 * not become a request; the field keeps focus while the results change under it.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { TypeFilter } from "./api.ts";
import { drivePath, type DriveRoute, type DriveView, navigate, TYPE_FILTERS } from "../router.ts";
import { t } from "../store.ts";
import { NavLinks } from "../nav_links.tsx";
import { QuotaBar } from "./quota_bar.tsx";
import type { MessageKey } from "../messages.ts";

const SEARCH_DELAY_MS = 250;
const NAV: [DriveView, MessageKey][] = [
  ["mine", "myDrive"],
  ["shared", "shared"],
  ["starred", "vaStarredView"],
  ["recent", "vaRecentView"],
  ["pinned", "pinned"],
  ["trash", "trash"],
];

export function ViewNav(props: { r: DriveRoute }) {
  const current = props.r.view === "mine" && props.r.folder && props.r.ss ? "shared" : props.r.view;
  return (
    <div class="drive-side">
      <NavLinks
        class="drive-nav"
        label={t("views")}
        links={NAV.map(([view, label]) => ({
          href: drivePath({ view }),
          label: t(label),
          current: current === view,
        }))}
      />
      <QuotaBar view={props.r.view} />
    </div>
  );
}

export function SearchBox(
  props: { r: DriveRoute; inputRef: { current: HTMLInputElement | null } },
) {
  const [q, setQ] = useState(props.r.view === "search" ? props.r.q : "");
  const [type, setType] = useState<TypeFilter>(props.r.type);
  const timer = useRef<ReturnType<typeof setTimeout>>();
  useEffect(() => () => clearTimeout(timer.current), []);
  useEffect(() => {
    if (props.r.view !== "search") setQ("");
  }, [props.r.view]);

  const go = (query: string, filter: TypeFilter) => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      const words = query.trim();
      if (!words) {
        if (props.r.view === "search") navigate(drivePath({}), true);
        return;
      }
      navigate(drivePath({ view: "search", q: words, type: filter }), props.r.view === "search");
    }, SEARCH_DELAY_MS);
  };
  return (
    <form class="search" role="search" onSubmit={(e) => e.preventDefault()}>
      <label class="visually-hidden" for="drive-search">{t("searchLabel")}</label>
      <input
        id="drive-search"
        ref={props.inputRef}
        type="search"
        placeholder={`${t("search")} (/)`}
        value={q}
        maxLength={200}
        onInput={(e) => {
          setQ(e.currentTarget.value);
          go(e.currentTarget.value, type);
        }}
      />
      <label class="visually-hidden" for="drive-type">{t("typeFilter")}</label>
      <select
        id="drive-type"
        value={type}
        onChange={(e) => {
          const v = e.currentTarget.value as TypeFilter;
          setType(v);
          go(q, v);
        }}
      >
        <option value="">{t("allTypes")}</option>
        {TYPE_FILTERS.map((f) => <option key={f} value={f}>{t(f as MessageKey)}</option>)}
      </select>
    </form>
  );
}

export function NewFolderForm(props: { onCreate: (name: string) => Promise<boolean> }) {
  const [open, setOpen] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (open) input.current?.focus();
  }, [open]);
  if (!open) {
    return (
      <button type="button" class="button" onClick={() => setOpen(true)}>
        {t("newFolder")}
      </button>
    );
  }
  return (
    <form
      class="new-folder"
      aria-label={t("newFolder")}
      onSubmit={async (e) => {
        e.preventDefault();
        const name = input.current!.value.trim();
        if (name && await props.onCreate(name)) setOpen(false);
      }}
      onKeyDown={(e) => {
        if (e.key === "Escape") setOpen(false);
      }}
    >
      <label for="new-folder-name">{t("folderName")}</label>
      <input id="new-folder-name" ref={input} required maxLength={255} />
      <button type="submit" class="button primary">{t("create")}</button>
      <button type="button" class="button" onClick={() => setOpen(false)}>{t("cancel")}</button>
    </form>
  );
}
