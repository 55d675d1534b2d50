/**
 * The change feed (/changes; docs/changes.md): the current cursor, the changes after a cursor,
 * and a long-poll that answers as soon as one commits on any process. Reading needs api:read
 * only. The rules (what a caller sees, cursor order, retention) are kv/views/feed.ts's.
 */
import { z } from "@hono/zod-openapi";
import type { Deps } from "../../kv/deps.ts";
import { type Change, currentCursor, readChanges, waitForChanges } from "../../kv/views/feed.ts";
import { decodeCursor } from "../../kv/events/positions.ts";
import type { ApiEnv } from "../http/auth.ts";
import { pageSizeQuery } from "../http/cursor.ts";
import { ok } from "../http/envelope.ts";
import {
  EventActorSchema,
  EventBeforeSchema,
  eventDetailSchema,
  EventResourceSchema,
  EventShareSchema,
} from "../http/event_schemas.ts";
import { jsonAnswers, newOpenApiApp, queryParam, tagRoutes } from "../http/openapi.ts";

const MAX_CHANGES_PAGE = 1000;
const MAX_WAIT_SECONDS = 60;

const route = tagRoutes("Changes");
const CURSOR_EXAMPLE = "000000000000002a0000ffff";

const CursorQuery = z.string({ error: "cursor is required" }).openapi({
  ...queryParam("cursor"),
  description: "A cursor from GET /changes/cursor or the data.cursor of a previous page",
  example: CURSOR_EXAMPLE,
});

/** ?ps= of GET /changes. */
const PageSize = {
  ps: pageSizeQuery(
    MAX_CHANGES_PAGE,
    100,
    `Most changes in one page, 1 to ${MAX_CHANGES_PAGE} (default 100)`,
  ),
};

/** ?timeout= of GET /changes/wait. */
const Timeout = {
  timeout: z.coerce.number({ error: `timeout must be 1 to ${MAX_WAIT_SECONDS} seconds` })
    .int(`timeout must be whole seconds, 1 to ${MAX_WAIT_SECONDS}`)
    .min(1, "timeout must be at least 1 second")
    .max(MAX_WAIT_SECONDS, `timeout must be at most ${MAX_WAIT_SECONDS} seconds`).default(30)
    .openapi({
      ...queryParam("timeout"),
      description: `Seconds to wait for a change, 1 to ${MAX_WAIT_SECONDS} (default 30)`,
      example: 30,
    }),
};

const ResourceRefSchema = EventResourceSchema.openapi("ChangeResource");

const ActorSchema = EventActorSchema.openapi("ChangeActor");

const ChangeSchema = z.object({
  kind: z.string().describe(
    "What happened: created, copied, content_changed, renamed, moved, trashed, restored, " +
      "purged, locked, unlocked, share_created, share_changed, share_removed, " +
      "recipients_changed, link_created, link_removed, link_joined, link_visitors_removed, " +
      "pin_added, pin_removed, access_gained, access_lost (docs/changes.md). A recipient sees " +
      "share_changed and recipients_changed of a share they keep, access_gained when added or " +
      "when a link they open joins their shared-with-me list, access_lost when removed",
  ).openapi({ example: "renamed" }),
  at: z.number().int().describe("When, in ms since the epoch (order by the feed, not by this)"),
  cursor: z.string().describe("The position right after this change"),
  actor: ActorSchema.describe("Who made the change"),
  resource: ResourceRefSchema.optional().describe("The file or folder concerned"),
  before: EventBeforeSchema.optional().describe("renamed and moved: where it was"),
  share: EventShareSchema.optional().describe("Share, link and access events: the share"),
  detail: eventDetailSchema(
    "Lock events: source and holder (unlocked: reason released, admin, adapter_removed or " +
      "expired; releasedBy); pin events: the pin",
  ),
}).openapi("Change", { description: "One change of the drive: what happened, to what, by whom" });

const cursorRoute = route("get", "/changes/cursor", "getChangesCursor", {
  summary: "The current position of the change feed: changes committed later come after it",
  responses: jsonAnswers(
    z.object({
      cursor: z.string().describe("Pass it to GET /changes or /changes/wait").openapi({
        example: CURSOR_EXAMPLE,
      }),
    }),
    "The cursor",
  ),
});

/**
 * The declaration of a read of the feed after `?cursor=` (and the fields of `query`): `data`
 * answers it, CHANGES_001 refuses a cursor older than the feed keeps.
 */
const afterCursorRoute = <P extends string, Q extends z.ZodRawShape, T extends z.ZodTypeAny>(
  path: P,
  operationId: string,
  read: { summary: string; query: Q; data: T; description: string },
) =>
  route("get", path, operationId, {
    summary: read.summary,
    request: { query: z.object({ cursor: CursorQuery, ...read.query }) },
    responses: jsonAnswers(read.data, read.description, "CHANGES_001"),
  });

const changesRoute = afterCursorRoute("/changes", "listChanges", {
  summary: "Changes after a cursor that concern the caller, in commit order",
  query: PageSize,
  data: z.object({
    items: z.array(ChangeSchema).describe("The changes, oldest first"),
    cursor: z.string().describe("Resume point: send it as cursor for the next page"),
    hasMore: z.boolean().describe("Whether more entries follow right now (ask again)"),
  }),
  description: "A page of changes",
});

const waitRoute = afterCursorRoute("/changes/wait", "waitForChanges", {
  summary: "Long-poll: answers as soon as a change after the cursor concerns the caller",
  query: Timeout,
  data: z.object({
    changes: z.boolean().describe(
      "true: GET /changes with the same cursor has something; false: the timeout passed",
    ),
  }),
  description: "Whether changes are waiting",
});

export function changesApi(d: Deps) {
  const app = newOpenApiApp<ApiEnv>();

  app.openapi(cursorRoute, async (c) => {
    return ok(c, { cursor: await currentCursor(d.kv) });
  });

  app.openapi(changesRoute, async (c) => {
    const q = c.req.valid("query");
    const page = await readChanges(d.kv, c.get("caller"), decodeCursor(q.cursor), q.ps);
    return ok(c, { ...page, items: page.items.map(changeView) });
  });

  app.openapi(waitRoute, async (c) => {
    const q = c.req.valid("query");
    const changes = await waitForChanges(
      d.kv,
      d.events,
      c.get("caller"),
      decodeCursor(q.cursor),
      q.timeout * 1000,
      c.req.raw.signal,
    );
    return ok(c, { changes });
  });

  return app;
}

/** The wire shape of a change (the stored event's fields, typed for the schema). */
function changeView(ch: Change): z.infer<typeof ChangeSchema> {
  return ch;
}
