/**
 * The one async-context scope of a request: what code deep inside a request needs to know about
 * it without being handed it. Three owners keep their own API over it: the request id every log
 * record carries (api/ops/logging.ts hands LogTape a view of `logContext`), the observer told
 * about KV commit races (kv/db.ts `observeCommits`) and who authenticated (kv/events/actor.ts
 * `runInRequestScope`, `eventActor`).
 *
 * Why one scope and not one AsyncLocalStorage per owner: entering a storage copies the async
 * context, and the request middleware (api/ops/request_log.ts) would pay that three times on every
 * request; it opens this scope once with all three fields instead. A nested `withRequestScope`
 * (a test observing its own commits, LogTape's `withContext`) gets a copy, so the outer scope
 * never changes under the code running in it.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Actor } from "./request_facts.ts";

/**
 * Told about every lost race and retry of kv/db.ts `commitWithRetry` (the /metrics counters,
 * api/ops/metrics.ts).
 */
export interface CommitObserver {
  /** A commit whose versionstamp checks failed (another writer won the race). */
  conflict(): void;
  /** The cycle runs again, after a conflict or a transient "database is locked" error. */
  retry(reason: "conflict" | "busy"): void;
  /** A best-effort audit entry (kv/events/log.ts) could not be written (e.g. a full disk). */
  auditDropped?(): void;
}

export interface RequestScope {
  /** Properties every log record made inside the scope carries (LogTape's implicit context). */
  readonly logContext?: Record<string, unknown>;
  /** Told about the KV commits made inside the scope. */
  readonly commitObserver?: CommitObserver;
  /** Who authenticated the request, once an edge knows (read when an event is built). */
  readonly actorOf?: () => Actor | undefined;
}

const storage = new AsyncLocalStorage<RequestScope>();

/** The scope the caller runs in, if any. */
export function currentRequestScope(): RequestScope | undefined {
  return storage.getStore();
}

/**
 * Runs `fn` (and the async work it starts) in the current scope with `fields` set; outside any
 * scope, in one made of `fields` alone.
 */
export function withRequestScope<T>(fields: RequestScope, fn: () => T): T {
  const outer = storage.getStore();
  return storage.run(outer === undefined ? fields : { ...outer, ...fields }, fn);
}
