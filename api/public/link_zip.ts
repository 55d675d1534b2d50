/**
 * "Download all as ZIP" for a folder link: GET /public/v1/links/{token}/zip streams the link's
 * folder (or a folder inside it, `folderSeq`) as one archive. Allowed when the link is unlocked
 * and grants cd (a file request never: LINK_006). The tree is walked first (metadata only, at
 * most MAX_ZIP_ENTRIES) so the answer has an exact Content-Length, then client-zip writes each
 * file streamed from the blob store at its turn; a blob that fails or turns out another size
 * than its record cuts the response (its Content-Length is then never reached).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { downloadZip, predictLength } from "client-zip";
import type { Deps } from "../../kv/deps.ts";
import { fail } from "../../kv/errors.ts";
import { recordDownload } from "../../kv/events/log.ts";
import { requireLinkAccess, resourceInLink } from "../../kv/sharing/share_links.ts";
import { iterateSubtree } from "../../kv/tree/listing.ts";
import type { Resource } from "../../kv/tree/resources.ts";
import { contentDisposition } from "../http/content_disposition.ts";
import {
  ErrorEnvelopeSchema,
  errorResponsesWith,
  newOpenApiApp,
  queryParam,
} from "../http/openapi.ts";
import { ItemsQuery } from "./schemas/links.ts";

/** As many entries as the drive API's folder ZIP takes (api/external/folder_zip.ts). */
const MAX_ZIP_ENTRIES = 100_000;

interface Entry {
  name: string;
  lastModified: Date;
  file?: { blobId: string; size: number };
}

async function entriesOf(d: Deps, folder: Resource): Promise<Entry[]> {
  const entries: Entry[] = [{ name: folder.name, lastModified: new Date(folder.updatedAt) }];
  for await (const { resource, path } of iterateSubtree(d.kv, folder)) {
    if (entries.length >= MAX_ZIP_ENTRIES) {
      fail("RESOURCE_020", `The folder holds more than ${MAX_ZIP_ENTRIES} entries`);
    }
    entries.push({
      name: [folder.name, ...path].join("/"),
      lastModified: new Date(resource.updatedAt),
      file: resource.type === "FILE"
        ? { blobId: resource.blobId!, size: resource.size }
        : undefined,
    });
  }
  return entries;
}

/** client-zip's inputs: each file's bytes are read from the store only when its turn comes. */
async function* zipInputs(d: Deps, entries: Entry[]) {
  for (const { name, lastModified, file } of entries) {
    if (!file) yield { name, lastModified };
    else yield { name, lastModified, size: file.size, input: await d.blobs.read(file.blobId) };
  }
}

const zipRoute = createRoute({
  method: "get",
  path: "/links/{token}/zip",
  tags: ["Share links"],
  operationId: "downloadLinkZip",
  security: [],
  summary: "Download the link's folder (or a folder inside it) as one ZIP",
  request: {
    params: z.object({
      token: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/).openapi({
        param: { name: "token", in: "path" },
        description: "The link token: the last segment of the link's URL /s/{token}",
        example: "Xy7_k2Lq9mP0aBcD",
      }),
    }),
    query: z.object({
      folderSeq: ItemsQuery.shape.folderSeq,
      access: z.string().optional().openapi({
        ...queryParam("access"),
        description: "The access token of an unlocked password-protected link",
        example: "la_3nV8q",
      }),
    }),
  },
  responses: {
    200: {
      description: "application/zip (UTF-8 names, folder entries, ZIP64 when needed), " +
        "Content-Disposition attachment, exact Content-Length",
      content: { "application/zip": { schema: z.string().openapi({ format: "binary" }) } },
    },
    ...errorResponsesWith(ErrorEnvelopeSchema, [
      "REQUEST_001",
      "SHARE_007",
      "LINK_003",
      "LINK_004",
      "LINK_005",
      "LINK_006",
      "PERMISSION_004",
      "RESOURCE_002",
      "RESOURCE_005",
      "RESOURCE_020",
    ]),
  },
});

export function publicLinkZipApi(d: Deps) {
  const app = newOpenApiApp();
  app.openapi(zipRoute, async (c) => {
    const q = c.req.valid("query");
    const link = await requireLinkAccess(
      d.kv,
      c.req.param("token"),
      c.req.header("x-link-access") ?? q.access,
    );
    if (!link.flags.cd) fail("PERMISSION_004", "This link does not allow downloads");
    if (link.resource.type !== "FOLDER") {
      fail("RESOURCE_005", "This link is to a file, not a folder", "folderSeq");
    }
    const { resource: folder } = await resourceInLink(
      d.kv,
      link.share,
      q.folderSeq ?? link.share.rs,
      "folderSeq",
    );
    if (folder.type !== "FOLDER") fail("RESOURCE_005", "folderSeq is a file", "folderSeq");
    const entries = await entriesOf(d, folder);
    await recordDownload(d.kv, folder, "link", null);
    const length = predictLength(
      entries.map((e) => e.file ? { name: e.name, size: e.file.size } : { name: e.name }),
    );
    const zip = downloadZip(zipInputs(d, entries), { length });
    return new Response(zip.body, {
      status: 200,
      headers: {
        "content-type": "application/zip",
        "content-disposition": contentDisposition("attachment", `${folder.name}.zip`),
        "x-content-type-options": "nosniff",
        "content-length": String(length),
      },
    });
  });
  return app;
}
