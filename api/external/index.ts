/** The drive external API under /api/external/v1: authentication, the areas, and the OpenAPI document. */
import type { Deps } from "../../kv/deps.ts";
import { type ApiEnv, requireCaller } from "../http/auth.ts";
import { limitBody, type StreamedRoute } from "../http/body_limit.ts";
import { externalApiError } from "../http/errors.ts";
import { filesDownloadApi } from "./files_download.ts";
import { filesManageApi } from "./files_manage.ts";
import { fileVersionsApi } from "./file_versions.ts";
import { searchApi } from "./search.ts";
import { filesUploadApi } from "./files_upload.ts";
import { foldersApi } from "./folders.ts";
import { folderZipApi } from "./folder_zip.ts";
import { selectionZipApi } from "./selection_zip.ts";
import { resourcesApi } from "./resources.ts";
import { trashApi } from "./trash.ts";
import { uploadsApi } from "./uploads.ts";
import { documentsApi } from "./documents.ts";
import { pinnedApi } from "./pinned.ts";
import { starredApi } from "./starred.ts";
import { sharedApi } from "./shared.ts";
import { sharesApi } from "./shares.ts";
import { newOpenApiApp } from "../http/openapi.ts";
import { API_DOCUMENTS, apiDocsResponse } from "../http/docs_page.ts";
import { webOfficeApi } from "./web_office.ts";
import { changesApi } from "./changes.ts";

export const EXTERNAL_BASE = "/api/external/v1";

/** The document's info.description (Markdown). */
const DESCRIPTION = [
  "Files and folders of a user's drive and what is shared with them: listing, upload " +
  "(multipart or resumable tus), download, versions, trash, shares and share links, search, the " +
  "change feed and editor sessions.",
  "**Authentication**: an API key from the admin API (`POST /admin/api/keys`) or an app " +
  "password a user made for themselves (`POST /api/account/v1/app-passwords`), sent as " +
  "`Authorization: Bearer <key>`. A key acts as its user; changes need the `api:write` scope " +
  "(editor sessions excepted). A browser signed in through `/api/account/v1/sign-in` may use its " +
  "session cookie instead: it acts as the user's read-write key, and any change needs the " +
  "`X-CSRF-Token` header and an `Origin` of the service (docs/authentication.md).",
  "**Answers**: JSON in an envelope `{result, code, message, data}`; an error has `result: false` " +
  "and an `errorCode` listed in docs/errors.md. Files stream as their bytes.",
  "**Wire names**: `rs`/`resourceSeq` a file or folder, `pfs` a parent folder (omitted: the " +
  "caller's drive root), `ss` the owner's user seq of something shared with the caller, `ts` a " +
  "target (a drive, or a share's recipients), `st` the upload mode or share type.",
  "**Examples** name one small drive, which tests/drive/openapi_examples_test.ts builds and then " +
  'replays every example against: user 1 (the caller) owns folder 1 "Reports" holding file 2 ' +
  '"Q1 report.docx" (two versions) and folder 3 "Archive", shared with user 2 (share 1); user ' +
  '2 shares folder 4 "Team" with user 1 (share 2). Folder 6 is the one the "Create a folder" ' +
  "example makes.",
].join("\n\n");

/** Paths reachable without an API key (the second request of a download-token flow, the docs). */
const PUBLIC_PATHS = new Set([
  "/openapi.json",
  "/docs",
  "/files/download",
  "/folders/download",
  "/resources/download",
]);

/**
 * The routes whose body streams to storage under its own limits (docs/security.md); every other
 * body is JSON and capped by limitBody.
 */
const STREAMED_BODIES: readonly StreamedRoute[] = [
  // Multipart upload: the parser's field and header limits, then quota.
  { method: "POST", path: /^\/files$/ },
  // Editor save: exactly `size` bytes, within quota.
  { method: "PUT", path: /^\/web-office\/[^/]+\/put$/ },
  // tus: creation-with-upload and PATCH, within Upload-Length (kv/tree/uploads.ts).
  { method: "POST", path: /^\/uploads$/ },
  { method: "PATCH", path: /^\/uploads\/[^/]+$/ },
];

/** The route areas mounted at the root, in the order their routes are matched and documented. */
const AREAS = [
  foldersApi,
  folderZipApi,
  selectionZipApi,
  resourcesApi,
  trashApi,
  documentsApi,
  sharesApi,
  sharedApi,
  pinnedApi,
  starredApi,
  filesUploadApi,
  uploadsApi,
  filesDownloadApi,
  filesManageApi,
  fileVersionsApi,
  searchApi,
  changesApi,
];

export function externalApi(d: Deps) {
  const app = newOpenApiApp<ApiEnv>();
  app.onError(externalApiError);
  // First, so an oversize body is refused before anything else looks at the request.
  app.use("*", limitBody({ base: EXTERNAL_BASE, streamed: STREAMED_BODIES }));

  const auth = requireCaller(d);
  app.use("*", async (c, next) => {
    const sub = c.req.path.slice(EXTERNAL_BASE.length);
    if (PUBLIC_PATHS.has(sub)) return await next();
    return await auth(c, next);
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "apiKey", {
    type: "http",
    scheme: "bearer",
    description: "API key issued by the admin API (POST /admin/api/keys)",
  });

  app.openAPIRegistry.registerComponent("securitySchemes", "session", {
    type: "apiKey",
    in: "cookie",
    name: "__Host-drive_session",
    description: "A signed-in browser's session cookie (POST /api/account/v1/sign-in; " +
      "drive_session over plain http): the user's read-write key; changes need X-CSRF-Token " +
      "and the service's Origin",
  });

  for (const area of AREAS) app.route("/", area(d));
  app.route("/web-office", webOfficeApi(d));

  app.get("/docs", (c) => apiDocsResponse(c, "Drive API reference", API_DOCUMENTS));
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: { title: "Drive external API", version: "v1", description: DESCRIPTION },
    servers: [{ url: EXTERNAL_BASE }],
    security: [{ apiKey: [] }, { session: [] }],
  });
  return app;
}
