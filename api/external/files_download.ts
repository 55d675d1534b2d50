/**
 * Reading files: download (attachment), the two-request download-token flow, and view (a safe
 * inline rendition). All stream from the blob store through sendFile.
 */
import { authorizeResourceAccess, type Caller } from "../../kv/sharing/authorize.ts";
import type { Deps } from "../../kv/deps.ts";
import { redeemDownloadToken } from "../../kv/tree/download_tokens.ts";
import type { ErrorCode } from "../../kv/errors.ts";
import type { Resource } from "../../kv/tree/resources.ts";
import { recordSharedOpen } from "../../kv/sharing/shared_list.ts";
import type { ApiEnv } from "../http/auth.ts";
import {
  DownloadTokenQuery,
  downloadTokenRoute,
  issueDownloadLink,
  tokenHook,
} from "../http/download_link.ts";
import { ok } from "../http/envelope.ts";
import { recordDownload } from "../../kv/events/log.ts";
import { type FileResponseOptions, sendFile } from "../http/file_response.ts";
import {
  errorResponses,
  FILE_ACCESS_ERRORS,
  fileBytes,
  newOpenApiApp,
  tagRoutes,
} from "../http/openapi.ts";
import { FileRsParams, SsQuery } from "../http/schemas.ts";
import {
  hasOfficePreview,
  sendOfficePreview,
  sendThumbnail,
  ThumbnailQuery,
} from "../http/previews.ts";

const route = tagRoutes("Files");

/**
 * The file `caller` may `action`, or the catalog error saying why not. A recipient's download or
 * view counts as opening the share (the shared-with-me list's "open" sort).
 */
async function authorizedFile(
  d: Deps,
  caller: Caller,
  rs: number,
  ss: number | undefined | null,
  action: "download" | "view",
): Promise<Resource> {
  const access = await authorizeResourceAccess(d.kv, caller, { rs, ss, type: "FILE" }, action);
  if (!access.isOwner) await recordSharedOpen(d.kv, caller.userSeq, access.path);
  return access.resource;
}

const TEXT = "text/plain; charset=utf-8";
/** Types shown as their source text: they could run script or restyle a page if rendered. */
const AS_TEXT = new Set([
  "text/html",
  "application/xhtml+xml",
  "image/svg+xml",
  "application/xml",
  "text/xml",
  "text/javascript",
  "application/javascript",
  "text/css",
  "application/json",
]);

/**
 * How `view` sends a file: images (not SVG), PDF, audio and video inline in their own type;
 * text and anything script-capable as plain text; everything else as an attachment.
 */
function viewRendition(mime: string | null): FileResponseOptions {
  const type = (mime ?? "").split(";")[0].trim().toLowerCase();
  if (AS_TEXT.has(type) || type.startsWith("text/")) {
    return { disposition: "inline", contentType: TEXT };
  }
  if (
    (type.startsWith("image/") || type.startsWith("audio/") || type.startsWith("video/") ||
      type === "application/pdf")
  ) return { disposition: "inline", contentType: type };
  return { disposition: "attachment", contentType: "application/octet-stream" };
}

const tokenRoute = downloadTokenRoute(
  "file",
  FileRsParams,
  "Issue a short-lived download link (usable without Authorization)",
);

const fileResponses = (...more: ErrorCode[]) => ({
  200: {
    description: "The file's bytes (Content-Type of the file, Content-Disposition)",
    content: fileBytes("The bytes"),
  },
  206: {
    description: "The requested byte range (Content-Range)",
    content: fileBytes("The bytes of the range"),
  },
  304: { description: "If-None-Match matched the ETag" },
  ...errorResponses(...FILE_ACCESS_ERRORS, "RESOURCE_011", ...more),
});

const fileRoute = (
  action: "download" | "view",
  summary: string,
  operationId: string,
  ...more: ErrorCode[]
) =>
  route("get", `/files/{resourceSeq}/${action}`, operationId, {
    summary,
    request: { params: FileRsParams, query: SsQuery },
    responses: fileResponses(...more),
  });

const downloadRoute = fileRoute(
  "download",
  "Download a file (Range, ETag/If-None-Match supported)",
  "downloadFile",
);
const viewRoute = fileRoute(
  "view",
  "The rendered preview: office documents (docx, xlsx, pptx, odt, ods, odp, rtf, txt, doc, " +
    "xls, ppt) as a PDF made by LibreOffice and cached per content; images, PDF, audio/video " +
    "inline; HTML, SVG, XML, JS as text/plain; anything else as an attachment. Without " +
    "LibreOffice on the server, office documents too are sent as themselves. Sandboxing CSP " +
    "and nosniff always.",
  "viewFile",
  "PREVIEW_001",
  "PREVIEW_002",
);

const thumbnailRoute = route("get", "/files/{resourceSeq}/thumbnail", "fileThumbnail", {
  summary: "A thumbnail of an image (WebP, at most `size` pixels on its longer side), made " +
    "once per content and cached",
  request: { params: FileRsParams, query: SsQuery.extend(ThumbnailQuery.shape) },
  responses: {
    200: { description: "The thumbnail (image/webp)", content: fileBytes("WebP bytes") },
    304: { description: "If-None-Match matched the ETag" },
    ...errorResponses(...FILE_ACCESS_ERRORS, "PREVIEW_003", "PREVIEW_004"),
  },
});

const tokenDownloadRoute = route("get", "/files/download", "downloadFileWithToken", {
  summary: "Download with a token from /files/{resourceSeq}/download-token (no Authorization)",
  security: [],
  request: { query: DownloadTokenQuery },
  responses: fileResponses("RESOURCE_009"),
});

export function filesDownloadApi(d: Deps) {
  const app = newOpenApiApp<ApiEnv>();

  for (const [declared, action] of [[downloadRoute, "download"], [viewRoute, "view"]] as const) {
    app.openapi(declared, async (c) => {
      const { resourceSeq } = c.req.valid("param");
      const { ss } = c.req.valid("query");
      const caller = c.get("caller");
      const file = await authorizedFile(d, caller, resourceSeq, ss, action);
      await recordDownload(d.kv, file, action === "view" ? "view" : "direct", caller.userSeq);
      if (action === "view" && hasOfficePreview(d, file)) return sendOfficePreview(c, d, file);
      const rendition = action === "view"
        ? viewRendition(file.mime)
        : { disposition: "attachment" as const };
      return sendFile(c, d, file, rendition);
    });
  }

  app.openapi(thumbnailRoute, async (c) => {
    const { resourceSeq } = c.req.valid("param");
    const { ss, size } = c.req.valid("query");
    const file = await authorizedFile(d, c.get("caller"), resourceSeq, ss, "view");
    return sendThumbnail(c, d, file, size);
  });

  app.openapi(tokenRoute, async (c) => {
    const { resourceSeq } = c.req.valid("param");
    const { ss } = c.req.valid("query");
    const caller = c.get("caller");
    await authorizedFile(d, caller, resourceSeq, ss, "download");
    return ok(c, await issueDownloadLink(d.kv, "file", resourceSeq, caller, ss), 200);
  });

  // Public (see PUBLIC_PATHS in api/external/index.ts): the token stands for its issuer's
  // access, which is checked again now, so a revoked share stops a link that is still unexpired.
  app.openapi(tokenDownloadRoute, async (c) => {
    const record = await redeemDownloadToken(d.kv, c.req.valid("query").dt, "file");
    const file = await authorizedFile(d, record.caller, record.rs, record.ss, "download");
    await recordDownload(d.kv, file, "token", record.caller.userSeq);
    return sendFile(c, d, file, { disposition: "attachment" });
  }, tokenHook);

  return app;
}
