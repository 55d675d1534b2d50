/**
 * Admin API of webhooks (docs/changes.md "Webhooks"): create (the signing secret is shown once),
 * list, read, delete, disable and enable, send a test delivery, list deliveries and retry one.
 * The rules are kv/events/webhooks.ts's and kv/events/webhook_delivery.ts's.
 */
import { createRoute, z } from "@hono/zod-openapi";
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
  retryDelivery,
  sendTestDelivery,
  type WebhookDelivery as DeliveryRecord,
} from "../../kv/events/webhook_delivery.ts";
import { pageSizeQuery } from "../http/cursor.ts";
import { jsonBody, newOpenApiApp, queryParam } from "../http/openapi.ts";
import { adminErrors, adminJson } from "./schemas.ts";
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

const createRouteDef = createRoute({
  method: "post",
  path: "/webhooks",
  operationId: "createWebhook",
  tags: ["Webhooks"],
  summary: "Create a webhook; the answer shows its signing secret, once",
  request: { body: jsonBody(CreateWebhookBody) },
  responses: {
    201: adminJson(CreatedWebhookSchema, "The webhook, with its secret (never shown again)"),
    ...adminErrors("REQUEST_003", "REQUEST_005", "WEBHOOK_003", "TENANT_001", "WEBHOOK_005"),
  },
});

const listRoute = createRoute({
  method: "get",
  path: "/webhooks",
  operationId: "listWebhooks",
  tags: ["Webhooks"],
  summary: "List every webhook with its state (disabled ones say why)",
  responses: { 200: adminJson(WebhookListSchema, "Every webhook, oldest first"), ...adminErrors() },
});

const getRoute = createRoute({
  method: "get",
  path: "/webhooks/{id}",
  operationId: "getWebhook",
  tags: ["Webhooks"],
  summary: "Read one webhook",
  request: { params: WebhookParams },
  responses: { 200: adminJson(WebhookSchema, "The webhook"), ...adminErrors("WEBHOOK_001") },
});

const deleteRoute = createRoute({
  method: "delete",
  path: "/webhooks/{id}",
  operationId: "deleteWebhook",
  tags: ["Webhooks"],
  summary: "Delete a webhook and its deliveries (nothing more is sent to it)",
  request: { params: WebhookParams },
  responses: { 204: { description: "Deleted" }, ...adminErrors("WEBHOOK_001") },
});

const switchRoute = (action: "disable" | "enable") =>
  createRoute({
    method: "post",
    path: `/webhooks/{id}/${action}`,
    operationId: `${action}Webhook`,
    tags: ["Webhooks"],
    summary: action === "disable"
      ? "Disable a webhook: no new deliveries, pending ones fail"
      : "Enable a webhook again (its failure record is cleared)",
    request: { params: WebhookParams },
    responses: {
      200: adminJson(WebhookSchema, "The webhook as it is now"),
      ...adminErrors("WEBHOOK_001"),
    },
  });

const testRoute = createRoute({
  method: "post",
  path: "/webhooks/{id}/test",
  operationId: "testWebhook",
  tags: ["Webhooks"],
  summary: "Queue a test delivery (type webhook.test); its outcome shows in the deliveries",
  request: { params: WebhookParams },
  responses: {
    202: adminJson(WebhookDeliverySchema, "The queued delivery"),
    ...adminErrors("WEBHOOK_001", "WEBHOOK_004"),
  },
});

const deliveriesRoute = createRoute({
  method: "get",
  path: "/webhooks/{id}/deliveries",
  operationId: "listWebhookDeliveries",
  tags: ["Webhooks"],
  summary: "A webhook's deliveries, newest first, with their attempts and status codes",
  request: { params: WebhookParams, query: DeliveriesQuery },
  responses: {
    200: adminJson(WebhookDeliveryPageSchema, "A page of deliveries"),
    ...adminErrors("WEBHOOK_001"),
  },
});

const retryRoute = createRoute({
  method: "post",
  path: "/webhooks/{id}/deliveries/{deliveryId}/retry",
  operationId: "retryWebhookDelivery",
  tags: ["Webhooks"],
  summary: "Send a delivery again now, with a fresh retry window",
  request: { params: DeliveryParams },
  responses: {
    202: adminJson(WebhookDeliverySchema, "The delivery, pending again"),
    ...adminErrors("WEBHOOK_001", "WEBHOOK_002", "WEBHOOK_004"),
  },
});

/** A webhook as the API shows it. */
const webhookView = (w: StoredView): Webhook => w;

/** A delivery as the API shows it (the body it sends and the scheduling state stay inside). */
function deliveryView(x: DeliveryRecord): WebhookDelivery {
  const { payload: _p, schedule: _s, windowStart: _w, ...view } = x;
  return view;
}

export function webhooksAdminApi(d: Deps) {
  const app = newOpenApiApp();
  app.openapi(createRouteDef, async (c) => {
    const { webhook, secret } = await createWebhook(d, c.req.valid("json"));
    return c.json({ ...webhookView(webhook), secret } satisfies CreatedWebhook, 201);
  });
  app.openapi(listRoute, async (c) => {
    return c.json({ items: (await listWebhooks(d.kv)).map(webhookView) }, 200);
  });
  app.openapi(getRoute, async (c) => {
    return c.json(webhookView(await requireWebhook(d.kv, c.req.valid("param").id)), 200);
  });
  app.openapi(deleteRoute, async (c) => {
    await removeWebhook(d.kv, c.req.valid("param").id);
    return c.body(null, 204);
  });
  for (const action of ["disable", "enable"] as const) {
    app.openapi(switchRoute(action), async (c) => {
      const id = c.req.valid("param").id;
      return c.json(
        webhookView(await setWebhookDisabled(d.kv, id, action === "disable")),
        200,
      );
    });
  }
  app.openapi(testRoute, async (c) => {
    return c.json(deliveryView(await sendTestDelivery(d, c.req.valid("param").id)), 202);
  });
  app.openapi(deliveriesRoute, async (c) => {
    const { cursor, ps } = c.req.valid("query");
    const page = await listDeliveries(d, c.req.valid("param").id, { pageSize: ps, cursor });
    return c.json({ items: page.items.map(deliveryView), nextCursor: page.nextCursor }, 200);
  });
  app.openapi(retryRoute, async (c) => {
    const { id, deliveryId } = c.req.valid("param");
    return c.json(deliveryView(await retryDelivery(d, id, deliveryId)), 202);
  });
  return app;
}
