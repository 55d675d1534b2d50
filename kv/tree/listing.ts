/**
 * Listing a folder: one page of its children from one of the three listing indexes (name, size,
 * update; each entry holds the resource record, kv/tree/resources.ts), every child, a whole
 * subtree, and the owner's trash index.
 */
import { getManyValues } from "../db.ts";
import { fail } from "../errors.ts";
import { bySizeKey, byUpdateKey, resourceKey, resourceNameKey, trashIndexKey } from "../keys.ts";
import { getResource, type IndexValue, MAX_DEPTH, parentPart, type Resource } from "./resources.ts";

type ListSort = "name" | "size" | "update";
const LIST_INDEX = { name: resourceNameKey, size: bySizeKey, update: byUpdateKey } as const;
const listPrefix = (sort: ListSort, ownerSeq: number, parentRs: number | null): Deno.KvKey =>
  LIST_INDEX[sort](ownerSeq, parentPart(parentRs));

/** The owner's top-level trashed items, in resourceSeq order. */
export const trashIndexPrefix = (ownerSeq: number): Deno.KvKey => trashIndexKey(ownerSeq);

/**
 * The records of index values, in order: entries that hold their record need no read; bare rs
 * values (written by earlier versions) are read in getMany batches, and dropped when gone.
 */
async function resolveIndexValues(kv: Deno.Kv, values: IndexValue[]): Promise<Resource[]> {
  const missing = values.filter((v): v is number => typeof v === "number");
  if (missing.length === 0) return values as Resource[];
  const read = await getManyValues<Resource>(
    kv,
    missing.map((resourceSeq) => resourceKey(resourceSeq)),
  );
  const byRs = new Map(missing.map((resourceSeq, i) => [resourceSeq, read[i]]));
  return values.map((v) => typeof v === "number" ? byRs.get(v) ?? null : v)
    .filter((r): r is Resource => r !== null);
}

export async function hasChildren(
  kv: Deno.Kv,
  ownerSeq: number,
  parentRs: number | null,
): Promise<boolean> {
  for await (
    const _ of kv.list({ prefix: resourceNameKey(ownerSeq, parentPart(parentRs)) }, { limit: 1 })
  ) return true;
  return false;
}

interface ListOptions {
  sort: ListSort;
  order: "asc" | "desc";
  limit: number;
  cursor?: string;
}

/** One page of a folder's children in index order; `cursor` is KV's own, so pages never skip or repeat. */
export function listChildren(
  kv: Deno.Kv,
  ownerSeq: number,
  parentRs: number | null,
  opts: ListOptions,
): Promise<{ items: Resource[]; cursor: string | null }> {
  return listIndexPage(kv, listPrefix(opts.sort, ownerSeq, parentRs), opts);
}

/** One page of an index's resources, from one prefix scan (the entries hold the records). */
export async function listIndexPage(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
  opts: { order: "asc" | "desc"; limit: number; cursor?: string },
): Promise<{ items: Resource[]; cursor: string | null }> {
  let iter;
  try {
    iter = kv.list<IndexValue>({ prefix }, {
      limit: opts.limit,
      cursor: opts.cursor,
      reverse: opts.order === "desc",
    });
  } catch {
    fail("RESOURCE_018", "cursor is not a cursor this listing returned", "cursor");
  }
  const values: IndexValue[] = [];
  try {
    for await (const e of iter) values.push(e.value);
  } catch {
    fail("RESOURCE_018", "cursor is not a cursor this listing returned", "cursor");
  }
  const items = await resolveIndexValues(kv, values);
  return { items, cursor: values.length === opts.limit && iter.cursor ? iter.cursor : null };
}

/** All children of a folder, name order (for ZIP downloads and provider `list`). */
export async function* iterateChildren(
  kv: Deno.Kv,
  ownerSeq: number,
  parentRs: number | null,
): AsyncGenerator<Resource> {
  // One scan in KV's largest batches; only entries of earlier versions (a bare rs) need a read.
  const iter = kv.list<IndexValue>({ prefix: listPrefix("name", ownerSeq, parentRs) }, {
    batchSize: 1000,
  });
  for await (const e of iter) {
    const r = typeof e.value === "number" ? await getResource(kv, e.value) : e.value;
    if (r) yield r;
  }
}

/**
 * Every non-trashed descendant of a folder, each folder before its contents, with its names
 * below `folder` (["a", "b", "c.txt"] for folder/a/b/c.txt). Nesting is bounded by MAX_DEPTH.
 */
export async function* iterateSubtree(
  kv: Deno.Kv,
  folder: Resource,
  below: string[] = [],
): AsyncGenerator<{ resource: Resource; path: string[] }> {
  for await (const child of iterateChildren(kv, folder.ownerSeq, folder.rs)) {
    const path = [...below, child.name];
    yield { resource: child, path };
    if (child.type === "FOLDER" && path.length <= MAX_DEPTH) {
      yield* iterateSubtree(kv, child, path);
    }
  }
}
