/**
 * Folder endpoints: create, rename, move, copy and delete (to trash). ZIP download: folder_zip.ts.
 */
import { z } from "@hono/zod-openapi";
import { authorizeFolderTarget } from "../../kv/sharing/authorize.ts";
import type { Deps } from "../../kv/deps.ts";
import { createFolder } from "../../kv/tree/folders.ts";
import { copyFolder } from "../../kv/tree/folder_copy.ts";
import { moveResource, renameResource, trashResource } from "../../kv/tree/moves.ts";
import { fail, isDriveError } from "../../kv/errors.ts";
import { type ApiEnv, authorizedResource } from "../http/auth.ts";
import { ok } from "../http/envelope.ts";
import {
  bodySeq,
  FOLDER_ACCESS_ERRORS,
  jsonBody,
  NAME_ERRORS,
  newOpenApiApp,
} from "../http/openapi.ts";
import { changed, created, driveRoutes } from "../http/write_routes.ts";
import {
  CreatedResourceSchema,
  NameField,
  ResourceItemSchema,
  RsParams,
  rsParams,
  SsQuery,
  toCreatedResource,
  toResourceItem,
  toTrashedResource,
  TrashedResourceSchema,
} from "../http/schemas.ts";

const { write } = driveRoutes("Folders");

const CreateFolderBody = z.object({
  fn: NameField("fn"),
  pfs: bodySeq("Parent folder seq; omitted = drive root. Required when ss is sent."),
  ss: bodySeq("Sharing user's seq when creating inside a folder shared with the caller"),
}).openapi("CreateFolderRequest", { description: "A new folder" });

const RenameFolderBody = z.object({
  rn: NameField("rn"),
  ss: bodySeq("Owner's user seq when the folder is shared with the caller"),
  pfs: bodySeq(
    "The folder's parent; accepted for compatibility, when given it must be that parent",
  ),
}).openapi("RenameFolderRequest", { description: "A new name for a folder" });

const MoveFolderBody = z.object({
  ts: bodySeq("Owner of the destination drive; a folder cannot change drives (RESOURCE_017)"),
  pfs: bodySeq("Destination folder; omitted = the caller's drive root"),
  ss: bodySeq("Owner's user seq when the folder is shared with the caller"),
}).openapi("MoveFolderRequest", { description: "Where to move a folder" });

const CopyFolderBody = z.object({
  ts: bodySeq("Owner of the destination drive; omitted = the owner of pfs (or the caller)"),
  pfs: bodySeq("Destination folder; omitted = the caller's drive root"),
  ss: bodySeq("Owner's user seq when the source folder is shared with the caller"),
}).openapi("CopyFolderRequest", { description: "Where to copy a folder" });

const createFolderRoute = write("post", "/folders", "createFolder", {
  summary: "Create a folder",
  request: { body: jsonBody(CreateFolderBody, true, { fn: "Drafts", pfs: 1 }) },
  responses: created(
    CreatedResourceSchema,
    "Created",
    ...NAME_ERRORS,
    "RESOURCE_005",
    "RESOURCE_008",
    "RESOURCE_014",
    "RESOURCE_010",
    "PERMISSION_002",
    "PERMISSION_004",
  ),
});

const renameFolderRoute = write("patch", "/folders/{resourceSeq}/rename", "renameFolder", {
  summary: "Rename a folder (a taken name fails; there is no collision policy for folders)",
  request: { params: RsParams, body: jsonBody(RenameFolderBody, true, { rn: "Reports 2026" }) },
  responses: changed(
    z.object({
      resourceSeq: z.number().int().describe("The file or folder's seq"),
      name: z.string().describe("The new name"),
    }),
    "Renamed",
    ...FOLDER_ACCESS_ERRORS,
    ...NAME_ERRORS,
    "RESOURCE_010",
  ),
});

const moveFolderRoute = write("post", "/folders/{resourceSeq}/move", "moveFolder", {
  summary: "Move a folder, with everything in it, to another folder of the same drive",
  request: { params: rsParams(6), body: jsonBody(MoveFolderBody, false, { pfs: 3 }) },
  responses: changed(
    ResourceItemSchema,
    "The moved folder",
    ...FOLDER_ACCESS_ERRORS,
    "RESOURCE_003",
    "RESOURCE_007",
    "RESOURCE_008",
    "RESOURCE_010",
    "RESOURCE_012",
    "RESOURCE_014",
    "RESOURCE_017",
  ),
});

const copyFolderRoute = write("post", "/folders/{resourceSeq}/copy", "copyFolder", {
  summary: "Copy a folder with everything in it (a taken name becomes 'name (n)')",
  description: "Needs view and download on the folder and upload on the destination. The " +
    "destination owner's quota is charged for every byte first (RESOURCE_015 before anything " +
    "is written). While the copy runs its folder is named 'name (copying …)'; it takes its " +
    "final name only once complete, so a copy cut off midway never looks complete.",
  request: { params: RsParams, body: jsonBody(CopyFolderBody, false, { pfs: 3 }) },
  responses: created(
    CreatedResourceSchema,
    "The new folder",
    ...FOLDER_ACCESS_ERRORS,
    "RESOURCE_007",
    "RESOURCE_008",
    "RESOURCE_010",
    "RESOURCE_012",
    "RESOURCE_014",
    "RESOURCE_015",
    "RESOURCE_021",
  ),
});

const deleteFolderRoute = write("patch", "/folders/{resourceSeq}/delete", "trashFolder", {
  summary: "Move a folder and its contents to the trash",
  request: { params: rsParams(6), query: SsQuery },
  responses: changed(
    TrashedResourceSchema,
    "The folder is in the trash",
    "RESOURCE_001",
    "RESOURCE_005",
    "RESOURCE_010",
    "PERMISSION_002",
    "PERMISSION_004",
  ),
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
      parentDepth: target.depth,
      // What authorization read: the first attempt commits on it without reading again.
      known: target.folderEntry ? { parent: target.folderEntry } : { owner: caller },
    });
    return ok(c, toCreatedResource(folder), 201);
  });

  app.openapi(renameFolderRoute, async (c) => {
    const { resourceSeq } = c.req.valid("param");
    const body = c.req.valid("json");
    const caller = c.get("caller");
    const folder = await authorizedResource(d.kv, caller, "FOLDER", resourceSeq, body.ss, "edit");
    if (body.pfs != null && body.pfs !== folder.parentRs) {
      fail("REQUEST_001", `pfs: folder ${resourceSeq} is not in folder ${body.pfs}`, "pfs");
    }
    const renamed = await renameResource(d, {
      rs: resourceSeq,
      name: body.rn,
      onConflict: "fail",
      actorSeq: caller.userSeq,
    });
    return ok(c, { resourceSeq, name: renamed.name }, 200);
  });

  app.openapi(moveFolderRoute, async (c) => {
    const { resourceSeq } = c.req.valid("param");
    const body = c.req.valid("json") ?? {};
    const caller = c.get("caller");
    const folder = await authorizedResource(d.kv, caller, "FOLDER", resourceSeq, body.ss, "edit");
    if (body.ts != null && body.ts !== folder.ownerSeq) {
      fail("RESOURCE_017", "A folder cannot move to another user's drive; copy its files", "ts");
    }
    if (body.pfs == null && folder.ownerSeq !== caller.userSeq) {
      fail("REQUEST_001", "pfs: required when moving a folder shared with the caller", "pfs");
    }
    const target = await authorizeFolderTarget(
      d.kv,
      caller,
      { pfs: body.pfs, ss: body.ts },
      "upload",
    );
    if (target.ownerSeq !== folder.ownerSeq) {
      fail("RESOURCE_017", "A folder cannot move to another user's drive; copy its files", "pfs");
    }
    const moved = await moveResource(d, {
      rs: resourceSeq,
      destParentRs: target.parentRs,
      actorSeq: caller.userSeq,
    });
    return ok(c, toResourceItem(moved), 200);
  });

  app.openapi(copyFolderRoute, async (c) => {
    const { resourceSeq } = c.req.valid("param");
    const body = c.req.valid("json") ?? {};
    const caller = c.get("caller");
    await authorizedResource(d.kv, caller, "FOLDER", resourceSeq, body.ss, "download");
    if (body.pfs == null && body.ts != null && body.ts !== caller.userSeq) {
      fail("REQUEST_001", "pfs: required when ts names another user's drive", "pfs");
    }
    const to = await authorizeFolderTarget(d.kv, caller, { pfs: body.pfs, ss: body.ts }, "upload");
    const copy = await copyFolder(d, {
      rs: resourceSeq,
      destOwnerSeq: to.ownerSeq,
      destParentRs: to.parentRs,
      actorSeq: caller.userSeq,
    });
    return ok(c, toCreatedResource(copy), 201);
  });

  app.openapi(deleteFolderRoute, async (c) => {
    const { resourceSeq } = c.req.valid("param");
    const { ss } = c.req.valid("query");
    const caller = c.get("caller");
    try {
      await authorizedResource(d.kv, caller, "FOLDER", resourceSeq, ss, "delete");
    } catch (err) {
      // The spec's code for a folder delete that finds nothing to delete.
      if (isDriveError(err, "RESOURCE_002")) fail("RESOURCE_001", err.message, "resourceSeq");
      throw err;
    }
    const trashed = await trashResource(d, {
      rs: resourceSeq,
      actorSeq: caller.userSeq,
      notFound: "RESOURCE_001",
    });
    return ok(c, toTrashedResource(trashed), 200);
  });

  return app;
}
