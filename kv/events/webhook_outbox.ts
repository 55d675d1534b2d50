/**
 * The webhook outbox: messages (a batch's fan-out, one delivery attempt) kept in KV until a
 * worker has run them, instead of `kv.enqueue`, which KV Connect (`denokv`) and the new Deno
 * Deploy do not offer (docs/scale-out.md).
 *   [webhook_outbox, dueAt, id] -> OutboxEntry
 * A message is written in the same commit as the state that expects it (the sequencer's batch,
 * a delivery record, an attempt's outcome), so none is lost or sent for a change that did not
 * happen. `id` names the message (a fan-out's first log position, an attempt's delivery and
 * schedule); the key sorts by when it is due, so a worker lists only what is due.
 *
 * Every process runs one worker (`startOutboxWorker`, boot). It claims a due entry with one
 * commit checked against the entry it listed: the entry moves to `now + leaseMs` with the
 * worker as its holder. Only one of two workers' claims can pass that check, so in normal
 * operation one process runs each message once. The worker then runs it and deletes its leased
 * entry (checked against the claim's versionstamp). A process that dies mid-message leaves the
 * leased entry, which falls due again when the lease lapses and is run by whoever claims it:
 * at least once. A message whose handler throws (a KV failure; a failed HTTP attempt is recorded
 * and rescheduled by the delivery itself) is moved to the next step of OUTBOX_BACKOFF and kept
 * until it succeeds; `admin fsck` counts those (`countFailingMessages`).
 */
import { webhookOutboxKey, webhookUndeliveredKey } from "../keys.ts";
import { driveLogger } from "../../lib/logger.ts";

export interface OutboxEntry {
  /** What the handler gets (webhook_queue.ts `WebhookMessage`). */
  message: unknown;
  /** How often a handler threw on this message so far. */
  failures: number;
  /** The worker that holds it now, while its lease runs. */
  claimedBy?: string;
}

/** Delays after a handler threw (then the last one, until it succeeds): as KV's queue retried. */
export const OUTBOX_BACKOFF = [1_000, 5_000, 30_000, 120_000, 600_000];

/** Adds `message`, due after `delayMs`, to `op` (the commit of the state that expects it). */
export function addToOutbox(
  op: Deno.AtomicOperation,
  id: string,
  message: unknown,
  delayMs = 0,
): void {
  op.set(webhookOutboxKey(Date.now() + delayMs, id), { message, failures: 0 } as OutboxEntry);
}

export interface OutboxWorkerOptions {
  /** How often the worker looks for due messages; default 250 ms. */
  pollMs?: number;
  /** How long a claim holds a message unless renewed (a third of it apart, while it runs). */
  leaseMs: number;
  /** Messages run at once by this process; default 16. */
  maxInFlight?: number;
}

export interface OutboxWorker {
  /** Claims and runs what is due now; resolves when those runs ended (tests). */
  runDue(): Promise<number>;
  stop(): void;
}

/** Starts this process's worker over the outbox (see the module comment). */
export function startOutboxWorker(
  kv: Deno.Kv,
  handle: (message: unknown) => Promise<void>,
  opts: OutboxWorkerOptions,
): OutboxWorker {
  const holder = crypto.randomUUID();
  const maxInFlight = opts.maxInFlight ?? 16;
  const log = driveLogger("webhooks");
  let inFlight = 0;
  let stopped = false;

  /**
   * Runs a claimed message, renewing its lease every third of `leaseMs` while it runs (the
   * entry moves to a later due time, checked), so a dead process's message is due again within
   * one lease, yet a slow endpoint is never sent the same attempt by a second process.
   */
  const run = async (claimed: { key: Deno.KvKey; versionstamp: string }, entry: OutboxEntry) => {
    const id = claimed.key[2] as string;
    let held = claimed;
    let renewing: Promise<void> = Promise.resolve();
    const renewTimer = setInterval(() => {
      // A stopped worker (its KV closing, its process ending) renews nothing: the lease lapses.
      if (stopped) return clearInterval(renewTimer);
      renewing = renewing.then(async () => {
        const next = webhookOutboxKey(Date.now() + opts.leaseMs, id);
        const res = await kv.atomic().check(held).delete(held.key)
          .set(next, { ...entry, claimedBy: holder }).commit().catch(() => null);
        if (res?.ok) held = { key: next, versionstamp: res.versionstamp };
      });
    }, Math.max(1, Math.floor(opts.leaseMs / 3)));
    Deno.unrefTimer(renewTimer);
    let failed: unknown = null;
    try {
      await handle(entry.message);
    } catch (err) {
      failed = err;
    } finally {
      clearInterval(renewTimer);
      await renewing;
    }
    if (stopped) return;
    if (failed === null) {
      await kv.atomic().check(held).delete(held.key).commit();
      return;
    }
    const failures = entry.failures + 1;
    const delay = OUTBOX_BACKOFF[Math.min(failures, OUTBOX_BACKOFF.length) - 1];
    log.warn("a webhook outbox message failed; it runs again later", {
      id,
      failures,
      error: String(failed),
    });
    await kv.atomic().check(held).delete(held.key)
      .set(webhookOutboxKey(Date.now() + delay, id), { message: entry.message, failures })
      .commit().catch(() => {}); // not moved: the lease lapses and it runs again anyway
  };

  const runDue = async (): Promise<number> => {
    const room = maxInFlight - inFlight;
    if (room <= 0 || stopped) return 0;
    const now = Date.now();
    const due: Deno.KvEntry<OutboxEntry>[] = [];
    const selector = { start: webhookOutboxKey(), end: webhookOutboxKey(now + 1) };
    for await (const e of kv.list<OutboxEntry>(selector, { limit: room })) due.push(e);
    const runs: Promise<void>[] = [];
    for (const e of due) {
      if (stopped) break;
      const leased = webhookOutboxKey(Date.now() + opts.leaseMs, e.key[2] as string);
      const claim = await kv.atomic().check(e).delete(e.key)
        .set(leased, { ...e.value, claimedBy: holder }).commit();
      if (!claim.ok) continue; // another worker has it
      inFlight++;
      const claimed = { key: leased, versionstamp: claim.versionstamp };
      runs.push(run(claimed, e.value).catch(() => {}).finally(() => inFlight--));
    }
    await Promise.all(runs);
    return runs.length;
  };

  let looking = false;
  const timer = setInterval(async () => {
    if (looking) return;
    looking = true;
    try {
      // Runs are not awaited here: a slow endpoint must not stop this process claiming more.
      const started = runDue().catch((err) => {
        if (!stopped) log.warn("the webhook outbox could not be read", { error: String(err) });
      });
      await Promise.race([started, new Promise((r) => setTimeout(r, opts.pollMs ?? 250))]);
    } finally {
      looking = false;
    }
  }, opts.pollMs ?? 250);
  Deno.unrefTimer(timer);

  return {
    runDue,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}

/** Outbox messages whose handler threw at least once (fsck: they wait for their next run). */
export async function countFailingMessages(kv: Deno.Kv): Promise<number> {
  let n = 0;
  for await (const e of kv.list<OutboxEntry>({ prefix: webhookOutboxKey() }, { limit: 10_000 })) {
    if (e.value.failures > 0) n++;
  }
  return n;
}

/**
 * Moves the messages KV's queue gave up on before this release (`keysIfUndelivered`) into the
 * outbox, each once (checked), so an upgrade loses none of them. Safe on every process at once.
 */
export async function adoptUndelivered(kv: Deno.Kv): Promise<number> {
  let moved = 0;
  for await (const e of kv.list({ prefix: webhookUndeliveredKey() })) {
    const op = kv.atomic().check(e).delete(e.key);
    addToOutbox(op, `undelivered.${e.key.slice(1).map(String).join(".")}`, e.value);
    if ((await op.commit()).ok) moved++;
  }
  return moved;
}
