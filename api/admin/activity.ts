/**
 * Admin API: the activity log (GET /activity; docs/changes.md "Activity"), newest first with
 * filters and cursor paging. The listing itself is kv/events/activity.ts's.
 */
import { z } from "@hono/zod-openapi";
import type { Deps } from "../../kv/deps.ts";
import { listActivity } from "../../kv/events/activity.ts";
import { EVENT_KINDS, type EventKind } from "../../kv/events/log.ts";
import { pageSizeQuery } from "../http/cursor.ts";
import { newOpenApiApp, optionalSeq, queryParam } from "../http/openapi.ts";
import { adminAnswers, adminRoute, operation } from "./schemas/common.ts";
import { ActivityPageSchema } from "./schemas/events.ts";

const MAX_ACTIVITY_PAGE = 200;

const seqQuery = (name: string, description: string) =>
  optionalSeq(description, name).openapi({ ...queryParam(name), example: 1 });

const timeQuery = (name: string, description: string) =>
  z.string().refine((s) => !Number.isNaN(Date.parse(s)), {
    message: `${name} must be an ISO date or date-time`,
  }).transform((s) => Date.parse(s)).optional().openapi({
    ...queryParam(name),
    description,
    example: "2026-01-01T00:00:00Z",
  });

/** The query of the activity log; `actions`: every admin action name (the declarations').  */
const activityQuery = (actions: readonly string[]) =>
  z.object({
    tenantId: seqQuery("tenantId", "Only entries of this tenant"),
    userSeq: seqQuery("userSeq", "Only entries by this user or about their drive"),
    rs: seqQuery("rs", "Only entries about this resource"),
    kind: z.string().optional().refine(
      (s) => s === undefined || s.split(",").every((k) => EVENT_KINDS.includes(k as EventKind)),
      { message: `kind must be one or more (comma-separated) of ${EVENT_KINDS.join(", ")}` },
    ).openapi({
      ...queryParam("kind"),
      description: "Only these kinds, comma-separated (docs/changes.md)",
      example: "downloaded,link_opened",
    }),
    action: z.string().optional().refine(
      (s) => s === undefined || s.split(",").every((a) => actions.includes(a)),
      { message: `action must be one or more (comma-separated) of ${actions.join(", ")}` },
    ).openapi({
      ...queryParam("action"),
      description: "Only admin actions of these names, comma-separated (docs/changes.md)",
      example: "key_issued,key_revoked,quota_changed",
    }),
    from: timeQuery("from", "Only entries at or after this time"),
    to: timeQuery("to", "Only entries before this time"),
    cursor: z.string().regex(/^[0-9a-f]{24}$/, "cursor must be a nextCursor this API returned")
      .optional().openapi({
        ...queryParam("cursor"),
        description: "nextCursor of the last page",
        example: "0000018f2a3b4c5d6e7f8091",
      }),
    ps: pageSizeQuery(MAX_ACTIVITY_PAGE, 50),
  });

/** GET /activity; `actions` are the admin action names the `action` filter accepts. */
export function activityAdminApi(d: Deps, actions: readonly string[]) {
  const app = newOpenApiApp();
  const name = operation("Activity")(
    "listActivity",
    "The activity log, newest first: changes, downloads, link opens and admin actions",
  );
  const route = adminRoute("get", "/activity", name, {
    request: { query: activityQuery(actions) },
    responses: adminAnswers(
      ActivityPageSchema,
      "A page of entries (a narrow filter may give a short page: follow nextCursor)",
    ),
  });
  app.openapi(route, async (c) => {
    const q = c.req.valid("query");
    const page = await listActivity(d.kv, {
      tenantId: q.tenantId,
      userSeq: q.userSeq,
      rs: q.rs,
      kinds: q.kind?.split(",") as EventKind[] | undefined,
      actions: q.action?.split(","),
      from: q.from,
      to: q.to,
    }, { pageSize: q.ps, cursor: q.cursor });
    return c.json(page, 200);
  });
  return app;
}
