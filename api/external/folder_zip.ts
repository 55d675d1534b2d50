/**
 * Folder ZIP download: a short-lived token, then the archive itself (public, token only). The
 * tree is walked first (metadata only, bounded: kv/tree/zip_entries.ts) so the response carries
 * an exact Content-Length and a too-large folder is refused before any byte is sent; then
 * api/http/zip_stream.ts streams it with a bounded look-ahead.
 */
import { z } from "@hono/zod-openapi";
import { recordDownload } from "../../kv/events/log.ts";
import { authorizeResourceAccess } from "../../kv/sharing/authorize.ts";
import type { Deps } from "../../kv/deps.ts";
import { redeemDownloadToken } from "../../kv/tree/download_tokens.ts";
import { collectFolderEntries } from "../../kv/tree/zip_entries.ts";
import type { ApiEnv } from "../http/auth.ts";
import {
  DownloadTokenQuery,
  downloadTokenRoute,
  issueDownloadLink,
  tokenHook,
} from "../http/download_link.ts";
import { ok } from "../http/envelope.ts";
import { RsParams } from "../http/schemas.ts";
import { errorResponses, FOLDER_ACCESS_ERRORS, newOpenApiApp, tagRoutes } from "../http/openapi.ts";
import { zipResponse } from "../http/zip_stream.ts";
// The look-ahead's bounds, named here for the tests and benchmarks of the folder ZIP.
export { LOOKAHEAD_ENTRIES, PREFETCH_FILE_BYTES, PREFETCH_READS } from "../http/zip_stream.ts";

const route = tagRoutes("Folders");

const tokenRoute = downloadTokenRoute(
  "folder",
  RsParams,
  "Issue a short-lived link that downloads the folder as a ZIP (no Authorization)",
);

const zipRoute = route("get", "/folders/download", "downloadFolderZip", {
  summary: "Download a folder as a ZIP with a token from /folders/{resourceSeq}/download-token",
  security: [],
  request: { query: DownloadTokenQuery },
  responses: {
    200: {
      description: "application/zip (UTF-8 names, folder entries, ZIP64 when needed), " +
        "Content-Disposition attachment, exact Content-Length",
      content: {
        "application/zip": { schema: z.string().openapi({ format: "binary" }) },
      },
    },
    ...errorResponses(...FOLDER_ACCESS_ERRORS, "RESOURCE_009", "RESOURCE_020"),
  },
});

export function folderZipApi(d: Deps) {
  const app = newOpenApiApp<ApiEnv>();

  app.openapi(tokenRoute, async (c) => {
    const { resourceSeq } = c.req.valid("param");
    const { ss } = c.req.valid("query");
    const caller = c.get("caller");
    await authorizeResourceAccess(
      d.kv,
      caller,
      { rs: resourceSeq, ss, type: "FOLDER" },
      "download",
    );
    return ok(c, await issueDownloadLink(d.kv, "folder", resourceSeq, caller, ss), 200);
  });

  // Public (PUBLIC_PATHS in api/external/index.ts): the token stands for its issuer, whose
  // access is checked again now.
  app.openapi(zipRoute, async (c) => {
    const record = await redeemDownloadToken(d.kv, c.req.valid("query").dt, "folder");
    const { resource: folder } = await authorizeResourceAccess(d.kv, record.caller, {
      rs: record.rs,
      ss: record.ss,
      type: "FOLDER",
    }, "download");
    await recordDownload(d.kv, folder, "zip", record.caller.userSeq);
    return zipResponse(d, await collectFolderEntries(d.kv, folder), `${folder.name}.zip`);
  }, tokenHook);

  return app;
}
