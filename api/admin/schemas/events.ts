/**
 * The admin API's shapes of the event log's two admin views (docs/changes.md): the activity log
 * (api/admin/activity.ts) and webhooks with their deliveries (api/admin/webhooks.ts). Like
 * api/admin/schemas/identity.ts, the routes validate with them and the console imports their types.
 */
import { z } from "@hono/zod-openapi";
import { EVENT_KINDS } from "../../../kv/events/log.ts";
import { WEBHOOK_EVENT_FILTERS } from "../../../kv/events/webhooks.ts";
import { MAX_KEPT_ATTEMPTS } from "../../../kv/events/webhook_attempts.ts";
import {
  EventActorSchema,
  EventBeforeSchema,
  eventDetailSchema,
  EventResourceSchema,
  EventShareSchema,
} from "../../http/event_schemas.ts";
import { pageFields } from "../../http/cursor.ts";

// ---------------------------------------------------------------- activity

/** Every kind of event (kv/events/log.ts), for the activity log's entries and filters. */
const EventKindSchema = z.enum(EVENT_KINDS);
export type EventKind = z.infer<typeof EventKindSchema>;

/** One entry of the activity log: a change of the drive, a read, or an admin action. */
const ActivityEntrySchema = z.object({
  id: z.string().describe("The entry's log position; entries are listed newest first"),
  kind: EventKindSchema.describe("What happened (docs/changes.md: event kinds)").openapi({
    example: "downloaded",
  }),
  at: z.number().int().describe("When, in ms since the epoch"),
  tenantId: z.number().int().nullable().describe("The tenant whose data it concerns"),
  actor: EventActorSchema.describe("Who did it"),
  resource: EventResourceSchema.optional().describe("The file or folder concerned, if any"),
  before: EventBeforeSchema.optional().describe("renamed and moved: where it was"),
  share: EventShareSchema.optional().describe("Share and link events"),
  detail: eventDetailSchema(
    "Small facts: the download kind; the lock holder and unlock reason; for admin_action its " +
      "name (action: key_issued, quota_changed, ...), request (method and path) and targets",
  ),
}).openapi("ActivityEntry", {
  description: "One entry of the activity log: a change of the drive, a read, or an admin action",
});
export type ActivityEntry = z.infer<typeof ActivityEntrySchema>;

export const ActivityPageSchema = z.object(
  pageFields(
    ActivityEntrySchema,
    "Entries, newest first",
    "Send as cursor for older entries; null: no more",
  ),
).openapi("ActivityPage", { description: "A page of the activity log" });
export type ActivityPage = z.infer<typeof ActivityPageSchema>;

// ---------------------------------------------------------------- webhooks

export const WebhookSchema = z.object({
  id: z.string().describe("The webhook's id").openapi({ example: "wh_4f9c2a7e1b3d5c60" }),
  url: z.string().describe("Where deliveries are POSTed (the only target ever reached)"),
  events: z.array(z.enum(WEBHOOK_EVENT_FILTERS)).describe(
    "The event kinds delivered (docs/changes.md); * is every kind",
  ),
  tenantId: z.number().int().nullable().describe("Only this tenant's events; null: every tenant"),
  createdAt: z.string().describe("When it was created (ISO 8601)"),
  disabledAt: z.string().nullable().describe(
    "When it was disabled (nothing is delivered), or null",
  ),
  disabledReason: z.enum(["admin", "failing"]).nullable().describe(
    "admin: by an administrator; failing: it failed every attempt of a delivery's retry window",
  ),
  failingSince: z.string().nullable().describe(
    "Since when every attempt failed; null: the last attempt succeeded (or none was made)",
  ),
}).openapi("Webhook", { description: "A webhook subscription (its secret is never shown again)" });
export type Webhook = z.infer<typeof WebhookSchema>;
export type WebhookEventFilter = Webhook["events"][number];

/** The answer to a create: the only time the signing secret is shown. */
export const CreatedWebhookSchema = WebhookSchema.extend({
  secret: z.string().describe(
    "The Standard Webhooks signing secret (whsec_...): shown only now, verify deliveries with it",
  ),
}).openapi("CreatedWebhook");
export type CreatedWebhook = z.infer<typeof CreatedWebhookSchema>;

export const CreateWebhookBody = z.object({
  url: z.string().describe("http(s) URL of the receiver; see docs/changes.md, outbound rules")
    .openapi({ example: "https://hooks.example.com/drive" }),
  events: z.array(z.enum(WEBHOOK_EVENT_FILTERS, {
    error: `each event must be * or one of ${WEBHOOK_EVENT_FILTERS.slice(1).join(", ")}`,
  })).min(1, "name at least one event kind (or *)").max(WEBHOOK_EVENT_FILTERS.length)
    .describe('Event kinds to deliver, or ["*"] for all').openapi({
      example: ["created", "content_changed", "trashed"],
    }),
  tenantId: z.number().int("must be an integer").positive("must be positive").nullish()
    .describe("Only this tenant's events; omitted or null: every tenant").openapi({ example: 1 }),
}).strict().openapi("CreateWebhookRequest", { description: "A new webhook subscription" });
export type NewWebhook = z.input<typeof CreateWebhookBody>;

export const WebhookListSchema = z.object({
  items: z.array(WebhookSchema).describe("Every webhook, oldest first"),
}).openapi("WebhookList", { description: "The webhook subscriptions" });

const WebhookAttemptSchema = z.object({
  at: z.string().describe("When the attempt began (ISO 8601)"),
  status: z.number().int().nullable().describe("The HTTP status answered; null: no answer")
    .openapi({ example: 503 }),
  error: z.string().nullable().describe(
    "Why it failed (network error, timeout, non-2xx answer); null: it succeeded",
  ).openapi({ example: "answered 503" }),
  durationMs: z.number().int().describe("How long it took"),
  response: z.string().nullable().describe(
    "The first KiB of the answer's body, as text; null: no answer or an empty one",
  ),
  nextAttemptAt: z.string().nullable().describe(
    "When the retry this failure scheduled is due; null: none (a success, or the last try)",
  ),
}).openapi("WebhookAttempt", { description: "One attempt of a delivery" });

export const WebhookDeliverySchema = z.object({
  id: z.string().describe("The delivery id; its webhook-id header is msg_<id>"),
  webhookId: z.string().describe("The webhook it goes to"),
  type: z.string().describe("The event kind, or webhook.test").openapi({ example: "created" }),
  eventId: z.string().nullable().describe("The event's position (a change-feed cursor)"),
  createdAt: z.string().describe("When it was queued (ISO 8601)"),
  status: z.enum(["pending", "delivered", "failed"]).describe(
    "pending: being tried; delivered: a 2xx answered; failed: its retry window ended",
  ),
  attempts: z.number().int().describe("Attempts made"),
  nextAttemptAt: z.string().nullable().describe("When the next attempt is due, if pending"),
  lastAttemptAt: z.string().nullable().describe("When the last attempt began"),
  lastStatus: z.number().int().nullable().describe("HTTP status of the last attempt; null: none"),
  lastError: z.string().nullable().describe("Why the last attempt failed, if it did"),
  lastDurationMs: z.number().int().nullable().describe("How long the last attempt took"),
  attemptLog: z.array(WebhookAttemptSchema).describe(
    `The attempts, newest first: the latest ${MAX_KEPT_ATTEMPTS} are kept (attempts counts them all)`,
  ),
}).openapi("WebhookDelivery", {
  description: "One event's delivery to a webhook, with its attempts",
});
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;

export const WebhookDeliveryPageSchema = z.object(
  pageFields(
    WebhookDeliverySchema,
    "Deliveries, newest first",
    "Send as cursor for older ones; null: no more",
  ),
).openapi("WebhookDeliveryPage", { description: "A page of a webhook's deliveries" });
export type WebhookDeliveryPage = z.infer<typeof WebhookDeliveryPageSchema>;
