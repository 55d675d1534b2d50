/**
 * Webhook endpoints (docs/changes.md "Webhooks"): a URL, the event kinds it wants, optionally
 * one tenant, its signing secret and its health.
 *   [webhook, webhookId] -> StoredWebhook
 * The signing secret (Standard Webhooks `whsec_<base64>`) must be used again for every
 * signature, so it cannot be stored hashed: it is sealed under the service's secrets key
 * (lib/sealed.ts, bound to the webhook id) and shown only in the answer that created it.
 *
 * Health: `failingSince` is when the endpoint last went from working to failing (cleared by
 * any success). Delivery (webhook_delivery.ts) disables an endpoint that failed every attempt of
 * a delivery's whole retry window; an administrator enables it again. Both go through
 * `addHealthChange`, so the record has one writer module.
 */
import { Buffer } from "node:buffer";
import { randomBytes } from "node:crypto";
import type { Deps } from "../deps.ts";
import { commit, commitWithRetry, CONFLICT } from "../db.ts";
import { fail } from "../errors.ts";
import { webhookKey } from "../keys.ts";
import { requireTenant } from "../identity/tenants.ts";
import { openText, type SealedText, sealingKeyId, sealText } from "../../lib/sealed.ts";
import { type DriveEvent, EVENT_KINDS, type EventKind } from "./log.ts";
import {
  checkWebhookUrl,
  resolvedProblem,
  type Resolver,
  systemResolver,
} from "./webhook_target.ts";

/** Every kind of event, as a webhook's `events` may say. */
export const ALL_EVENTS = "*";
export type WebhookEventFilter = EventKind | typeof ALL_EVENTS;
export const WEBHOOK_EVENT_FILTERS: readonly WebhookEventFilter[] = [ALL_EVENTS, ...EVENT_KINDS];

/** How many webhooks one service keeps: every sequenced batch reads them all. */
export const MAX_WEBHOOKS = 100;
export const WEBHOOK_ID_PATTERN = /^wh_[0-9a-f]{16}$/;

export interface Webhook {
  id: string;
  url: string;
  events: WebhookEventFilter[];
  /** Only events of this tenant; null: every tenant (and admin actions, which have none). */
  tenantId: number | null;
  createdAt: string;
  /** When it was disabled (no deliveries while disabled), or null. */
  disabledAt: string | null;
  /** "admin": by an administrator; "failing": it failed a delivery's whole retry window. */
  disabledReason: "admin" | "failing" | null;
  /** Since when every attempt failed (null: the last attempt succeeded, or none failed). */
  failingSince: string | null;
}

export interface StoredWebhook extends Webhook {
  secret: SealedText;
}

export interface NewWebhook {
  url: string;
  events: WebhookEventFilter[];
  tenantId?: number | null;
}

function publicView({ secret: _, ...webhook }: StoredWebhook): Webhook {
  return webhook;
}

/** Whether `webhook` wants `event` (its kind and, when set, its tenant). */
export function wantsEvent(webhook: Webhook, event: DriveEvent): boolean {
  if (webhook.tenantId !== null && event.tenantId !== webhook.tenantId) return false;
  return webhook.events.includes(ALL_EVENTS) || webhook.events.includes(event.kind);
}

/** `resolve`: how the URL's host is looked up (the system's resolver; tests pass a fake one). */
export async function createWebhook(
  d: Deps,
  input: NewWebhook,
  resolve: Resolver = systemResolver,
): Promise<{ webhook: Webhook; secret: string }> {
  const allowPrivate = d.config.webhookAllowPrivate;
  const checked = checkWebhookUrl(input.url, allowPrivate);
  if ("problem" in checked) fail("WEBHOOK_003", `url: ${checked.problem}`, "url");
  const inward = await resolvedProblem(checked.url, { allowPrivate, resolve });
  if (inward) fail("WEBHOOK_003", `url: ${inward}`, "url");
  const tenantId = input.tenantId ?? null;
  if (tenantId !== null) await requireTenant(d.kv, tenantId);
  const id = `wh_${randomBytes(8).toString("hex")}`;
  // Standard Webhooks secrets: "whsec_" and base64 of 24 to 64 random bytes.
  const secret = `whsec_${Buffer.from(randomBytes(32)).toString("base64")}`;
  const stored: StoredWebhook = {
    id,
    url: checked.url,
    events: [...new Set(input.events)],
    tenantId,
    createdAt: new Date().toISOString(),
    disabledAt: null,
    disabledReason: null,
    failingSince: null,
    secret: sealText(await d.secretsKey.get(), id, secret),
  };
  // The count is read, not locked: two creates racing past the cap leave MAX_WEBHOOKS + 1.
  if ((await listStoredWebhooks(d.kv)).length >= MAX_WEBHOOKS) fail("WEBHOOK_005");
  const res = await d.kv.atomic().check({ key: webhookKey(id), versionstamp: null })
    .set(webhookKey(id), stored).commit();
  if (!res.ok) throw new Error("webhook id collision");
  return { webhook: publicView(stored), secret };
}

/** Every webhook with its sealed secret (the sequencer hook and delivery read these). */
export async function listStoredWebhooks(kv: Deno.Kv): Promise<StoredWebhook[]> {
  const out: StoredWebhook[] = [];
  for await (const e of kv.list<StoredWebhook>({ prefix: webhookKey() })) out.push(e.value);
  return out;
}

/** Every webhook, oldest first. */
export async function listWebhooks(kv: Deno.Kv): Promise<Webhook[]> {
  return (await listStoredWebhooks(kv)).map(publicView)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

export async function requireWebhook(kv: Deno.Kv, id: string): Promise<Webhook> {
  const stored = (await kv.get<StoredWebhook>(webhookKey(id))).value;
  if (!stored) fail("WEBHOOK_001", `No webhook ${id}`, "id");
  return publicView(stored);
}

/** The webhook's entry as stored (null value when it was deleted). */
export function readStoredWebhook(
  kv: Deno.Kv,
  id: string,
): Promise<Deno.KvEntryMaybe<StoredWebhook>> {
  return kv.get<StoredWebhook>(webhookKey(id));
}

/** The plain signing secret, for signing a delivery. */
export async function signingSecret(d: Deps, webhook: StoredWebhook): Promise<string> {
  const key = await d.secretsKey.get();
  const plain = openText(key, webhook.id, webhook.secret);
  if (plain === null) {
    console.error(
      `webhook ${webhook.id}: its secret cannot be decrypted (sealed with key ` +
        `${webhook.secret.keyId}, current key ${
          sealingKeyId(key)
        }); was DRIVE_SECRETS_KEY changed?`,
    );
    fail("WEBHOOK_006");
  }
  return plain;
}

/** Disables (by an administrator) or enables a webhook; enabling forgets its failures. */
export function setWebhookDisabled(kv: Deno.Kv, id: string, disabled: boolean): Promise<Webhook> {
  return commitWithRetry(async () => {
    const entry = await readStoredWebhook(kv, id);
    if (!entry.value) return fail("WEBHOOK_001", `No webhook ${id}`, "id");
    const cur = entry.value;
    if (Boolean(cur.disabledAt) === disabled) return publicView(cur);
    const op = kv.atomic().check(entry);
    const next = addHealthChange(
      op,
      cur,
      disabled
        ? { disabledAt: new Date().toISOString(), disabledReason: "admin" }
        : { disabledAt: null, disabledReason: null, failingSince: null },
    );
    return (await commit(op)) === CONFLICT ? CONFLICT : publicView(next);
  });
}

/**
 * Adds the write of `webhook` with `change` to `op` (the caller checks the entry it read) and
 * returns the new record: how delivery records health in its own commit.
 */
export function addHealthChange(
  op: Deno.AtomicOperation,
  webhook: StoredWebhook,
  change: Partial<Pick<Webhook, "disabledAt" | "disabledReason" | "failingSince">>,
): StoredWebhook {
  const next = { ...webhook, ...change };
  op.set(webhookKey(webhook.id), next);
  return next;
}

/** Removes the webhook; its deliveries go with it (webhook_delivery.ts `removeWebhook`). */
export async function deleteWebhookRecord(kv: Deno.Kv, id: string): Promise<void> {
  await commitWithRetry(async () => {
    const entry = await readStoredWebhook(kv, id);
    if (!entry.value) return fail("WEBHOOK_001", `No webhook ${id}`, "id");
    return await commit(kv.atomic().check(entry).delete(webhookKey(id)));
  });
}
