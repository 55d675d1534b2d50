/**
 * Folder ZIP download: a short-lived token, then the archive itself (public, token only).
 * The tree is walked first (metadata only, at most MAX_ZIP_ENTRIES entries) so the response
 * carries an exact Content-Length and a too-large folder is refused before any byte is sent;
 * then client-zip streams the entries, each file read from the blob store only when its turn
 * comes, never buffered. Sizes travel with the entries so client-zip writes ZIP64 records for
 * files or offsets past 4 GiB.
 */
import { createRoute } from "@hono/zod-openapi";
import { downloadZip, predictLength } from "client-zip";
import { authorizeResourceAccess } from "../../kv/sharing/authorize.ts";
import type { Deps } from "../../kv/deps.ts";
import { redeemDownloadToken } from "../../kv/tree/download_tokens.ts";
import { fail } from "../../kv/errors.ts";
import { iterateSubtree, type Resource } from "../../kv/tree/resources.ts";
import type { ApiEnv } from "../http/auth.ts";
import { contentDisposition } from "../http/content_disposition.ts";
import { downloadLinkOk, DownloadTokenQuery, issueDownloadLink } from "../http/download_link.ts";
import { ok } from "../http/envelope.ts";
import { RsParams, SsQuery } from "../http/schemas.ts";
import { errorResponses, newOpenApiApp } from "../http/openapi.ts";

/** Enough for any folder a person downloads at once; the walk holds ~100 bytes per entry. */
export const MAX_ZIP_ENTRIES = 100_000;

const tokenRoute = createRoute({
  method: "get",
  path: "/folders/{resourceSeq}/download-token",
  tags: ["Folders"],
  summary: "Issue a short-lived link that downloads the folder as a ZIP (no Authorization)",
  request: { params: RsParams, query: SsQuery },
  responses: {
    ...downloadLinkOk("folder"),
    ...errorResponses("RESOURCE_002", "RESOURCE_005", "PERMISSION_002", "PERMISSION_004"),
  },
});

interface ZipEntry {
  /** Path inside the archive, "/"-separated, starting with the folder's own name. */
  name: string;
  lastModified: Date;
  /** Files only. */
  file?: { blobId: string; size: number };
}

/** The archive's entries: the folder itself, then every non-trashed folder and file below it. */
async function collectEntries(d: Deps, folder: Resource): Promise<ZipEntry[]> {
  const entries: ZipEntry[] = [{ name: folder.name, lastModified: new Date(folder.updatedAt) }];
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

/** Streams `entries` as a ZIP; a client that goes away stops the blob read in progress too. */
function zipStream(
  d: Deps,
  entries: ZipEntry[],
): { body: ReadableStream<Uint8Array>; length: string } {
  let reading: ReadableStreamDefaultReader<Uint8Array> | null = null;
  async function* blobBytes(blobId: string): AsyncGenerator<Uint8Array> {
    const reader = (await d.blobs.read(blobId)).getReader();
    reading = reader;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        yield value;
      }
    } finally {
      reading = null;
      reader.releaseLock();
    }
  }
  // Lazy: each file's blob is opened only when client-zip asks for that entry.
  function* inputs() {
    for (const e of entries) {
      yield e.file
        ? {
          name: e.name,
          lastModified: e.lastModified,
          size: e.file.size,
          input: blobBytes(e.file.blobId),
        }
        : { name: e.name, lastModified: e.lastModified };
    }
  }
  const length = predictLength(
    entries.map((e) => e.file ? { name: e.name, size: e.file.size } : { name: e.name }),
  );
  const zip = downloadZip(inputs(), { length });
  const source = zip.body!.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await source.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel(reason) {
      await reading?.cancel(reason).catch(() => {});
      await source.cancel(reason).catch(() => {});
    },
  });
  return { body, length: String(length) };
}

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
  app.get("/folders/download", async (c) => {
    const record = await redeemDownloadToken(d.kv, c.req.query("dt"), "folder");
    const { resource: folder } = await authorizeResourceAccess(d.kv, record.caller, {
      rs: record.rs,
      ss: record.ss,
      type: "FOLDER",
    }, "download");
    const { body, length } = zipStream(d, await collectEntries(d, folder));
    const headers = new Headers({
      "content-type": "application/zip",
      "content-disposition": contentDisposition("attachment", `${folder.name}.zip`),
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      "content-length": length,
    });
    return new Response(body, { status: 200, headers });
  });

  app.openAPIRegistry.registerPath({
    method: "get",
    path: "/folders/download",
    tags: ["Folders"],
    summary: "Download a folder as a ZIP with a token from /folders/{resourceSeq}/download-token",
    security: [],
    request: { query: DownloadTokenQuery },
    responses: {
      200: {
        description: "application/zip (UTF-8 names, folder entries, ZIP64 when needed), " +
          "Content-Disposition attachment, exact Content-Length",
      },
      ...errorResponses(
        "RESOURCE_002",
        "RESOURCE_005",
        "RESOURCE_009",
        "RESOURCE_020",
        "PERMISSION_002",
        "PERMISSION_004",
      ),
    },
  });

  return app;
}
