/**
 * What a ZIP download holds, as metadata: a folder with everything below it (the folder ZIP), or
 * a selection of files and folders from anywhere (the multi-resource ZIP). The walk is bounded by
 * MAX_ZIP_ENTRIES so a too-large download is refused before any byte is sent; the bytes are
 * streamed afterwards by api/http/zip_stream.ts. Authorization is the caller's (every item of a
 * selection is checked through kv/sharing/authorize.ts before it is collected here).
 */
import { fail } from "../errors.ts";
import { iterateSubtree } from "./listing.ts";
import { nameKeyOf, numberedName } from "./names.ts";
import type { Resource } from "./resources.ts";

/** Enough for any folder a person downloads at once; the walk holds ~100 bytes per entry. */
export const MAX_ZIP_ENTRIES = 100_000;

export interface ZipEntry {
  /** Path inside the archive, "/"-separated, starting with the top item's own name. */
  name: string;
  lastModified: Date;
  /** Files only. */
  file?: { blobId: string; size: number };
}

function entryOf(resource: Resource, name: string): ZipEntry {
  return {
    name,
    lastModified: new Date(resource.updatedAt),
    file: resource.type === "FILE" ? { blobId: resource.blobId!, size: resource.size } : undefined,
  };
}

/** Adds `top` (named `topName` in the archive) and, for a folder, every non-trashed entry below. */
async function addItem(kv: Deno.Kv, out: ZipEntry[], top: Resource, topName: string) {
  out.push(entryOf(top, topName));
  if (top.type !== "FOLDER") return;
  for await (const { resource, path } of iterateSubtree(kv, top)) {
    if (out.length >= MAX_ZIP_ENTRIES) {
      fail("RESOURCE_020", `The download holds more than ${MAX_ZIP_ENTRIES} entries`);
    }
    out.push(entryOf(resource, [topName, ...path].join("/")));
  }
}

/** The folder ZIP's entries: the folder itself, then every non-trashed folder and file below. */
export async function collectFolderEntries(kv: Deno.Kv, folder: Resource): Promise<ZipEntry[]> {
  const out: ZipEntry[] = [];
  await addItem(kv, out, folder, folder.name);
  return out;
}

/**
 * The top-level names of a selection made unique inside the archive, in order: items from
 * different folders may share a name (or differ only in case, which unzip tools on Windows and
 * macOS treat as the same), so the second "a.txt" becomes "a (2).txt", as uploads number them.
 */
export function uniqueTopNames(names: string[]): string[] {
  const taken = new Set<string>();
  return names.map((name) => {
    let out = name;
    for (let n = 2; taken.has(nameKeyOf(out)); n++) out = numberedName(name, n);
    taken.add(nameKeyOf(out));
    return out;
  });
}

/** A selection's entries: each item (and a folder's contents) under its unique top name. */
export async function collectSelectionEntries(
  kv: Deno.Kv,
  items: Resource[],
): Promise<ZipEntry[]> {
  const names = uniqueTopNames(items.map((r) => r.name));
  const out: ZipEntry[] = [];
  for (const [i, item] of items.entries()) {
    if (out.length >= MAX_ZIP_ENTRIES) {
      fail("RESOURCE_020", `The download holds more than ${MAX_ZIP_ENTRIES} entries`);
    }
    await addItem(kv, out, item, names[i]);
  }
  return out;
}
