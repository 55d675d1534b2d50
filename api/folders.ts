/** Folder endpoints: create, rename, move, delete (to trash), download token and ZIP download. */
import { createRoute, z } from "@hono/zod-openapi";
import { authorizeFolderTarget } from "../kv/authorize.ts";
import type { Deps } from "../kv/deps.ts";
import { createFolder } from "../kv/drive.ts";
import { type ApiEnv, requireWrite } from "./auth.ts";
import { ok } from "./envelope.ts";
import { bodySeq, errorResponses, jsonOk, newOpenApiApp } from "./openapi.ts";
import { NameField } from "./schemas.ts";

const CreateFolderBody = z.object({
  fn: NameField("fn"),
  pfs: bodySeq("Parent folder seq; omitted = drive root. Required when ss is sent."),
  ss: bodySeq("Sharing user's seq when creating inside a folder shared with the caller"),
}).openapi("CreateFolderRequest");

const createFolderRoute = createRoute({
  method: "post",
  path: "/folders",
  tags: ["Folders"],
  summary: "Create a folder",
  middleware: [requireWrite] as const,
  request: {
    body: { required: true, content: { "application/json": { schema: CreateFolderBody } } },
  },
  responses: {
    ...jsonOk(
      z.object({ resourceSeq: z.number().int(), resourceName: z.string() }),
      "Created",
      201,
    ),
    ...errorResponses(
      "AUTH_003",
      "RESOURCE_003",
      "RESOURCE_004",
      "RESOURCE_005",
      "RESOURCE_008",
      "RESOURCE_014",
      "PERMISSION_002",
      "PERMISSION_004",
    ),
  },
});

export function foldersApi(d: Deps) {
  const app = newOpenApiApp<ApiEnv>();

  app.openapi(createFolderRoute, async (c) => {
    const body = c.req.valid("json");
    const caller = c.get("caller");
    const target = await authorizeFolderTarget(d.kv, caller, body, "upload");
    const folder = await createFolder(d, {
      ownerSeq: target.ownerSeq,
      parentRs: target.parentRs,
      name: body.fn,
      actorSeq: caller.userSeq,
    });
    return ok(c, { resourceSeq: folder.rs, resourceName: folder.name }, 201);
  });

  return app;
}
