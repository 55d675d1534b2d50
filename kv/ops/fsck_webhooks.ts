/**
 * The webhook part of `admin fsck`: every event an enabled webhook wants has its delivery
 * record, and no webhook outbox message waits to be run again after failing
 * (kv/events/webhook_outbox.ts).
 *
 * An event is looked at once it is older than `graceMs`: a fan-out in flight (or in the
 * outbox's retries) has not written its deliveries yet, and that is no gap. Deliveries
 * expire with the event log, so only events still in the log are checked. `--repair` writes the
 * missing deliveries through the fan-out's own `createEventDeliveries` (each once, so a fan-out
 * that lands meanwhile creates nothing twice).
 */
import type { Deps } from "../deps.ts";
import { eventLogKey, webhookDeliveryKey } from "../keys.ts";
import type { DriveEvent } from "../events/log.ts";
import { positionOfKey } from "../events/positions.ts";
import type { SequencedEvent } from "../events/sequencer.ts";
import { createEventDeliveries, eventDeliveryId } from "../events/webhook_delivery.ts";
import { countFailingMessages } from "../events/webhook_outbox.ts";
import { listStoredWebhooks, type StoredWebhook, wantsEvent } from "../events/webhooks.ts";

/** The outbox's retries (about 13 min) and a lease or two, with room to spare. */
export const WEBHOOK_GRACE_MS = 20 * 60_000;

export interface WebhookGap {
  webhookId: string;
  eventId: string;
  kind: string;
  repaired: boolean;
}

export interface WebhookCheck {
  gaps: WebhookGap[];
  /** Webhook outbox messages whose run failed, waiting for their next run. */
  waitingMessages: number;
}

export async function checkWebhooks(
  d: Deps,
  opts: { repair: boolean; graceMs?: number },
): Promise<WebhookCheck> {
  const before = Date.now() - (opts.graceMs ?? WEBHOOK_GRACE_MS);
  const webhooks = (await listStoredWebhooks(d.kv)).filter((w) => !w.disabledAt);
  const gaps: WebhookGap[] = [];
  if (webhooks.length > 0) {
    const batch: SequencedEvent[] = [];
    for await (const e of d.kv.list<DriveEvent>({ prefix: eventLogKey() })) {
      if (e.value.at > before) break;
      batch.push({ position: positionOfKey(e.key), event: e.value });
      // getMany reads 10 keys at most: one batch of events per webhook read.
      if (batch.length === 10) gaps.push(...await gapsIn(d, webhooks, batch.splice(0), opts));
    }
    gaps.push(...await gapsIn(d, webhooks, batch, opts));
  }
  return { gaps, waitingMessages: await countFailingMessages(d.kv) };
}

async function gapsIn(
  d: Deps,
  webhooks: readonly StoredWebhook[],
  events: readonly SequencedEvent[],
  opts: { repair: boolean },
): Promise<WebhookGap[]> {
  const gaps: WebhookGap[] = [];
  for (const webhook of webhooks) {
    const since = Date.parse(webhook.createdAt);
    const wanted = events.filter((e) => e.event.at >= since && wantsEvent(webhook, e.event));
    if (wanted.length === 0) continue;
    const found = await d.kv.getMany(
      wanted.map((e) => webhookDeliveryKey(webhook.id, eventDeliveryId(e))),
    );
    const missing = wanted.filter((_, i) => found[i].value === null);
    if (missing.length === 0) continue;
    const repaired = opts.repair && (await createEventDeliveries(d, webhook, missing)) > 0;
    for (const e of missing) {
      gaps.push({
        webhookId: webhook.id,
        eventId: eventDeliveryId(e),
        kind: e.event.kind,
        repaired,
      });
    }
  }
  return gaps;
}
