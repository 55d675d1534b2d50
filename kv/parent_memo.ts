/**
 * The parent pointers this process has read, kept with its KV handle, so that a resource's
 * ancestors can be read in one batch instead of one round trip per folder level
 * (`loadPath`, kv/tree/resources.ts).
 *
 * A remembered parent is a guess, never an answer: `loadPath` reads the guessed chain and follows
 * only what the records it read say (each record's own `parentRs`), so after a move the first
 * record whose parent differs from the guess ends the batch and the walk goes on from the real
 * parent. A stale or missing guess costs reads, never a wrong path. `openKv` (kv/db.ts) attaches
 * one memo per handle; a handle without one (a test's bare `Deno.openKv`) reads level by level.
 */
const MEMO = Symbol("drive.parentMemo");

/** Resource → parent (null: the drive root), at most `max` of them; past it the memo starts over. */
export interface ParentMemo {
  get(resourceSeq: number): number | null | undefined;
  set(resourceSeq: number, parentRs: number | null): void;
}

/** 50,000 pointers: about 4 MiB, the folders of many busy drives. */
const DEFAULT_MAX = 50_000;

export function openParentMemo(max = DEFAULT_MAX): ParentMemo {
  const parents = new Map<number, number | null>();
  return {
    get: (resourceSeq) => parents.get(resourceSeq),
    set(resourceSeq, parentRs) {
      if (parents.size >= max && !parents.has(resourceSeq)) parents.clear();
      parents.set(resourceSeq, parentRs);
    },
  };
}

/** Gives `kv` its memo (once); returns `kv`. */
export function attachParentMemo<K extends object>(kv: K, memo = openParentMemo()): K {
  if (!(MEMO in kv)) Object.defineProperty(kv, MEMO, { value: memo, enumerable: false });
  return kv;
}

/** The memo `kv` carries, if any. */
export function parentMemoOf(kv: object): ParentMemo | undefined {
  return (kv as { [MEMO]?: ParentMemo })[MEMO];
}
