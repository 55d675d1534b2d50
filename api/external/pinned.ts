/**
 * Pinned folders (/pinned-folders). Changing the pinned list is not a write operation in the
 * spec's sense: a key with only api:read may pin and unpin.
 */
import { z } from "@hono/zod-openapi";
import type { Deps } from "../../kv/deps.ts";
import { addPin, listPins, type Pin, removePin } from "../../kv/sharing/pins.ts";
import { toIso } from "../../kv/tree/resources.ts";
import type { ApiEnv } from "../http/auth.ts";
import { ok } from "../http/envelope.ts";
import { itemsOf } from "../http/schemas.ts";
import {
  bodySeq,
  createdAnswers,
  jsonAnswers,
  jsonBody,
  newOpenApiApp,
  seqParam,
  tagRoutes,
} from "../http/openapi.ts";

const PinnedFolderSchema = z.object({
  pinnedFolderSeq: z.number().int().describe("The pin's seq"),
  resourceSeq: z.number().int().describe("The pinned folder"),
  sharedByUserSeq: z.number().int().openapi({
    description: "Owner of the folder; the caller's own seq for an own folder",
  }),
  resourceName: z.string().describe("Its name"),
  resourceType: z.literal("FOLDER").describe("Always FOLDER"),
  pinnedAt: z.string().describe("When it was pinned, ISO 8601"),
}).openapi("PinnedFolder", { description: "A folder the caller pinned" });

function pinView(p: Pin) {
  return {
    pinnedFolderSeq: p.pinnedFolderSeq,
    resourceSeq: p.rs,
    sharedByUserSeq: p.ownerSeq,
    resourceName: p.resourceName,
    resourceType: "FOLDER" as const,
    pinnedAt: toIso(p.pinnedAt),
  };
}

const PinFolderBody = z.object({
  // The checks carry their own messages: zod would report any of them with the schema's error.
  rs: z.number({ error: "rs is required and must be a folder seq" })
    .int("must be an integer folder seq").positive("must be a positive folder seq")
    .describe("The folder to pin").openapi({ example: 12 }),
  ss: bodySeq("Folder owner's user seq; required for a folder shared with the caller"),
}).openapi("PinFolderRequest", { description: "A folder to pin" });

const route = tagRoutes("Pinned folders");

const listRoute = route("get", "/pinned-folders", "listPinnedFolders", {
  summary: "The caller's pinned folders, in pin order",
  responses: jsonAnswers(
    itemsOf(PinnedFolderSchema),
    "Pins",
  ),
});

const addRoute = route("post", "/pinned-folders", "pinFolder", {
  summary: "Pin a folder (own, or shared with the caller: send ss)",
  request: { body: jsonBody(PinFolderBody, true, { rs: 4, ss: 2 }) },
  responses: createdAnswers(
    PinnedFolderSchema,
    "Pinned",
    "RESOURCE_002",
    "RESOURCE_005",
    "PERMISSION_001",
    "PERMISSION_002",
    "PINNED_FOLDER_002",
    "PINNED_FOLDER_003",
  ),
});

const removeRoute = route("delete", "/pinned-folders/{pinnedFolderSeq}", "unpinFolder", {
  summary: "Remove one of the caller's pins",
  request: { params: z.object({ pinnedFolderSeq: seqParam("pinnedFolderSeq") }) },
  responses: jsonAnswers(
    z.object({ pinnedFolderSeq: z.number().int().describe("The pin's seq") }),
    "Removed",
    "PINNED_FOLDER_001",
  ),
});

export function pinnedApi(d: Deps) {
  const app = newOpenApiApp<ApiEnv>();

  app.openapi(listRoute, async (c) => {
    const pins = await listPins(d.kv, c.get("caller"));
    return ok(c, { items: pins.map(pinView) });
  });

  app.openapi(addRoute, async (c) => {
    const body = c.req.valid("json");
    const pin = await addPin(d.kv, c.get("caller"), body.rs, body.ss);
    return ok(c, pinView(pin), 201);
  });

  app.openapi(removeRoute, async (c) => {
    const { pinnedFolderSeq } = c.req.valid("param");
    await removePin(d.kv, c.get("caller"), pinnedFolderSeq);
    return ok(c, { pinnedFolderSeq });
  });

  return app;
}
