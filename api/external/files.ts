/** The file endpoints of the external API: upload, download/view, and tree operations. */
import type { Deps } from "../../kv/deps.ts";
import type { ApiEnv } from "../http/auth.ts";
import { filesDownloadApi } from "./files_download.ts";
import { filesManageApi } from "./files_manage.ts";
import { filesUploadApi } from "./files_upload.ts";
import { newOpenApiApp } from "../http/openapi.ts";

export function filesApi(d: Deps) {
  const app = newOpenApiApp<ApiEnv>();
  app.route("/", filesUploadApi(d));
  app.route("/", filesDownloadApi(d));
  app.route("/", filesManageApi(d));
  return app;
}
