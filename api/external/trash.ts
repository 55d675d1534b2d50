/** The caller's trash: list top-level trashed items, restore one, delete one or all permanently. */
import { z } from "@hono/zod-openapi";
import type { Deps } from "../../kv/deps.ts";
import { toIso } from "../../kv/tree/resources.ts";
import { listTrash, restoreTrashed } from "../../kv/tree/trash.ts";
import { emptyTrash, purgeTrashedWithShares } from "../../kv/sharing/purge.ts";
import type { ApiEnv } from "../http/auth.ts";
import { ok } from "../http/envelope.ts";
import { jsonAnswers, newOpenApiApp } from "../http/openapi.ts";
import { changed, driveRoutes } from "../http/write_routes.ts";
import { decodeCursor, encodeCursor, pageFields, PageQuery } from "../http/cursor.ts";
import { inListingTurn } from "../http/listing_turn.ts";
import { FileRsParams, ResourceItemSchema, rsParams, toResourceItem } from "../http/schemas.ts";

const { route, write } = driveRoutes("Trash");

const TrashItemSchema = ResourceItemSchema.extend({
  trashedAt: z.string().openapi({ format: "date-time" }).describe("When it went to the trash"),
}).openapi("TrashItem");

/** Why a trashed item cannot be restored or deleted: it is not in the trash, or kept changing. */
const TRASHED_ERRORS = ["RESOURCE_012", "RESOURCE_019"] as const;

const listRoute = route("get", "/trash", "listTrash", {
  summary: "The caller's trashed items (top level: a trashed folder stands for its contents)",
  request: { query: PageQuery },
  responses: jsonAnswers(
    z.object(pageFields(TrashItemSchema, "The trashed files and folders")),
    "One page, in resourceSeq order",
    "RESOURCE_018",
  ),
});

const restoreRoute = write("post", "/trash/{resourceSeq}/restore", "restoreFromTrash", {
  summary: "Restore to the old folder (or the drive root when that is gone); taken names get (n)",
  request: { params: FileRsParams },
  responses: changed(
    ResourceItemSchema,
    "The restored resource, with its name and parent now",
    ...TRASHED_ERRORS,
    "RESOURCE_010",
  ),
});

const purgeRoute = write("delete", "/trash/{resourceSeq}", "deleteFromTrash", {
  summary: "Delete a trashed item and everything in it permanently, freeing its quota",
  request: { params: rsParams(6) },
  responses: changed(
    z.object({
      resourceSeq: z.number().int().describe("The file or folder deleted for good"),
      deletedResources: z.number().int().describe("Files and folders deleted, it included"),
      freedBytes: z.number().int().openapi({ description: "Bytes of every stored version" }),
    }),
    "Deleted",
    ...TRASHED_ERRORS,
  ),
});

const emptyRoute = write("delete", "/trash", "emptyTrash", {
  summary: "Empty the trash: delete every trashed item permanently, freeing its quota",
  description: "Each item is purged as DELETE /trash/{resourceSeq} does it (same events, " +
    "versions and blobs freed, its shares removed), in commits of bounded size; an item " +
    "restored meanwhile is kept.",
  responses: changed(
    z.object({
      purgedItems: z.number().int().describe("Top-level trash items deleted"),
      deletedResources: z.number().int().describe(
        "Files and folders deleted, their contents included",
      ),
      freedBytes: z.number().int().openapi({ description: "Bytes of every stored version" }),
    }),
    "Emptied",
  ),
});

export function trashApi(d: Deps) {
  const app = newOpenApiApp<ApiEnv>();

  app.openapi(listRoute, async (c) => {
    const q = c.req.valid("query");
    const caller = c.get("caller");
    const binding = `trash:${caller.userSeq}`;
    return await inListingTurn(d, async () => {
      const page = await listTrash(d.kv, caller.userSeq, {
        limit: q.ps,
        cursor: decodeCursor(binding, q.cursor),
      });
      return ok(c, {
        // An item restored between the index read and the record read is no longer listed.
        items: page.items.filter((r) => r.trashedAt !== null).map((r) => ({
          ...toResourceItem(r),
          trashedAt: toIso(r.trashedAt!),
        })),
        nextCursor: encodeCursor(binding, page.cursor),
      }, 200);
    });
  });

  app.openapi(restoreRoute, async (c) => {
    const { resourceSeq } = c.req.valid("param");
    const caller = c.get("caller");
    const restored = await restoreTrashed(d, {
      ownerSeq: caller.userSeq,
      rs: resourceSeq,
      actorSeq: caller.userSeq,
    });
    return ok(c, toResourceItem(restored), 200);
  });

  app.openapi(purgeRoute, async (c) => {
    const { resourceSeq } = c.req.valid("param");
    const caller = c.get("caller");
    const result = await purgeTrashedWithShares(d, { ownerSeq: caller.userSeq, rs: resourceSeq });
    return ok(c, {
      resourceSeq,
      deletedResources: result.resources,
      freedBytes: result.freedBytes,
    }, 200);
  });

  app.openapi(emptyRoute, async (c) => {
    const caller = c.get("caller");
    const done = await emptyTrash(d, { ownerSeq: caller.userSeq, actorSeq: caller.userSeq });
    return ok(c, {
      purgedItems: done.items,
      deletedResources: done.resources,
      freedBytes: done.freedBytes,
    }, 200);
  });

  return app;
}
