/** The folder path above the list, and the column heads that sort it. */
import type { Crumb, SortBy, SortOrder } from "./api.ts";
import type { Listing } from "./listing.ts";
import { drivePath, type DriveRoute, linkClick } from "../router.ts";
import { t } from "../store.ts";
import type { MessageKey } from "../messages.ts";

export function Breadcrumbs(props: { crumbs: Crumb[] | null; ss?: number }) {
  const rootHref = drivePath({ view: props.ss ? "shared" : "mine" });
  const crumbs = props.crumbs ?? [];
  return (
    <nav class="crumbs" aria-label={t("breadcrumbs")}>
      <ol>
        <li>
          <a href={rootHref} onClick={(e) => linkClick(e, rootHref)}>
            {t(props.ss ? "shared" : "myDrive")}
          </a>
        </li>
        {crumbs.map((c, i) => {
          const href = drivePath({ folder: c.resourceSeq, ss: props.ss });
          const last = i === crumbs.length - 1;
          return (
            <li key={c.resourceSeq}>
              <a
                href={href}
                aria-current={last ? "page" : undefined}
                onClick={(e) => linkClick(e, href)}
              >
                {c.name}
              </a>
            </li>
          );
        })}
      </ol>
    </nav>
  );
}

const LABELS: Record<SortBy, MessageKey> = { name: "name", size: "size", update: "modified" };

/**
 * Column heads; in views whose endpoint has one fixed order (trash, search, pins) they are labels,
 * not buttons, so nothing pretends to sort.
 */
export function SortBar(
  props: {
    sort: [SortBy, SortOrder] | null;
    onSort: (s: [SortBy, SortOrder]) => void;
    view: DriveRoute["view"];
  },
) {
  const note: MessageKey | null = props.view === "shared"
    ? "owner"
    : props.view === "search"
    ? "where"
    : null;
  const cell = (by: SortBy) => {
    const text = by === "update" && props.view === "trash" ? t("trashedAt") : t(LABELS[by]);
    const cls = `cell ${by === "update" ? "date" : by}`;
    if (!props.sort) return <span class={cls}>{text}</span>;
    const [sb, so] = props.sort;
    const on = sb === by;
    const order = on ? `, ${t(so === "asc" ? "ascending" : "descending")}` : "";
    return (
      <button
        type="button"
        class={`${cls} sort${on ? " on" : ""}`}
        aria-label={`${t("sortBy", text)}${order}`}
        onClick={() => props.onSort([by, on && so === "asc" ? "desc" : "asc"])}
      >
        {text} <span aria-hidden="true">{on ? (so === "asc" ? "▲" : "▼") : ""}</span>
      </button>
    );
  };
  return (
    <div class="sortbar">
      <span class="icon" aria-hidden="true" />
      {cell("name")}
      <span class="cell note">{note ? t(note) : ""}</span>
      {cell("size")}
      {cell("update")}
    </div>
  );
}

/** The line under the list: loading, an error, the last action's result, or the counts. */
export function StatusLine(props: {
  listing: Listing;
  status: string;
  selected: number;
  view: DriveRoute["view"];
}) {
  const { listing, status, selected } = props;
  const empty: MessageKey = props.view === "trash"
    ? "emptyTrash"
    : props.view === "search"
    ? "noHits"
    : "empty";
  const rows = listing.rows.value;
  const done = listing.done.value;
  return (
    <p class="drive-status" role="status">
      {listing.loading.value && !rows.length
        ? t("loading")
        : listing.error.value
        ? t("error", listing.error.value)
        : status
        ? status
        : done && !rows.length
        ? t(empty)
        : [
          done
            ? (rows.length === 1 ? t("oneItem") : t("items", rows.length))
            : t("more", rows.length),
          selected ? t("selected", selected) : "",
        ].filter(Boolean).join(" · ")}
    </p>
  );
}
