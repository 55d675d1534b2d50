/**
 * One stored version of a file: download it (the download's headers: ETag, Range, If-None-Match),
 * restore it as the new current content, or delete it. The listing of versions is
 * GET /files/{resourceSeq}/versions (files_manage.ts). The rules are kv/tree/versions.ts's.
 */
import { z } from "@hono/zod-openapi";
import { type Action, authorizeResourceAccess, type Caller } from "../../kv/sharing/authorize.ts";
import type { Deps } from "../../kv/deps.ts";
import { recordSharedOpen } from "../../kv/sharing/shared_list.ts";
import type { Resource } from "../../kv/tree/resources.ts";
import { removeVersion, requireVersion, restoreVersion } from "../../kv/tree/versions.ts";
import type { ApiEnv } from "../http/auth.ts";
import { ok } from "../http/envelope.ts";
import { sendFile } from "../http/file_response.ts";
import { recordDownload } from "../../kv/events/log.ts";
import { errorResponses, FILE_ACCESS_ERRORS, newOpenApiApp, seqParam } from "../http/openapi.ts";
import { changed, driveRoutes } from "../http/write_routes.ts";
import { ResourceItemSchema, SsQuery, toResourceItem } from "../http/schemas.ts";

const { route, write } = driveRoutes("Files");

const VersionParams = z.object({
  resourceSeq: seqParam("resourceSeq").openapi({
    description: "The file's resource seq",
    example: 2,
  }),
  version: seqParam("version").openapi({
    description: "A version number from GET /files/{resourceSeq}/versions",
    example: 1,
  }),
});

/** Every version route names the file and the version in its path, and ss in its query. */
const VERSION_PATH = "/files/{resourceSeq}/versions/{version}";
const VERSION_REQUEST = { params: VersionParams, query: SsQuery };
const COMMON = [...FILE_ACCESS_ERRORS, "VERSION_001"] as const;

const downloadRoute = route("get", `${VERSION_PATH}/download`, "downloadFileVersion", {
  summary: "Download a stored version of a file (Range, ETag/If-None-Match as a download)",
  description:
    "Needs the download permission on shared files. The ETag is the first 32 hex digits of the version's SHA-256.",
  request: VERSION_REQUEST,
  responses: {
    200: {
      description: "The version's bytes (the file's Content-Type and name, Content-Disposition)",
    },
    206: { description: "The requested byte range (Content-Range)" },
    304: { description: "If-None-Match matched the ETag" },
    ...errorResponses(...COMMON, "RESOURCE_011"),
  },
});

const RestoredSchema = z.object({
  file: ResourceItemSchema.describe("The file with its new current version"),
  restoredFrom: z.number().int().describe("The version whose content was restored").openapi({
    example: 1,
  }),
}).openapi("RestoredFileVersion", { description: "The file after a version was restored" });

const restoreRoute = write("post", `${VERSION_PATH}/restore`, "restoreFileVersion", {
  summary: "Make a stored version the file's new current content",
  description: "The content becomes a new version (every version is kept) and its bytes are " +
    "charged to the owner's quota like an upload. Refused while the document is locked. Needs " +
    "the edit permission on shared files.",
  request: VERSION_REQUEST,
  responses: changed(RestoredSchema, "Restored", ...COMMON, "RESOURCE_010", "RESOURCE_015"),
});

const DeletedSchema = z.object({
  resourceSeq: z.number().int().describe("The file's resource seq"),
  version: z.number().int().describe("The deleted version"),
  freedBytes: z.number().int().describe("Bytes freed from the owner's usage"),
}).openapi("DeletedFileVersion", { description: "The version deleted and the bytes freed" });

const deleteRoute = write("delete", VERSION_PATH, "deleteFileVersion", {
  summary: "Delete a stored version of a file, freeing its bytes and usage",
  description: "The current version cannot be deleted (VERSION_002). Needs the edit " +
    "permission on shared files.",
  request: VERSION_REQUEST,
  responses: changed(DeletedSchema, "Deleted", ...COMMON, "VERSION_002"),
});

function authorizedFile(
  d: Deps,
  caller: Caller,
  rs: number,
  ss: number | null | undefined,
  action: Action,
) {
  return authorizeResourceAccess(d.kv, caller, { rs, ss, type: "FILE" }, action);
}

export function fileVersionsApi(d: Deps) {
  const app = newOpenApiApp<ApiEnv>();

  app.openapi(downloadRoute, async (c) => {
    const { resourceSeq, version } = c.req.valid("param");
    const { ss } = c.req.valid("query");
    const caller = c.get("caller");
    const access = await authorizedFile(d, caller, resourceSeq, ss, "download");
    const v = await requireVersion(d.kv, resourceSeq, version);
    if (!access.isOwner) await recordSharedOpen(d.kv, caller.userSeq, access.path);
    await recordDownload(d.kv, access.resource, "version", caller.userSeq);
    const asStored: Resource = {
      ...access.resource,
      blobId: v.blobId,
      size: v.size,
      sha256: v.sha256,
      updatedAt: v.createdAt,
    };
    return sendFile(c, d, asStored, {
      disposition: "attachment",
      // Deleted or purged since it was read: VERSION_001. Still stored without its bytes: a
      // real fault, answered as such.
      blobGone: async (err) => {
        await requireVersion(d.kv, resourceSeq, version);
        throw err;
      },
    });
  });

  app.openapi(restoreRoute, async (c) => {
    const { resourceSeq, version } = c.req.valid("param");
    const { ss } = c.req.valid("query");
    const caller = c.get("caller");
    await authorizedFile(d, caller, resourceSeq, ss, "edit");
    const { file, restoredFrom } = await restoreVersion(d, {
      rs: resourceSeq,
      version,
      actorSeq: caller.userSeq,
    });
    return ok(c, { file: toResourceItem(file), restoredFrom: restoredFrom.version }, 200);
  });

  app.openapi(deleteRoute, async (c) => {
    const { resourceSeq, version } = c.req.valid("param");
    const { ss } = c.req.valid("query");
    const caller = c.get("caller");
    await authorizedFile(d, caller, resourceSeq, ss, "edit");
    const removed = await removeVersion(d, {
      rs: resourceSeq,
      version,
      actorSeq: caller.userSeq,
    });
    return ok(c, { resourceSeq, version, freedBytes: removed.size }, 200);
  });

  return app;
}
