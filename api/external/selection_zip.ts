/**
 * The multi-resource download (the spec's "multi-resource download"): several files and folders,
 * from any folders (a multiple selection, search results), as one ZIP. The download-token flow of
 * the folder ZIP: POST /resources/download-token checks every item for download permission and
 * answers a short-lived link; GET /resources/download?dt= (public, token only) checks them all
 * again for the token's issuer, walks them (bounded, kv/tree/zip_entries.ts; names made unique
 * at the top) and streams the archive (api/http/zip_stream.ts).
 */
import { z } from "@hono/zod-openapi";
import { recordDownload } from "../../kv/events/log.ts";
import { authorizeResourceAccess } from "../../kv/sharing/authorize.ts";
import type { Caller } from "../../kv/identity/users.ts";
import type { Deps } from "../../kv/deps.ts";
import { redeemDownloadToken } from "../../kv/tree/download_tokens.ts";
import type { Resource } from "../../kv/tree/resources.ts";
import { collectSelectionEntries } from "../../kv/tree/zip_entries.ts";
import type { ApiEnv } from "../http/auth.ts";
import {
  DownloadTokenQuery,
  issueDownloadLink,
  LinkUrlSchema,
  tokenHook,
} from "../http/download_link.ts";
import { ok } from "../http/envelope.ts";
import {
  bodySeq,
  errorResponses,
  jsonAnswers,
  jsonBody,
  newOpenApiApp,
  tagRoutes,
} from "../http/openapi.ts";
import { zipResponse } from "../http/zip_stream.ts";

const route = tagRoutes("Resources");

/** Items one download names at most: a page of a selection, not a drive export. */
export const MAX_SELECTION = 1000;

const SelectionBody = z.object({
  resources: z.array(
    z.object({
      resourceSeq: z.number({ error: "resourceSeq is required and must be an integer" })
        .int("must be an integer").positive("must be a positive integer")
        .describe("A file or folder to include"),
      ss: bodySeq("Its owner's user seq when it is shared with the caller (optional)"),
    }).strict(),
    { error: "resources is required and must be a list of {resourceSeq, ss?}" },
  ).min(1, "must name at least one file or folder")
    .max(MAX_SELECTION, `must name at most ${MAX_SELECTION} files and folders`)
    .describe(`1 to ${MAX_SELECTION} files and folders, from any folders`),
}).strict().openapi("ResourceSelection", {
  description: "Files and folders to download as one ZIP",
  example: { resources: [{ resourceSeq: 2 }, { resourceSeq: 3 }, { resourceSeq: 4, ss: 2 }] },
});

/** Why an item cannot be included: missing or trashed, not reachable, no download permission. */
const SELECTION_ERRORS = ["RESOURCE_002", "PERMISSION_002", "PERMISSION_004"] as const;

/** Audit entries written at once before the archive starts (one per item). */
const AUDIT_WRITES = 16;

type Item = { rs: number; ss: number | null };

const tokenRoute = route("post", "/resources/download-token", "createResourcesDownloadToken", {
  summary: "Issue a short-lived link that downloads several files and folders as one ZIP",
  description: "Every item needs the download permission. Duplicate names at the top of the " +
    'archive are numbered ("a (2).txt"); an item named twice is included once.',
  request: { body: jsonBody(SelectionBody) },
  responses: jsonAnswers(
    LinkUrlSchema("selection"),
    "A server-relative link valid for 5 minutes",
    ...SELECTION_ERRORS,
  ),
});

const zipRoute = route("get", "/resources/download", "downloadResourcesZip", {
  summary: "Download several files and folders as one ZIP with a token from " +
    "/resources/download-token",
  security: [],
  request: { query: DownloadTokenQuery },
  responses: {
    200: {
      description: "application/zip named download.zip (UTF-8 names, folder entries, ZIP64 " +
        "when needed), exact Content-Length",
      content: { "application/zip": { schema: z.string().openapi({ format: "binary" }) } },
    },
    ...errorResponses(
      ...SELECTION_ERRORS,
      "RESOURCE_009",
      "RESOURCE_020",
    ),
  },
});

/** Each item authorized for download, in order (field `resources[i].resourceSeq` on refusal). */
async function authorizeAll(d: Deps, caller: Caller, items: Item[]): Promise<Resource[]> {
  const out: Resource[] = [];
  for (const [i, item] of items.entries()) {
    const { resource } = await authorizeResourceAccess(d.kv, caller, {
      rs: item.rs,
      ss: item.ss,
      field: `resources[${i}].resourceSeq`,
    }, "download");
    out.push(resource);
  }
  return out;
}

export function selectionZipApi(d: Deps) {
  const app = newOpenApiApp<ApiEnv>();

  app.openapi(tokenRoute, async (c) => {
    const caller = c.get("caller");
    const seen = new Set<number>();
    const items: Item[] = [];
    for (const r of c.req.valid("json").resources) {
      if (seen.has(r.resourceSeq)) continue;
      seen.add(r.resourceSeq);
      items.push({ rs: r.resourceSeq, ss: r.ss ?? null });
    }
    await authorizeAll(d, caller, items);
    return ok(
      c,
      await issueDownloadLink(d.kv, "selection", items[0].rs, caller, items[0].ss, items),
      200,
    );
  });

  // Public (PUBLIC_PATHS in api/external/index.ts): the token stands for its issuer, whose
  // access to every item is checked again now.
  app.openapi(zipRoute, async (c) => {
    const record = await redeemDownloadToken(d.kv, c.req.valid("query").dt, "selection");
    const resources = await authorizeAll(d, record.caller, record.items ?? []);
    for (let i = 0; i < resources.length; i += AUDIT_WRITES) {
      await Promise.all(
        resources.slice(i, i + AUDIT_WRITES).map((r) =>
          recordDownload(d.kv, r, "zip", record.caller.userSeq)
        ),
      );
    }
    return zipResponse(d, await collectSelectionEntries(d.kv, resources), "download.zip");
  }, tokenHook);

  return app;
}
