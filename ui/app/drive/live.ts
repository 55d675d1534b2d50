/**
 * Keeps an open folder current while other clients change it (WebDAV, the API, another tab): one
 * long-poll of the change feed per tab (GET /changes/wait, which answers within 2 s of a commit
 * on any host), then the changes themselves (GET /changes), applied to the loaded rows in place
 * (live_changes.ts), so selection and scroll position stay. Paused while the tab is hidden,
 * aborted when the view changes, backing off after errors, stopped when the session ends.
 */
import { useEffect } from "preact/hooks";
import { DRIVE_BASE, type Row, type SortBy, type SortOrder } from "./api.ts";
import type { DriveRoute } from "../router.ts";
import { me } from "../store.ts";
import type { Listing } from "./listing.ts";
import { applyChange, type FeedChange, type FolderPlace, rowOrder } from "./live_changes.ts";

/** Seconds one long-poll waits (the API allows 1 to 60). */
const WAIT_SECONDS = 25;
/** Most changes read per page; a burst larger than this is read over several pages. */
const CHANGES_PAGE = 200;
/** Backoff after a failed poll: doubling from the first, capped at the last. */
const BACKOFF_MS = [1_000, 30_000];

class SessionEnded extends Error {}

async function getData<T>(path: string, signal: AbortSignal): Promise<T> {
  const res = await fetch(`${DRIVE_BASE}${path}`, {
    headers: { accept: "application/json" },
    credentials: "same-origin",
    signal,
  });
  if (res.status === 401 || res.status === 403) throw new SessionEnded();
  const env = await res.json();
  if (!res.ok || env?.result === false) throw new Error(env?.message ?? `HTTP ${res.status}`);
  return env.data as T;
}

/** Resolves once the tab is visible (at once when it is). */
function whenVisible(signal: AbortSignal): Promise<void> {
  if (!document.hidden) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      if (document.hidden && !signal.aborted) return;
      document.removeEventListener("visibilitychange", done);
      signal.removeEventListener("abort", done);
      resolve();
    };
    document.addEventListener("visibilitychange", done);
    signal.addEventListener("abort", done);
  });
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

/** Follows the feed for `place` until `signal` aborts, applying each change to `listing`. */
async function follow(
  place: FolderPlace,
  listing: Listing,
  sort: [SortBy, SortOrder],
  signal: AbortSignal,
): Promise<void> {
  const order = rowOrder(sort);
  let cursor: string | null = null;
  let delay = BACKOFF_MS[0];
  while (!signal.aborted) {
    try {
      await whenVisible(signal);
      cursor ??= (await getData<{ cursor: string }>("/changes/cursor", signal)).cursor;
      const q = (extra: string) => `?cursor=${encodeURIComponent(cursor!)}${extra}`;
      const waited = await getData<{ changes: boolean }>(
        `/changes/wait${q(`&timeout=${WAIT_SECONDS}`)}`,
        signal,
      );
      for (let more = waited.changes; more && !signal.aborted;) {
        const page = await getData<{ items: FeedChange[]; cursor: string; hasMore: boolean }>(
          `/changes${q(`&ps=${CHANGES_PAGE}`)}`,
          signal,
        );
        let rows: readonly Row[] = listing.rows.value;
        for (const change of page.items) {
          rows = applyChange(rows, change, place, order, listing.done.value);
        }
        if (rows !== listing.rows.value) listing.rows.value = [...rows];
        cursor = page.cursor;
        more = page.hasMore;
      }
      delay = BACKOFF_MS[0];
    } catch (err) {
      if (signal.aborted || err instanceof SessionEnded) return;
      // A cursor older than the feed keeps (CHANGES_001) starts again from now.
      cursor = null;
      await sleep(delay, signal);
      delay = Math.min(delay * 2, BACKOFF_MS[1]);
    }
  }
}

/**
 * Live updates of the folder the route shows in My drive, or in someone else's drive (`ss`);
 * none for the other views (shared, search, trash, pins list rows from many folders).
 */
export function useLiveFolder(r: DriveRoute, listing: Listing, sort: [SortBy, SortOrder]): void {
  const ownerSeq = r.view === "mine" ? r.ss ?? me.value?.userSeq ?? null : null;
  useEffect(() => {
    if (ownerSeq === null) return;
    const stop = new AbortController();
    follow({ ownerSeq, folder: r.folder }, listing, sort, stop.signal);
    return () => stop.abort();
  }, [ownerSeq, r.folder, listing]);
}
