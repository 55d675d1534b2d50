/**
 * Following the change feed from a tab: the current cursor, then a long-poll (GET /changes/wait)
 * that answers when something concerning the user commits, then the changes themselves
 * (GET /changes). One loop per view, ended by its AbortSignal; paused while the tab is hidden;
 * errors back off from 1 s up to 30 s; a cursor the feed no longer keeps starts again from now.
 */
import { ApiError } from "../api.ts";
import { apiGet } from "./api.ts";

export interface Change {
  kind: string;
  at: number;
  resource?: {
    rs: number;
    type: "FILE" | "FOLDER";
    name: string;
    parentRs: number | null;
    ownerSeq: number;
    size?: number;
  };
  before?: { name: string; parentRs: number | null; ownerSeq: number };
}

/** Seconds each long-poll waits before it answers "nothing" and is asked again. */
const WAIT_SECONDS = 25;
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;
const PAGE = 200;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

/** Resolves once the tab is visible (at once when it is) or the signal aborts. */
function whenVisible(signal: AbortSignal): Promise<void> {
  if (document.visibilityState === "visible") return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      if (document.visibilityState !== "visible" && !signal.aborted) return;
      document.removeEventListener("visibilitychange", done);
      resolve();
    };
    document.addEventListener("visibilitychange", done);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Calls `onChanges` with each batch of changes after now, until `signal` aborts. */
export async function followChanges(
  signal: AbortSignal,
  onChanges: (changes: Change[]) => void,
): Promise<void> {
  let cursor: string | null = null;
  let backoff = FIRST_BACKOFF_MS;
  while (!signal.aborted) {
    try {
      await whenVisible(signal);
      if (signal.aborted) return;
      if (cursor === null) {
        cursor = (await apiGet<{ cursor: string }>("/changes/cursor", signal)).cursor;
      }
      const c = encodeURIComponent(cursor);
      const wait = await apiGet<{ changes: boolean }>(
        `/changes/wait?cursor=${c}&timeout=${WAIT_SECONDS}`,
        signal,
      );
      let more = wait.changes;
      while (more && !signal.aborted) {
        const page: { items: Change[]; cursor: string; hasMore: boolean } = await apiGet(
          `/changes?cursor=${encodeURIComponent(cursor)}&ps=${PAGE}`,
          signal,
        );
        cursor = page.cursor;
        more = page.hasMore;
        if (page.items.length) onChanges(page.items);
      }
      backoff = FIRST_BACKOFF_MS;
    } catch (err) {
      if (signal.aborted) return;
      // Signed out: the app shows the sign-in page; nothing to follow.
      if (err instanceof ApiError && err.status === 401) return;
      if (err instanceof ApiError && err.code === "CHANGES_001") cursor = null;
      await sleep(backoff, signal);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }
}
