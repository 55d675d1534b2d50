/**
 * The drive API calls of the move/copy picker, new documents, the versions panel and the grid's
 * thumbnails, through the page's one session client (drive.call), kept here so drive/api.ts
 * stays the browsing client. Shapes are the server's (api/external/*).
 */
import { DRIVE_BASE, type ResourceItem, type Row } from "./api.ts";
import { drive } from "../store.ts";
import type { Locale } from "../messages.ts";

export interface Version {
  version: number;
  size: number;
  sha256: string;
  createdAt: string;
  createdBy: number;
  /** Null when the account is gone. */
  createdByName: string | null;
  reason: string;
  current: boolean;
}

/** A folder the picker shows: its seq, name and owner (undefined: the caller's own). */
export interface PickFolder {
  rs: number;
  name: string;
  ss?: number;
}

export type TemplateType = "word" | "excel" | "ppt" | "note";
export const TEMPLATE_TYPES: TemplateType[] = ["word", "excel", "ppt", "note"];

/** The template language the API picks from Accept-Language, by the app's language. */
const TEMPLATE_LANGUAGE: Record<Locale, string> = { en: "en-US", ko: "ko-KR" };

/** Image names the thumbnail route can read (sharp's formats). */
const IMAGE = /\.(png|jpe?g|gif|webp|avif|tiff?|bmp|heic|heif)$/i;

function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) q.set(k, `${v}`);
  const s = q.toString();
  return s ? `?${s}` : "";
}

const kind = (row: Row) => row.type === "FOLDER" ? "folders" : "files";
const own = (ss?: number) => (ss ? { ss } : {});

/** Whether the row is an image the grid shows as a thumbnail. */
export const isImage = (row: Row) => row.type === "FILE" && IMAGE.test(row.name);

export const thumbnailUrl = (row: Row, size: 256 | 1024 = 256) =>
  `${DRIVE_BASE}/files/${row.rs}/thumbnail${query({ size, ss: row.ss })}`;

/** Moves `row` into folder `to` (null: the caller's drive root). */
export const moveRow = (row: Row, to: PickFolder | null) =>
  drive.call<ResourceItem>("POST", `/${kind(row)}/${row.rs}/move`, {
    ...(to ? { pfs: to.rs, ...(to.ss ? { ts: to.ss } : {}) } : {}),
    ...own(row.ss),
  });

/** Copies file or folder `row` into folder `to` (a taken name becomes "name (n).ext"). */
export const copyRow = (row: Row, to: PickFolder | null) =>
  drive.call<{ resourceSeq: number }>("POST", `/${kind(row)}/${row.rs}/copy`, {
    ...(to ? { pfs: to.rs, ...(to.ss ? { ts: to.ss } : {}) } : {}),
    ...own(row.ss),
  });

/**
 * One page of a folder (null: the caller's root) for the picker: its subfolders and whether the
 * caller may put things into it. The listing has no type filter, so files are dropped here.
 */
export async function folderPage(
  at: PickFolder | null,
  cursor: string | null,
): Promise<{ folders: PickFolder[]; canUpload: boolean; next: string | null }> {
  const d = await drive.call(
    "GET",
    `/resources${query({ pfs: at?.rs, ss: at?.ss, ps: 500, cursor })}`,
  );
  return {
    folders: d.items.filter((x: ResourceItem) => x.type === "FOLDER")
      .map((x: ResourceItem) => ({ rs: x.resourceSeq, name: x.name, ss: at?.ss })),
    canUpload: d.permissions?.canUpload ?? true,
    next: d.nextCursor ?? null,
  };
}

/** The folders shared with the caller that they may upload into (the first 100). */
export async function sharedFolders(): Promise<PickFolder[]> {
  const d = await drive.call("GET", `/shared${query({ rt: "FOLDER", ps: 100 })}`);
  return d.items
    .filter((e: { permissions: { canUpload: boolean } }) => e.permissions.canUpload)
    .map((e: { resourceSeq: number; resourceName: string; ownerSeq: number }) => ({
      rs: e.resourceSeq,
      name: e.resourceName,
      ss: e.ownerSeq,
    }));
}

export const newFolderIn = (name: string, at: PickFolder | null) =>
  drive.newFolder(name, at?.rs ?? null, at?.ss);

/** Creates a document from the built-in template in the app's language; answers its row. */
export async function newDocument(
  tt: TemplateType,
  pfs: number | null,
  ss: number | undefined,
  locale: Locale,
): Promise<Row> {
  const made = await drive.call<{ resourceSeq: number }>(
    "POST",
    "/documents",
    { tt, ...(pfs ? { pfs, ...own(ss) } : {}) },
    { "accept-language": TEMPLATE_LANGUAGE[locale] },
  );
  const d = await drive.details(made.resourceSeq, pfs ? ss : undefined);
  return {
    rs: d.resourceSeq,
    name: d.name,
    type: "FILE",
    size: d.size,
    updatedAt: d.updatedAt,
    ...(pfs && ss ? { ss } : {}),
  };
}

export const listVersions = async (row: Row) =>
  (await drive.call<{ items: Version[] }>("GET", `/files/${row.rs}/versions${query(own(row.ss))}`))
    .items;

export const versionUrl = (row: Row, v: number) =>
  `${DRIVE_BASE}/files/${row.rs}/versions/${v}/download${query(own(row.ss))}`;

export const restoreVersion = (row: Row, v: number) =>
  drive.call("POST", `/files/${row.rs}/versions/${v}/restore${query(own(row.ss))}`);

export const deleteVersion = (row: Row, v: number) =>
  drive.call("DELETE", `/files/${row.rs}/versions/${v}${query(own(row.ss))}`);

/** The API's error as the app shows it: its catalog code first, then its words. */
export function errorText(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return e.code ? `${e.code}: ${e.message}` : `${e.message ?? err}`;
}
