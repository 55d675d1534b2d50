/**
 * The Starred and Recent views and the actions the file browser adds for them: starring
 * (POST/DELETE /shared/{rs}/star, which takes the caller's own files and folders too), a
 * multiple selection downloaded as one ZIP (POST /resources/download-token), and emptying the
 * trash (DELETE /trash). Rows carry the owner as `ss` when they are someone else's.
 */
import type { DriveApi, Page, Row } from "./api.ts";
import type { PageSource } from "./listing.ts";
import type { DriveRoute } from "../router.ts";

/** A Starred or Recent answer's row (api/external/schemas/views.ts). */
interface ViewItem {
  resourceSeq: number;
  name: string;
  type: "FILE" | "FOLDER";
  size: number;
  updatedAt: string;
  ownerSeq: number;
  isOwner: boolean;
  starredAt?: string;
  changedAt?: string;
}

const rowOf = (i: ViewItem): Row => ({
  rs: i.resourceSeq,
  name: i.name,
  type: i.type,
  size: i.size,
  updatedAt: i.changedAt ?? i.updatedAt,
  ...(i.isOwner ? {} : { ss: i.ownerSeq }),
});

/** How many files Recent shows (the API allows up to 200). */
export const RECENT_COUNT = 100;

export async function starredPage(drive: DriveApi, cursor: string | null, ps: number) {
  const q = new URLSearchParams({ ps: `${Math.min(ps, 200)}` });
  if (cursor) q.set("cursor", cursor);
  const d = await drive.call<{ items: ViewItem[]; nextCursor: string | null }>(
    "GET",
    `/starred?${q}`,
  );
  return { rows: d.items.map(rowOf), next: d.nextCursor } satisfies Page;
}

export async function recentPage(drive: DriveApi): Promise<Page> {
  const d = await drive.call<{ items: ViewItem[] }>("GET", `/recent?ps=${RECENT_COUNT}`);
  return { rows: d.items.map(rowOf), next: null };
}

/** The page source of the views this module adds; null for the others. */
export function viewSource(r: DriveRoute, drive: DriveApi): PageSource | null {
  if (r.view === "starred") return (c, ps) => starredPage(drive, c, ps);
  if (r.view === "recent") return () => recentPage(drive);
  return null;
}

const ssQuery = (row: Row) => row.ss ? `?ss=${row.ss}` : "";

export const star = (drive: DriveApi, row: Row) =>
  drive.call("POST", `/shared/${row.rs}/star${ssQuery(row)}`);

export const unstar = (drive: DriveApi, row: Row) => drive.call("DELETE", `/shared/${row.rs}/star`);

/** The seqs of everything starred (the first pages, enough for the star buttons' state). */
export async function starredSeqs(drive: DriveApi): Promise<Set<number>> {
  const out = new Set<number>();
  let cursor: string | null = null;
  // A few pages at most: a star the app has not seen shows as "Add star", which is harmless.
  for (let i = 0; i < 5; i++) {
    const page: Page = await starredPage(drive, cursor, 200);
    for (const row of page.rows) out.add(row.rs);
    cursor = page.next;
    if (!cursor) break;
  }
  return out;
}

/** The address that downloads `rows` (files and folders from anywhere) as one ZIP. */
export async function selectionZipUrl(drive: DriveApi, rows: Row[]): Promise<string> {
  const resources = rows.map((r) => ({ resourceSeq: r.rs, ...(r.ss ? { ss: r.ss } : {}) }));
  const d = await drive.call<{ linkUrl: string }>("POST", "/resources/download-token", {
    resources,
  });
  return d.linkUrl;
}

export const emptyTrash = (drive: DriveApi) =>
  drive.call<{ purgedItems: number; deletedResources: number; freedBytes: number }>(
    "DELETE",
    "/trash",
  );
