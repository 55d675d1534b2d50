/**
 * The public link API at /public/v1 (what the share-link page calls): the link routes of
 * ./links.ts, which also carry the area's middleware and OpenAPI document, with the link
 * visitors' resumable uploads of ./link_uploads.ts mounted beside them.
 */
import type { Deps } from "../../kv/deps.ts";
import { publicLinksApi as linksApi } from "./links.ts";
import { publicLinkUploadsApi } from "./link_uploads.ts";
import { publicLinkZipApi } from "./link_zip.ts";

export { PUBLIC_LINKS_BASE } from "./links.ts";

export function publicLinksApi(d: Deps) {
  const app = linksApi(d);
  // Mounted after the link routes' middleware (token check, no-store, body limit), which so
  // applies to the uploads as well; their operations join the area's OpenAPI document.
  app.route("/", publicLinkUploadsApi(d));
  app.route("/", publicLinkZipApi(d));
  return app;
}
