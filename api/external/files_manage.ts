/** File endpoints that change the tree or list metadata: rename, move, copy, delete, versions. */
import { z } from "@hono/zod-openapi";
import { authorizeFolderTarget, type Caller } from "../../kv/sharing/authorize.ts";
import type { Deps } from "../../kv/deps.ts";
import { copyFile } from "../../kv/tree/content.ts";
import { moveFileToDrive, renameResource, trashResource } from "../../kv/tree/moves.ts";
import { fail } from "../../kv/errors.ts";
import { listVersions } from "../../kv/tree/content_versions.ts";
import { toIso } from "../../kv/tree/resources.ts";
import { userDirectory } from "../../kv/identity/user_search.ts";
import { type ApiEnv, authorizedResource } from "../http/auth.ts";
import { ok } from "../http/envelope.ts";
import {
  bodySeq,
  FILE_ACCESS_ERRORS,
  jsonAnswers,
  jsonBody,
  NAME_ERRORS,
  newOpenApiApp,
} from "../http/openapi.ts";
import { changed, created, driveRoutes } from "../http/write_routes.ts";
import {
  CreatedResourceSchema,
  FileRsParams,
  itemsOf,
  NameField,
  ResourceItemSchema,
  SsQuery,
  toCreatedResource,
  toResourceItem,
  toTrashedResource,
  TrashedResourceSchema,
} from "../http/schemas.ts";

const { route, write } = driveRoutes("Files");

const RenameBody = z.object({
  rn: NameField("rn"),
  ncp: z.enum(["NONE", "AUTO"], { error: "ncp must be NONE or AUTO" }).optional().openapi({
    description: "NONE (default): a taken name fails with RESOURCE_003; AUTO: 'name (n).ext'",
  }),
  pfs: bodySeq("The file's folder; when given (and ncp is not AUTO) it must be that folder"),
  ss: bodySeq("Owner's user seq when the file is shared with the caller"),
}).openapi("RenameFileRequest", { description: "A new name for a file" });

const TargetBody = z.object({
  ts: bodySeq("Owner of the destination drive; omitted = the owner of pfs (or the caller)"),
  pfs: bodySeq("Destination folder; omitted = the caller's drive root"),
  ss: bodySeq("Owner's user seq when the source file is shared with the caller"),
}).openapi("FileTargetRequest", { description: "Where to move or copy a file" });

const VersionSchema = z.object({
  version: z.number().int().describe("The content version"),
  size: z.number().int().describe("Bytes of the current content; 0 for folders"),
  sha256: z.string().describe("SHA-256 of the content, hex"),
  createdAt: z.string().openapi({ format: "date-time" }).describe("Created, ISO 8601"),
  createdBy: z.number().int().describe("Who stored it (user seq)"),
  createdByName: z.string().nullable().describe(
    "Their display name (the versions panel shows who); null when the account is gone",
  ),
  reason: z.string().openapi({ description: "upload, version, overwrite, copy, template, ..." }),
  current: z.boolean().describe("Whether it is the current content"),
}).openapi("FileVersion", { description: "A stored version of a file" });

const renameRoute = write("patch", "/files/{resourceSeq}/rename", "renameFile", {
  summary: "Rename a file",
  request: {
    params: FileRsParams,
    body: jsonBody(RenameBody, true, { rn: "Q1 report final.docx" }),
  },
  responses: changed(
    z.object({ name: z.string().describe("The name") }),
    "The name actually applied",
    ...FILE_ACCESS_ERRORS,
    ...NAME_ERRORS,
    "RESOURCE_010",
  ),
});

const moveRoute = write("post", "/files/{resourceSeq}/move", "moveFile", {
  summary: "Move a file to a folder of the same or (with upload permission) another drive",
  request: { params: FileRsParams, body: jsonBody(TargetBody, false, { pfs: 3 }) },
  responses: changed(
    ResourceItemSchema,
    "The moved file",
    ...FILE_ACCESS_ERRORS,
    "RESOURCE_003",
    "RESOURCE_005",
    "RESOURCE_008",
    "RESOURCE_010",
    "RESOURCE_015",
  ),
});

const copyRoute = write("post", "/files/{resourceSeq}/copy", "copyFile", {
  summary: "Copy a file (a taken name becomes 'name (n).ext')",
  request: { params: FileRsParams, body: jsonBody(TargetBody, false, { pfs: 1 }) },
  responses: created(
    CreatedResourceSchema,
    "The new file",
    ...FILE_ACCESS_ERRORS,
    "RESOURCE_005",
    "RESOURCE_008",
    "RESOURCE_010",
    "RESOURCE_015",
  ),
});

const deleteRoute = write("patch", "/files/{resourceSeq}/delete", "trashFile", {
  summary: "Move a file to the trash",
  request: { params: FileRsParams, query: SsQuery },
  responses: changed(
    TrashedResourceSchema,
    "The file is in the trash",
    ...FILE_ACCESS_ERRORS,
    "RESOURCE_010",
  ),
});

const versionsRoute = route("get", "/files/{resourceSeq}/versions", "listFileVersions", {
  summary: "The stored content versions of a file, oldest first",
  request: { params: FileRsParams, query: SsQuery },
  responses: jsonAnswers(
    itemsOf(VersionSchema),
    "Versions",
    ...FILE_ACCESS_ERRORS,
  ),
});

/**
 * The input of a move (`action` edit) or copy (download) of file `rs`, once the caller may do
 * that to the file: it goes to folder `pfs` of drive `ts` (upload permission), or to the caller's
 * drive root.
 */
async function transferInput(
  d: Deps,
  caller: Caller,
  rs: number,
  body: z.infer<typeof TargetBody>,
  action: "edit" | "download",
) {
  await authorizedResource(d.kv, caller, "FILE", rs, body.ss, action);
  if (body.pfs == null && body.ts != null && body.ts !== caller.userSeq) {
    fail("REQUEST_001", "pfs: required when ts names another user's drive", "pfs");
  }
  const to = await authorizeFolderTarget(d.kv, caller, { pfs: body.pfs, ss: body.ts }, "upload");
  return { rs, destOwnerSeq: to.ownerSeq, destParentRs: to.parentRs, actorSeq: caller.userSeq };
}

export function filesManageApi(d: Deps) {
  const app = newOpenApiApp<ApiEnv>();

  app.openapi(renameRoute, async (c) => {
    const { resourceSeq } = c.req.valid("param");
    const body = c.req.valid("json");
    const caller = c.get("caller");
    const file = await authorizedResource(d.kv, caller, "FILE", resourceSeq, body.ss, "edit");
    const auto = body.ncp === "AUTO";
    if (!auto && body.pfs != null && body.pfs !== file.parentRs) {
      fail("REQUEST_001", `pfs: file ${resourceSeq} is not in folder ${body.pfs}`, "pfs");
    }
    const renamed = await renameResource(d, {
      rs: resourceSeq,
      name: body.rn,
      onConflict: auto ? "rename" : "fail",
      actorSeq: caller.userSeq,
    });
    return ok(c, { name: renamed.name }, 200);
  });

  app.openapi(moveRoute, async (c) => {
    const { resourceSeq } = c.req.valid("param");
    const input = await transferInput(d, c.get("caller"), resourceSeq, c.req.valid("json"), "edit");
    return ok(c, toResourceItem(await moveFileToDrive(d, input)), 200);
  });

  app.openapi(copyRoute, async (c) => {
    const { resourceSeq } = c.req.valid("param");
    const body = c.req.valid("json");
    const input = await transferInput(d, c.get("caller"), resourceSeq, body, "download");
    return ok(c, toCreatedResource(await copyFile(d, input)), 201);
  });

  app.openapi(deleteRoute, async (c) => {
    const { resourceSeq } = c.req.valid("param");
    const { ss } = c.req.valid("query");
    const caller = c.get("caller");
    await authorizedResource(d.kv, caller, "FILE", resourceSeq, ss, "delete");
    const trashed = await trashResource(d, { rs: resourceSeq, actorSeq: caller.userSeq });
    return ok(c, toTrashedResource(trashed), 200);
  });

  app.openapi(versionsRoute, async (c) => {
    const { resourceSeq } = c.req.valid("param");
    const { ss } = c.req.valid("query");
    const file = await authorizedResource(d.kv, c.get("caller"), "FILE", resourceSeq, ss, "view");
    const dir = userDirectory(d.kv);
    const items = await Promise.all((await listVersions(d.kv, resourceSeq)).map(async (v) => ({
      version: v.version,
      size: v.size,
      sha256: v.sha256,
      createdAt: toIso(v.createdAt),
      createdBy: v.createdBy,
      createdByName: (await dir.user(v.createdBy))?.name ?? null,
      reason: v.reason,
      current: v.version === file.version,
    })));
    return ok(c, { items }, 200);
  });

  return app;
}
