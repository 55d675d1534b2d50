/**
 * Webhooks on the event log's seam (kv/events/sequencer.ts `afterSequenced`), and the outbox
 * worker that runs their messages (webhook_outbox.ts; no KV queue: KV Connect has none).
 *
 * The hook runs inside each sequencer batch commit: when an enabled webhook wants an event of
 * the batch, it adds one `FanoutMessage` (the batch's first and last log positions, and which
 * webhooks) to that commit's outbox. So an event enters the log if and only if its fan-out is queued,
 * whatever process dies when. One message per batch, not one per delivery, keeps the sequencer's
 * commit within KV's limits however many webhooks there are; the fan-out then writes the
 * deliveries (webhook_delivery.ts) in commits of its own, each delivery once, so a fan-out run
 * twice (a worker that died before it deleted the message) creates nothing twice.
 */
import type { Deps } from "../deps.ts";
import { eventLogKey } from "../keys.ts";
import type { DriveEvent } from "./log.ts";
import { encodeCursor, type EventPosition, positionOfKey } from "./positions.ts";
import type { AfterSequencedHook, SequencedEvent } from "./sequencer.ts";
import { attemptDelivery, type AttemptMessage, createEventDeliveries } from "./webhook_delivery.ts";
import { addToOutbox, adoptUndelivered, startOutboxWorker } from "./webhook_outbox.ts";
import { listStoredWebhooks, readStoredWebhook, wantsEvent } from "./webhooks.ts";

/** Deliver the log entries from `from` to `to` (both included) to `webhookIds`. */
export interface FanoutMessage {
  kind: "webhook_fanout";
  from: EventPosition;
  to: EventPosition;
  webhookIds: string[];
}

export type WebhookMessage = FanoutMessage | AttemptMessage;

/** The `afterSequenced` hook: queues the batch's fan-out when an enabled webhook wants any. */
export function webhookFanoutHook(kv: Deno.Kv): AfterSequencedHook {
  return async (op, events) => {
    if (events.length === 0) return;
    const webhooks = (await listStoredWebhooks(kv)).filter((w) => !w.disabledAt);
    const webhookIds = webhooks.filter((w) => events.some((e) => wantsEvent(w, e.event)))
      .map((w) => w.id);
    if (webhookIds.length === 0) return;
    const message: FanoutMessage = {
      kind: "webhook_fanout",
      from: events[0].position,
      to: events[events.length - 1].position,
      webhookIds,
    };
    // Its id names the batch: one message per batch, however often the hook's commit is tried.
    addToOutbox(op, `fanout.${encodeCursor(message.from)}`, message);
  };
}

/** Creates the deliveries of a fan-out (each once, see the module comment). */
export async function fanOut(d: Deps, message: FanoutMessage): Promise<void> {
  const events: SequencedEvent[] = [];
  const { from, to } = message;
  for await (
    const e of d.kv.list<DriveEvent>({
      start: eventLogKey(from.vs, from.n),
      end: eventLogKey(to.vs, to.n + 1),
    })
  ) events.push({ position: positionOfKey(e.key), event: e.value });
  for (const id of message.webhookIds) {
    const webhook = (await readStoredWebhook(d.kv, id)).value;
    // Deleted or disabled since the batch: nothing to deliver.
    if (!webhook || webhook.disabledAt) continue;
    await createEventDeliveries(d, webhook, events);
  }
}

function isWebhookMessage(value: unknown): value is WebhookMessage {
  const kind = (value as { kind?: unknown } | null)?.kind;
  return kind === "webhook_fanout" || kind === "webhook_attempt";
}

/**
 * Runs one outbox message. Throwing makes the outbox run it again later (webhook_outbox.ts),
 * which only a KV failure should: a failed HTTP attempt is recorded and rescheduled by the
 * delivery itself.
 */
export async function handleWebhookMessage(d: Deps, value: unknown): Promise<void> {
  if (!isWebhookMessage(value)) return;
  if (value.kind === "webhook_fanout") await fanOut(d, value);
  else await attemptDelivery(d, value);
}

/**
 * Starts this process's outbox worker (every process runs one; boot). Its lease is renewed
 * while an attempt runs, so a slow endpoint is never sent the same attempt by a second process,
 * and a killed process's attempt is due again within WEBHOOK_LEASE_MS (as KV's queue redelivered
 * an unfinished message ~5 s after its process died). Messages the KV queue of earlier releases
 * gave up on join the outbox first.
 */
/** How long a dead process holds a webhook message; renewed every third of it by a live one. */
export const WEBHOOK_LEASE_MS = 6_000;

export async function startWebhookWorker(
  d: Deps,
  opts: { pollMs?: number } = {},
): Promise<{ stop(): void }> {
  await adoptUndelivered(d.kv);
  return startOutboxWorker(d.kv, (value) => handleWebhookMessage(d, value), {
    pollMs: opts.pollMs,
    leaseMs: WEBHOOK_LEASE_MS,
  });
}
