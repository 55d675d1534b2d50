/**
 * Webhook queue messages KV gave up on. Every webhook message (a fan-out, an attempt) is enqueued
 * with `enqueueOptions`: KV redelivers a message whose handler threw on the QUEUE_BACKOFF
 * schedule and, after the last retry, writes the message itself under `keysIfUndelivered`
 *   [webhook_undelivered, kind, id] -> the message
 * instead of dropping it. `redriveUndelivered` (boot, every UNDELIVERED_REDRIVE_MS on every
 * process) runs each such message again and removes it once it succeeded, so a fan-out that
 * failed (a store hiccup, a bug) is retried until it succeeds and never lost; `admin fsck`
 * reports what is waiting here.
 */
import type { Deps } from "../deps.ts";
import { commit } from "../db.ts";
import { webhookUndeliveredKey } from "../keys.ts";
import { driveLogger } from "../../lib/logger.ts";

/** KV's own redelivery of a message whose handler threw or whose process died. */
export const QUEUE_BACKOFF = [1_000, 5_000, 30_000, 120_000, 600_000];
/** How often each process runs the messages KV gave up on again. */
export const UNDELIVERED_REDRIVE_MS = 60_000;

/** What identifies a message for its undelivered key (one key per message, however often). */
export interface QueuedMessage {
  kind: string;
  /** A fan-out's first log position, or an attempt's delivery and schedule. */
  id: string;
}

/** The enqueue options of every webhook message: KV's retries, then its undelivered key. */
export function enqueueOptions(message: QueuedMessage, delay = 0) {
  return {
    delay,
    backoffSchedule: QUEUE_BACKOFF,
    keysIfUndelivered: [webhookUndeliveredKey(message.kind, message.id)],
  };
}

/**
 * Runs every message KV gave up on through `handle` again; one that succeeds is removed (checked
 * against the entry read, so two processes redriving at once remove it once). One that throws
 * stays for the next round. Returns how many succeeded.
 */
export async function redriveUndelivered(
  d: Deps,
  handle: (message: unknown) => Promise<void>,
): Promise<number> {
  let done = 0;
  for await (const entry of d.kv.list({ prefix: webhookUndeliveredKey() })) {
    try {
      await handle(entry.value);
    } catch (err) {
      driveLogger("webhooks").warn("an undelivered webhook message failed again", {
        key: entry.key.map(String).join("/"),
        error: String(err),
      });
      continue;
    }
    await commit(d.kv.atomic().check(entry).delete(entry.key));
    done++;
  }
  return done;
}

/** How many webhook messages wait to be run again (fsck). */
export async function countUndelivered(kv: Deno.Kv): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix: webhookUndeliveredKey() }, { limit: 10_000 })) n++;
  return n;
}
