/**
 * Admin API of webhooks (docs/changes.md "Webhooks"): create (the signing secret is shown once),
 * list, read, delete, disable and enable, send a test delivery, list deliveries and retry one.
 * The rules are kv/events/webhooks.ts's and kv/events/webhook_delivery.ts's.
 */
import { z } from "@hono/zod-openapi";
import type { Deps } from "../../kv/deps.ts";
import {
  createWebhook,
  listWebhooks,
  requireWebhook,
  setWebhookDisabled,
  type Webhook as StoredView,
  WEBHOOK_ID_PATTERN,
} from "../../kv/events/webhooks.ts";
import {
  DELIVERY_ID_PATTERN,
  listDeliveries,
  removeWebhook,
  requireDelivery,
  retryDelivery,
  sendTestDelivery,
  type WebhookDelivery as DeliveryRecord,
} from "../../kv/events/webhook_delivery.ts";
import { attemptsOf, MAX_KEPT_ATTEMPTS } from "../../kv/events/webhook_attempts.ts";
import { pageSizeQuery } from "../http/cursor.ts";
import { newOpenApiApp, queryParam } from "../http/openapi.ts";
import {
  adminAnswers,
  adminErrors,
  adminJson,
  adminRoute,
  BODY_ERRORS,
  creationRoute,
  operation,
  serveDelete,
  serveSwitches,
} from "./schemas/common.ts";
import {
  type CreatedWebhook,
  CreatedWebhookSchema,
  CreateWebhookBody,
  type Webhook,
  type WebhookDelivery,
  WebhookDeliveryPageSchema,
  WebhookDeliverySchema,
  WebhookListSchema,
  WebhookSchema,
} from "./schemas/events.ts";

const MAX_DELIVERY_PAGE = 100;

const WebhookParams = z.object({
  id: z.string().regex(WEBHOOK_ID_PATTERN, "id must be wh_ and 16 hex digits")
    .describe("The webhook id").openapi({
      param: { name: "id", in: "path" },
      example: "wh_4f9c2a7e1b3d5c60",
    }),
});

const DeliveryParams = WebhookParams.extend({
  deliveryId: z.string().regex(DELIVERY_ID_PATTERN, "deliveryId must be 36 hex digits")
    .describe("The delivery id (its webhook-id header without msg_)").openapi({
      param: { name: "deliveryId", in: "path" },
      example: "0196a3c2f1e800000000000000a1b2c30000",
    }),
});

const DeliveriesQuery = z.object({
  cursor: z.string().regex(DELIVERY_ID_PATTERN, "cursor must be a nextCursor this API returned")
    .optional().openapi({
      ...queryParam("cursor"),
      description: "nextCursor of the last page",
      example: "0000018f2a3b4c5d6e7f80910000018f2a3b",
    }),
  ps: pageSizeQuery(MAX_DELIVERY_PAGE, 20),
});

const hookOp = operation("Webhooks");
const ON_WEBHOOK = { targets: { id: "webhookId" } } as const;

const SWITCH_SUMMARY = {
  disable: "Disable a webhook: no new deliveries, pending ones fail",
  enable: "Enable a webhook again (its failure record is cleared)",
} as const;

/** A webhook as the API shows it. */
const webhookView = (w: StoredView): Webhook => w;

/** A delivery as the API shows it (the body it sends and the scheduling state stay inside). */
function deliveryView(x: DeliveryRecord): WebhookDelivery {
  const { payload: _p, schedule: _s, windowStart: _w, attemptLog: _a, ...view } = x;
  return { ...view, attemptLog: attemptsOf(x) };
}

export function webhooksAdminApi(d: Deps) {
  const app = newOpenApiApp();
  app.openapi(
    creationRoute(
      "/webhooks",
      hookOp("createWebhook", "Create a webhook; the answer shows its signing secret, once", {
        action: "webhook_created",
        created: { id: "webhookId", tenantId: "tenantId" },
      }),
      CreateWebhookBody,
      {
        record: CreatedWebhookSchema,
        description: "The webhook, with its secret (never shown again)",
      },
      ...BODY_ERRORS,
      "WEBHOOK_003",
      "TENANT_001",
      "WEBHOOK_005",
    ),
    async (c) => {
      const { webhook, secret } = await createWebhook(d, c.req.valid("json"));
      return c.json({ ...webhookView(webhook), secret } satisfies CreatedWebhook, 201);
    },
  );
  app.openapi(
    adminRoute(
      "get",
      "/webhooks",
      hookOp("listWebhooks", "List every webhook with its state (disabled ones say why)"),
      {
        responses: adminAnswers(WebhookListSchema, "Every webhook, oldest first"),
      },
    ),
    async (c) => {
      return c.json({ items: (await listWebhooks(d.kv)).map(webhookView) }, 200);
    },
  );
  app.openapi(
    adminRoute("get", "/webhooks/{id}", hookOp("getWebhook", "Read one webhook"), {
      request: { params: WebhookParams },
      responses: adminAnswers(WebhookSchema, "The webhook", "WEBHOOK_001"),
    }),
    async (c) => {
      return c.json(webhookView(await requireWebhook(d.kv, c.req.valid("param").id)), 200);
    },
  );
  serveDelete(app, {
    path: "/webhooks/{id}",
    name: hookOp(
      "deleteWebhook",
      "Delete a webhook and its deliveries (nothing more is sent to it)",
      {
        action: "webhook_deleted",
        ...ON_WEBHOOK,
      },
    ),
    params: WebhookParams,
    done: "Deleted",
    missing: "WEBHOOK_001",
  }, ({ id }) => removeWebhook(d.kv, id));
  serveSwitches(app, {
    path: "/webhooks/{id}",
    name: (action) =>
      hookOp(`${action}Webhook`, SWITCH_SUMMARY[action], {
        action: `webhook_${action}d`,
        ...ON_WEBHOOK,
      }),
    params: WebhookParams,
    schema: WebhookSchema,
    description: "The webhook as it is now",
    missing: "WEBHOOK_001",
  }, async ({ id }, disabled) => webhookView(await setWebhookDisabled(d.kv, id, disabled)));
  app.openapi(
    adminRoute(
      "post",
      "/webhooks/{id}/test",
      hookOp(
        "testWebhook",
        "Queue a test delivery (type webhook.test); its outcome shows in the deliveries",
        { action: "webhook_tested", ...ON_WEBHOOK },
      ),
      {
        request: { params: WebhookParams },
        responses: {
          202: adminJson(WebhookDeliverySchema, "The queued delivery"),
          ...adminErrors("WEBHOOK_001", "WEBHOOK_004"),
        },
      },
    ),
    async (c) => {
      return c.json(deliveryView(await sendTestDelivery(d, c.req.valid("param").id)), 202);
    },
  );
  app.openapi(
    adminRoute(
      "get",
      "/webhooks/{id}/deliveries",
      hookOp(
        "listWebhookDeliveries",
        "A webhook's deliveries, newest first, with their attempts and status codes",
      ),
      {
        request: { params: WebhookParams, query: DeliveriesQuery },
        responses: adminAnswers(WebhookDeliveryPageSchema, "A page of deliveries", "WEBHOOK_001"),
      },
    ),
    async (c) => {
      const { cursor, ps } = c.req.valid("query");
      const page = await listDeliveries(d, c.req.valid("param").id, { pageSize: ps, cursor });
      return c.json({ items: page.items.map(deliveryView), nextCursor: page.nextCursor }, 200);
    },
  );
  app.openapi(
    adminRoute(
      "get",
      "/webhooks/{id}/deliveries/{deliveryId}",
      hookOp(
        "getWebhookDelivery",
        `One delivery with its attempts (the latest ${MAX_KEPT_ATTEMPTS}, newest first)`,
      ),
      {
        request: { params: DeliveryParams },
        responses: adminAnswers(
          WebhookDeliverySchema,
          "The delivery",
          "WEBHOOK_001",
          "WEBHOOK_002",
        ),
      },
    ),
    async (c) => {
      const { id, deliveryId } = c.req.valid("param");
      return c.json(deliveryView(await requireDelivery(d, id, deliveryId)), 200);
    },
  );
  app.openapi(
    adminRoute(
      "post",
      "/webhooks/{id}/deliveries/{deliveryId}/retry",
      hookOp("retryWebhookDelivery", "Send a delivery again now, with a fresh retry window", {
        action: "webhook_delivery_retried",
        ...ON_WEBHOOK,
      }),
      {
        request: { params: DeliveryParams },
        responses: {
          202: adminJson(WebhookDeliverySchema, "The delivery, pending again"),
          ...adminErrors("WEBHOOK_001", "WEBHOOK_002", "WEBHOOK_004"),
        },
      },
    ),
    async (c) => {
      const { id, deliveryId } = c.req.valid("param");
      return c.json(deliveryView(await retryDelivery(d, id, deliveryId)), 202);
    },
  );
  return app;
}
