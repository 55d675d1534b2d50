/**
 * The HTTP side of rendered previews (kv/previews/renditions.ts): `view`'s PDF of an office
 * document and the image thumbnails, sent like any stored file (ETag of the rendition's bytes,
 * Range, 304) through sendFile, with Retry-After on a busy converter.
 */
import type { Context } from "hono";
import { z } from "@hono/zod-openapi";
import { BlobNotFoundError } from "../../blobs/store.ts";
import type { Deps } from "../../kv/deps.ts";
import { isDriveError } from "../../kv/errors.ts";
import type { Resource } from "../../kv/tree/resources.ts";
import {
  BUSY_RETRY_AFTER_S,
  forgetRendition,
  officePreview,
  type Rendition,
  type RenditionKind,
  thumbnail,
} from "../../kv/previews/renditions.ts";
import { THUMBNAIL_SIZES, type ThumbnailSize } from "../../lib/thumbnails.ts";
import { sendFile } from "./file_response.ts";
import { queryParam } from "./openapi.ts";

export { hasOfficePreview } from "../../kv/previews/renditions.ts";

/** `?size=` of the thumbnail route: the two sizes that are made and kept. */
export const ThumbnailQuery = z.object({
  size: z.enum(THUMBNAIL_SIZES.map(String) as ["256", "1024"]).default("256").openapi({
    ...queryParam("size"),
    description: "Longest side in pixels (an image is never enlarged): 256 or 1024",
    example: "256",
  }),
});

/** The rendition as a file: its own bytes, hash and type, under the original's name. */
function asFile(file: Resource, r: Rendition, extension: string): Resource {
  const base = file.name.replace(/\.[^.]*$/, "");
  return {
    ...file,
    name: `${base || file.name}.${extension}`,
    blobId: r.blobId,
    size: r.size,
    sha256: r.sha256,
    mime: r.contentType,
    updatedAt: r.createdAt,
  };
}

/**
 * Makes (or reads) a rendition and sends it. A rendition whose blob went (pruned by a sweep
 * while it was read) is made again once.
 */
async function sendRendition(
  c: Context,
  d: Deps,
  file: Resource,
  kind: RenditionKind,
  make: () => Promise<Rendition>,
  extension: string,
  attempt = 0,
): Promise<Response> {
  let r: Rendition;
  try {
    r = await make();
  } catch (err) {
    if (isDriveError(err, "PREVIEW_002")) c.header("Retry-After", String(BUSY_RETRY_AFTER_S));
    throw err;
  }
  return await sendFile(c, d, asFile(file, r, extension), {
    disposition: "inline",
    contentType: r.contentType,
    blobGone: async (err: BlobNotFoundError) => {
      if (attempt > 0) throw err;
      await forgetRendition(d, file.sha256!, kind);
      throw new RetryRendition();
    },
  }).catch((err) => {
    if (!(err instanceof RetryRendition)) throw err;
    return sendRendition(c, d, file, kind, make, extension, attempt + 1);
  });
}

class RetryRendition extends Error {}

/** `view` of an office document: its PDF preview. */
export function sendOfficePreview(c: Context, d: Deps, file: Resource): Promise<Response> {
  return sendRendition(c, d, file, "pdf", () => officePreview(d, file), "pdf");
}

/** An image's thumbnail (WebP). */
export function sendThumbnail(
  c: Context,
  d: Deps,
  file: Resource,
  size: string,
): Promise<Response> {
  const px = Number(size) as ThumbnailSize;
  return sendRendition(c, d, file, `thumb${px}`, () => thumbnail(d, file, px), "webp");
}
