/**
 * Webhook deliveries (docs/changes.md "Webhooks"): one message to one endpoint and its attempts.
 *   [webhook_delivery, webhookId, deliveryId] -> WebhookDelivery (expires with the event log)
 * A delivery id is 12 hex digits of its event's time and 24 more (the event's log position, or
 * random for a test), so ids sort by time and one event gives one delivery per webhook however
 * often its fan-out runs. The `webhook-id` header is `msg_<deliveryId>` on every attempt.
 *
 * At least once: every attempt is an outbox message (`AttemptMessage`, webhook_outbox.ts), written
 * in the same commit as the state that expects it (the delivery record, or the outcome of the
 * previous attempt). An attempt reads the record, sends, then commits its outcome checked against
 * the record it read; a process that dies before that commit leaves the message claimed, and it
 * falls due again when the claim's lease lapses, so the attempt repeats. A message whose
 * `schedule` is not
 * the record's any more (a manual retry replaced it) does nothing.
 *
 * Retries: after failed attempt n the next comes DRIVE_WEBHOOK_RETRY_BASE_MS * 2^(n-1) later (at
 * most MAX_RETRY_DELAY_MS), through the outbox entry's due time, while within the retry window
 * (DRIVE_WEBHOOK_RETRY_WINDOW_S, 24 h) from the first attempt; then the delivery is failed. If
 * the endpoint failed everything since that first attempt, it is disabled (webhooks.ts).
 */
import type { Deps } from "../deps.ts";
import { commit, commitWithRetry, CONFLICT } from "../db.ts";
import { fail, isDriveError } from "../errors.ts";
import { webhookDeliveryKey, webhookKey } from "../keys.ts";
import { encodeCursor } from "./positions.ts";
import type { SequencedEvent } from "./sequencer.ts";
import { type AttemptOutcome, sendSigned } from "./webhook_send.ts";
import { type DeliveryAttempt, withAttempt } from "./webhook_attempts.ts";
import { addToOutbox } from "./webhook_outbox.ts";
import {
  addHealthChange,
  deleteWebhookRecord,
  readStoredWebhook,
  signingSecret,
  type StoredWebhook,
  wantsEvent,
} from "./webhooks.ts";

/** The type of the delivery POST /admin/api/webhooks/{id}/test sends. */
const TEST_TYPE = "webhook.test";
export const DELIVERY_ID_PATTERN = /^[0-9a-f]{36}$/;
export const MAX_RETRY_DELAY_MS = 10 * 3600_000;
/**
 * Deliveries written per commit by a fan-out: each is read first, and Deno KV reads at most 10
 * keys per getMany (more throws "Too many ranges"); 10 also stays within denokv's check limit.
 */
const FANOUT_CHUNK = 10;

export interface WebhookDelivery {
  id: string;
  webhookId: string;
  /** The event kind, or TEST_TYPE. */
  type: string;
  /** The event's log position (a change-feed cursor); null for a test. */
  eventId: string | null;
  /** The JSON body, exactly as every attempt sends it. */
  payload: string;
  createdAt: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  /** Bumped with every attempt message written; a message with another value is stale. */
  schedule: number;
  /** The first attempt of the current retry window (reset by a manual retry). */
  windowStart: string | null;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  /** The HTTP status of the last attempt, null when it got no answer. */
  lastStatus: number | null;
  lastError: string | null;
  lastDurationMs: number | null;
  /** The latest attempts, newest first (webhook_attempts.ts); absent on older records. */
  attemptLog?: DeliveryAttempt[];
}

/** What a delivery's queue message says: make attempt number `schedule` of this delivery. */
export interface AttemptMessage {
  kind: "webhook_attempt";
  webhookId: string;
  deliveryId: string;
  schedule: number;
}

const attemptOutboxId = (m: AttemptMessage) =>
  `attempt.${m.webhookId}.${m.deliveryId}.${m.schedule}`;

const iso = (ms: number) => new Date(ms).toISOString();
const expireIn = (d: Deps) => d.config.eventRetentionDays * 86_400_000;

function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)))
    .map((b) => b.toString(16).padStart(2, "0")).join("");
}

function newDelivery(
  webhookId: string,
  id: string,
  type: string,
  eventId: string | null,
  data: unknown,
): WebhookDelivery {
  const now = iso(Date.now());
  return {
    id,
    webhookId,
    type,
    eventId,
    // The Standard Webhooks payload shape: type, timestamp, data.
    payload: JSON.stringify({ type, timestamp: now, data }),
    createdAt: now,
    status: "pending",
    attempts: 0,
    schedule: 1,
    windowStart: null,
    nextAttemptAt: now,
    lastAttemptAt: null,
    lastStatus: null,
    lastError: null,
    lastDurationMs: null,
    attemptLog: [],
  };
}

/** Adds `delivery` and the message for its next attempt (after `delay` ms) to `op`. */
function addScheduled(d: Deps, op: Deno.AtomicOperation, delivery: WebhookDelivery, delay = 0) {
  op.set(webhookDeliveryKey(delivery.webhookId, delivery.id), delivery, { expireIn: expireIn(d) });
  const message: AttemptMessage = {
    kind: "webhook_attempt",
    webhookId: delivery.webhookId,
    deliveryId: delivery.id,
    schedule: delivery.schedule,
  };
  addToOutbox(op, attemptOutboxId(message), message, delay);
}

/** The one delivery id an event has at every webhook (see the module comment). */
export function eventDeliveryId(e: SequencedEvent): string {
  return e.event.at.toString(16).padStart(12, "0") + encodeCursor(e.position);
}

/**
 * Creates the deliveries of `events` that `webhook` wants, each once: an event whose delivery
 * exists already (an earlier run of the same fan-out) is skipped. Returns how many it created.
 */
export async function createEventDeliveries(
  d: Deps,
  webhook: StoredWebhook,
  events: readonly SequencedEvent[],
): Promise<number> {
  const wanted = events.filter((e) => wantsEvent(webhook, e.event)).map((e) => {
    const eventId = encodeCursor(e.position);
    const id = eventDeliveryId(e);
    return newDelivery(webhook.id, id, e.event.kind, eventId, { eventId, ...e.event });
  });
  let created = 0;
  for (let i = 0; i < wanted.length; i += FANOUT_CHUNK) {
    const chunk = wanted.slice(i, i + FANOUT_CHUNK);
    created += await commitWithRetry(async () => {
      const keys = chunk.map((x) => webhookDeliveryKey(webhook.id, x.id));
      const existing = await d.kv.getMany(keys);
      const op = d.kv.atomic();
      let n = 0;
      chunk.forEach((delivery, j) => {
        if (existing[j].value !== null) return;
        op.check(existing[j]);
        addScheduled(d, op, delivery);
        n++;
      });
      if (n === 0) return 0;
      return (await commit(op)) === CONFLICT ? CONFLICT : n;
    });
  }
  return created;
}

/** Requires `webhookId` to exist and be enabled (WEBHOOK_001, WEBHOOK_004). */
async function requireEnabled(d: Deps, webhookId: string): Promise<StoredWebhook> {
  const webhook = (await readStoredWebhook(d.kv, webhookId)).value;
  if (!webhook) fail("WEBHOOK_001", `No webhook ${webhookId}`, "id");
  if (webhook.disabledAt) fail("WEBHOOK_004");
  return webhook;
}

/** Queues a test delivery (type webhook.test) to an enabled webhook. */
export async function sendTestDelivery(d: Deps, webhookId: string): Promise<WebhookDelivery> {
  const webhook = await requireEnabled(d, webhookId);
  const id = Date.now().toString(16).padStart(12, "0") + randomHex(12);
  const delivery = newDelivery(webhook.id, id, TEST_TYPE, null, { webhookId: webhook.id });
  const op = d.kv.atomic();
  addScheduled(d, op, delivery);
  await op.commit();
  return delivery;
}

/** Sends a delivery again now, whatever its state, with a fresh retry window. */
export function retryDelivery(
  d: Deps,
  webhookId: string,
  deliveryId: string,
): Promise<WebhookDelivery> {
  return commitWithRetry(async () => {
    await requireEnabled(d, webhookId);
    const entry = await d.kv.get<WebhookDelivery>(webhookDeliveryKey(webhookId, deliveryId));
    if (!entry.value) return fail("WEBHOOK_002", `No delivery ${deliveryId}`, "deliveryId");
    const next: WebhookDelivery = {
      ...entry.value,
      status: "pending",
      schedule: entry.value.schedule + 1,
      windowStart: null,
      nextAttemptAt: iso(Date.now()),
    };
    const op = d.kv.atomic().check(entry);
    addScheduled(d, op, next);
    return (await commit(op)) === CONFLICT ? CONFLICT : next;
  });
}

/** One delivery of a webhook (WEBHOOK_001, WEBHOOK_002 when either is unknown). */
export async function requireDelivery(
  d: Deps,
  webhookId: string,
  deliveryId: string,
): Promise<WebhookDelivery> {
  const [hook, delivery] = await d.kv.getMany<[unknown, WebhookDelivery]>([
    webhookKey(webhookId),
    webhookDeliveryKey(webhookId, deliveryId),
  ]);
  if (!hook.value) fail("WEBHOOK_001", `No webhook ${webhookId}`, "id");
  return delivery.value ?? fail("WEBHOOK_002", `No delivery ${deliveryId}`, "deliveryId");
}

/** A page of a webhook's deliveries, newest first; `cursor` is the last id of the page before. */
export async function listDeliveries(
  d: Deps,
  webhookId: string,
  opts: { pageSize: number; cursor?: string },
): Promise<{ items: WebhookDelivery[]; nextCursor: string | null }> {
  await readStoredWebhook(d.kv, webhookId).then((e) => {
    if (!e.value) fail("WEBHOOK_001", `No webhook ${webhookId}`, "id");
  });
  const items: WebhookDelivery[] = [];
  const selector = opts.cursor
    ? { prefix: webhookDeliveryKey(webhookId), end: webhookDeliveryKey(webhookId, opts.cursor) }
    : { prefix: webhookDeliveryKey(webhookId) };
  for await (
    const e of d.kv.list<WebhookDelivery>(selector, { reverse: true, limit: opts.pageSize + 1 })
  ) items.push(e.value);
  const more = items.length > opts.pageSize;
  if (more) items.pop();
  return { items, nextCursor: more ? items[items.length - 1].id : null };
}

/** Deletes a webhook and then its deliveries (a message still queued for one finds neither). */
export async function removeWebhook(kv: Deno.Kv, webhookId: string): Promise<void> {
  await deleteWebhookRecord(kv, webhookId);
  let keys: Deno.KvKey[] = [];
  const flush = async () => {
    const op = kv.atomic();
    for (const key of keys) op.delete(key);
    await op.commit();
    keys = [];
  };
  for await (const e of kv.list({ prefix: webhookDeliveryKey(webhookId) })) {
    keys.push(e.key);
    if (keys.length === 500) await flush();
  }
  if (keys.length > 0) await flush();
}

/** Makes the attempt `message` asks for, and records its outcome (see the module comment). */
export async function attemptDelivery(d: Deps, message: AttemptMessage): Promise<void> {
  const key = webhookDeliveryKey(message.webhookId, message.deliveryId);
  const read = await d.kv.get<WebhookDelivery>(key);
  const delivery = read.value;
  if (!delivery || delivery.status !== "pending" || delivery.schedule !== message.schedule) return;
  const webhook = (await readStoredWebhook(d.kv, message.webhookId)).value;
  if (!webhook) return; // deleted; its deliveries go too
  if (webhook.disabledAt) {
    // Ends without an attempt; a retry by hand sends it once the webhook is enabled again.
    await commit(
      d.kv.atomic().check(read).set(
        key,
        {
          ...delivery,
          status: "failed",
          nextAttemptAt: null,
          lastError: "not sent: the webhook is disabled",
        } satisfies WebhookDelivery,
        { expireIn: expireIn(d) },
      ),
    );
    return;
  }
  const startedAt = Date.now();
  let secret: string | null = null;
  try {
    secret = await signingSecret(d, webhook);
  } catch (err) {
    if (!isDriveError(err)) throw err;
  }
  const outcome: AttemptOutcome = secret === null
    ? {
      ok: false,
      status: null,
      error: "the signing secret cannot be decrypted",
      durationMs: 0,
      response: null,
    }
    : await sendSigned(
      { url: webhook.url, secret, messageId: `msg_${delivery.id}`, payload: delivery.payload },
      { timeoutMs: d.config.webhookTimeoutMs, allowPrivate: d.config.webhookAllowPrivate },
    );
  await recordOutcome(d, read, startedAt, outcome);
}

/** The delay before the attempt after failed attempt `attempts` (1, 2, ...). */
export function retryDelay(baseMs: number, attempts: number): number {
  return Math.min(baseMs * 2 ** Math.min(attempts - 1, 40), MAX_RETRY_DELAY_MS);
}

/**
 * Commits the outcome of the attempt that began at `startedAt` on the delivery as `read`, with
 * the next attempt's message or the end of the delivery, and the endpoint's health. Nothing
 * when the delivery changed meanwhile: whoever changed it scheduled what comes next.
 */
async function recordOutcome(
  d: Deps,
  read: Deno.KvEntry<WebhookDelivery>,
  startedAt: number,
  outcome: AttemptOutcome,
): Promise<void> {
  await commitWithRetry(async () => {
    const [cur, hookEntry] = await d.kv.getMany<[WebhookDelivery, StoredWebhook]>([
      read.key,
      webhookKey(read.value.webhookId),
    ]);
    if (cur.versionstamp !== read.versionstamp) return undefined;
    const windowStart = read.value.windowStart ?? iso(startedAt);
    const next: WebhookDelivery = {
      ...read.value,
      attempts: read.value.attempts + 1,
      windowStart,
      lastAttemptAt: iso(startedAt),
      lastStatus: outcome.status,
      lastError: outcome.error,
      lastDurationMs: outcome.durationMs,
      nextAttemptAt: null,
    };
    const op = d.kv.atomic().check(cur);
    const webhook = hookEntry.value;
    const webhookDisabled = Boolean(webhook?.disabledAt);
    const logged = (nextAttemptAt: string | null) =>
      withAttempt(read.value.attemptLog, iso(startedAt), outcome, nextAttemptAt);
    if (outcome.ok) {
      next.status = "delivered";
      next.attemptLog = logged(null);
      if (webhook?.failingSince) {
        op.check(hookEntry);
        addHealthChange(op, webhook, { failingSince: null });
      }
      op.set(read.key, next, { expireIn: expireIn(d) });
      return await commit(op);
    }
    const delay = retryDelay(d.config.webhookRetryBaseMs, next.attempts);
    const withinWindow =
      startedAt + delay - Date.parse(windowStart) <= d.config.webhookRetryWindowMs;
    if (withinWindow && !webhookDisabled) {
      next.schedule++;
      next.nextAttemptAt = iso(Date.now() + delay);
      next.attemptLog = logged(next.nextAttemptAt);
      addScheduled(d, op, next, delay);
    } else {
      next.status = "failed";
      next.attemptLog = logged(null);
      op.set(read.key, next, { expireIn: expireIn(d) });
    }
    if (webhook && !webhookDisabled) {
      // Failing since before this delivery's window began, and the window is over: disable.
      const since = webhook.failingSince ?? iso(startedAt);
      const giveUp = next.status === "failed" && Date.parse(since) <= Date.parse(windowStart);
      if (giveUp || webhook.failingSince === null) {
        op.check(hookEntry);
        addHealthChange(op, webhook, {
          failingSince: since,
          ...(giveUp ? { disabledAt: iso(Date.now()), disabledReason: "failing" as const } : {}),
        });
      }
    }
    return await commit(op);
  });
}
