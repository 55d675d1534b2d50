/**
 * Stars (Google Drive's "Starred"): a personal mark a user puts on any file or folder they can
 * view, their own or shared with them.
 *   ["star", userSeq, rs] -> Star
 * Keyed by resource so starring is idempotent and the shared-with-me list reads one key per
 * entry; the Starred view pages in resourceSeq order (a cursor is the last rs, stable under
 * concurrent stars and unstars). A star outlives what it marks: listing skips anything the
 * caller cannot view now, and drops the stars of what is gone for good or no longer reachable
 * (lazily: a purge or a removed share does not have to find every user's star). A star on
 * something in the trash is kept and skipped, so restoring it brings the star back.
 */
import { commit, commitWithRetry, CONFLICT, nextSeq } from "../db.ts";
import { starKey } from "../keys.ts";
import { loadPath } from "../tree/resources.ts";
import { type Access, accessIfVisible, type Caller } from "./authorize.ts";

export interface Star {
  starredSeq: number;
  starredAt: number;
}

export async function getStar(
  kv: Deno.Kv,
  userSeq: number,
  resourceSeq: number,
): Promise<Star | null> {
  return (await kv.get<Star>(starKey(userSeq, resourceSeq))).value;
}

/** Stars `resourceSeq` for `userSeq` (the caller checked they may view it); idempotent. */
export async function starResource(
  kv: Deno.Kv,
  userSeq: number,
  resourceSeq: number,
): Promise<Star> {
  const existing = await getStar(kv, userSeq, resourceSeq);
  if (existing) return existing;
  const star: Star = { starredSeq: await nextSeq(kv, "star"), starredAt: Date.now() };
  return commitWithRetry(async () => {
    const cur = await kv.get<Star>(starKey(userSeq, resourceSeq));
    if (cur.value) return cur.value;
    return (await commit(kv.atomic().check(cur).set(starKey(userSeq, resourceSeq), star))) === true
      ? star
      : CONFLICT;
  });
}

export async function unstarResource(
  kv: Deno.Kv,
  userSeq: number,
  resourceSeq: number,
): Promise<void> {
  await kv.delete(starKey(userSeq, resourceSeq));
}

/** Removes every star of a deleted user, 100 per commit. Idempotent. */
export async function forgetStars(kv: Deno.Kv, userSeq: number): Promise<void> {
  for (;;) {
    const page = await Array.fromAsync(kv.list({ prefix: starKey(userSeq) }, { limit: 100 }));
    if (page.length === 0) return;
    const op = kv.atomic();
    for (const e of page) op.delete(e.key);
    await op.commit();
  }
}

export interface StarredItem {
  access: Access;
  star: Star;
}

/** Dead stars dropped per commit: within denokv's 10 checks per commit. */
const DROPS_PER_COMMIT = 10;

/** Star keys one page reads at most, visible or not, so a page of dead stars stays cheap. */
const MAX_SCAN = 500;

/**
 * One page of what `caller` starred and can view now, in resourceSeq order after `after`.
 * `next` is the last rs read (null at the end): a page may hold fewer than `limit` items when
 * stars were skipped. Stars on purged resources and on resources the caller can no longer view
 * are deleted on the way.
 */
export async function listStarred(
  kv: Deno.Kv,
  caller: Caller,
  opts: { limit: number; after?: number },
): Promise<{ items: StarredItem[]; next: number | null }> {
  const prefix = starKey(caller.userSeq);
  const selector = opts.after === undefined
    ? { prefix }
    : { prefix, start: starKey(caller.userSeq, opts.after + 1) };
  const items: StarredItem[] = [];
  let scanned = 0;
  let last: number | null = null;
  let more = false;
  const dead: Deno.KvEntry<Star>[] = [];
  for await (const e of kv.list<Star>(selector, { limit: MAX_SCAN + 1, batchSize: 100 })) {
    if (items.length >= opts.limit || scanned >= MAX_SCAN) {
      more = true;
      break;
    }
    scanned++;
    const rs = e.key[2] as number;
    last = rs;
    const loaded = await loadPath(kv, rs);
    if (loaded?.trashed) continue;
    const access = await accessIfVisible(kv, caller, loaded);
    if (!access) {
      // Purged, or no share lets the caller view it any more: the star goes.
      dead.push(e);
      continue;
    }
    items.push({ access, star: e.value });
  }
  // Each delete checks the star is the one read (a star set again meanwhile stays); a lost
  // commit leaves its stars for the next read to drop.
  for (let i = 0; i < dead.length; i += DROPS_PER_COMMIT) {
    const op = kv.atomic();
    for (const e of dead.slice(i, i + DROPS_PER_COMMIT)) op.check(e).delete(e.key);
    await op.commit();
  }
  return { items, next: more ? last : null };
}
