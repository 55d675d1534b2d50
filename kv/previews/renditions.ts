/**
 * Renditions of a file's content: the PDF preview of an office document and the thumbnails of
 * an image. Each is made once per content and kept in the blob store under a `rendition` record
 * keyed by the content's SHA-256 and the kind, so every process on the same KV serves the one
 * made by any of them, and a new version (new content, new hash) gets its own.
 *
 * A rendition lives as long as some file version or record holds its content: the orphan blob
 * sweep (kv/tree/blob_sweep.ts) calls `pruneRenditions` first, which drops the records (and
 * blobs) of content nothing holds any more, and counts the rest as references. fsck counts
 * them as references too.
 *
 * This folder sits below kv/tree/ (the sweep calls it), so it reads files through the small
 * `RenditionSource` shape and the tree's families through kv/keys.ts, read-only.
 */
import { type BlobInfo, BlobTooLargeError } from "../../blobs/store.ts";
import type { Deps } from "../deps.ts";
import { fail } from "../errors.ts";
import { renditionKey, resourceKey, versionKey } from "../keys.ts";
import { ConverterBusyError } from "../../lib/office_converter.ts";
import { loadThumbnailer, NotAnImageError, type ThumbnailSize } from "../../lib/thumbnails.ts";

export type RenditionKind = "pdf" | `thumb${ThumbnailSize}`;

/** The stored record of one rendition. */
export interface Rendition {
  blobId: string;
  size: number;
  /** Of the rendition's own bytes (its ETag). */
  sha256: string;
  contentType: string;
  width: number | null;
  height: number | null;
  createdAt: number;
}

/** What a rendition is made from: a file's current content. */
export interface RenditionSource {
  name: string;
  mime: string | null;
  size: number;
  blobId: string | null;
  sha256: string | null;
}

/** Office formats LibreOffice turns into a PDF preview, by file extension. */
const OFFICE_EXTENSIONS = new Set([
  "docx",
  "xlsx",
  "pptx",
  "odt",
  "ods",
  "odp",
  "rtf",
  "doc",
  "xls",
  "ppt",
]);

/** Seconds a client is asked to wait when every converter is busy (PREVIEW_002). */
export const BUSY_RETRY_AFTER_S = 2;

const extensionOf = (name: string) => {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
};

/** Whether `view` answers this file with a PDF rendition (else with its own bytes). */
export function hasOfficePreview(d: Deps, file: RenditionSource): boolean {
  return d.officeConverter.available && file.sha256 !== null &&
    OFFICE_EXTENSIONS.has(extensionOf(file.name));
}

/** The stored rendition, if one was made. */
export async function readRendition(
  d: Deps,
  sha256: string,
  kind: RenditionKind,
): Promise<Rendition | null> {
  return (await d.kv.get<Rendition>(renditionKey(sha256, kind))).value;
}

async function readContent(d: Deps, file: RenditionSource, code: "PREVIEW_001" | "PREVIEW_003") {
  if (file.size > d.config.previewMaxBytes) {
    fail(code, `The file is larger than the ${d.config.previewMaxBytes} bytes previews read`);
  }
  return new Uint8Array(await new Response(await d.blobs.read(file.blobId!)).arrayBuffer());
}

/**
 * Stores `bytes` as the `kind` rendition of `sha256`. When another request or process stored
 * one first, that one is kept and returned, and these bytes are deleted again.
 */
async function storeRendition(
  d: Deps,
  sha256: string,
  kind: RenditionKind,
  made: { bytes: Uint8Array; contentType: string; width?: number; height?: number },
): Promise<Rendition> {
  let blob: BlobInfo;
  try {
    blob = await d.blobs.write(ReadableStream.from([made.bytes]), {
      maxBytes: Number.MAX_SAFE_INTEGER,
    });
  } catch (err) {
    if (err instanceof BlobTooLargeError) fail("SERVICE_003");
    throw err;
  }
  const record: Rendition = {
    blobId: blob.blobId,
    size: blob.size,
    sha256: blob.sha256,
    contentType: made.contentType,
    width: made.width ?? null,
    height: made.height ?? null,
    createdAt: Date.now(),
  };
  const key = renditionKey(sha256, kind);
  const res = await d.kv.atomic().check({ key, versionstamp: null }).set(key, record).commit();
  if (res.ok) return record;
  await d.blobs.delete(blob.blobId).catch(() => {});
  const winner = await readRendition(d, sha256, kind);
  if (!winner) fail("SERVICE_002", "The preview was replaced while it was stored; retry");
  return winner;
}

/**
 * The PDF preview of an office document, made by LibreOffice on first request. PREVIEW_001 when
 * LibreOffice cannot read it (damaged, encrypted) or runs over the time limit; PREVIEW_002 when
 * the converter's queue is full.
 */
export async function officePreview(d: Deps, file: RenditionSource): Promise<Rendition> {
  const sha256 = file.sha256!;
  const cached = await readRendition(d, sha256, "pdf");
  if (cached) return cached;
  const input = await readContent(d, file, "PREVIEW_001");
  let pdf: Uint8Array | null;
  try {
    pdf = await d.officeConverter.convert(input, extensionOf(file.name));
  } catch (err) {
    if (err instanceof ConverterBusyError) fail("PREVIEW_002");
    throw err;
  }
  if (!pdf) {
    fail(
      "PREVIEW_001",
      `LibreOffice could not convert ${file.name} (damaged or protected, or slower than ` +
        `${d.config.previewTimeoutMs / 1000} s)`,
    );
  }
  return await storeRendition(d, sha256, "pdf", { bytes: pdf, contentType: "application/pdf" });
}

/** A thumbnail of an image, `size` pixels on its longer side at most (WebP). */
export async function thumbnail(
  d: Deps,
  file: RenditionSource,
  size: ThumbnailSize,
): Promise<Rendition> {
  const kind: RenditionKind = `thumb${size}`;
  const type = (file.mime ?? "").split(";")[0].trim().toLowerCase();
  // SVG would be rendered by librsvg from untrusted markup: not worth the risk for a thumbnail.
  if (!type.startsWith("image/") || type === "image/svg+xml" || file.sha256 === null) {
    fail("PREVIEW_003", `${file.name} is not an image (${type || "unknown type"})`);
  }
  const cached = await readRendition(d, file.sha256, kind);
  if (cached) return cached;
  const make = await loadThumbnailer();
  if (!make) fail("PREVIEW_004");
  const input = await readContent(d, file, "PREVIEW_003");
  const made = await d.thumbnailTurns(async () => {
    try {
      return await make(input, size);
    } catch (err) {
      if (err instanceof NotAnImageError) {
        fail("PREVIEW_003", `${file.name} cannot be read as an image: ${err.message}`);
      }
      throw err;
    }
  });
  return await storeRendition(d, file.sha256, kind, made);
}

/** Drops a rendition whose blob is gone (the caller makes it again). */
export async function forgetRendition(d: Deps, sha256: string, kind: RenditionKind) {
  await d.kv.delete(renditionKey(sha256, kind));
}

/** Every rendition's blob id (the blob sweep and fsck count them as references). */
export async function* iterateRenditionBlobIds(kv: Deno.Kv): AsyncGenerator<string> {
  for await (const e of kv.list<Rendition>({ prefix: renditionKey() })) yield e.value.blobId;
}

/**
 * Drops the renditions of content no file version or record holds any more, with their blobs.
 * A full scan of versions and records (the sweep's cost already). A rendition made meanwhile
 * for content that was being deleted is left for the next sweep.
 */
export async function pruneRenditions(d: Deps, dryRun: boolean): Promise<number> {
  const live = new Set<string>();
  for await (const e of d.kv.list<{ sha256: string }>({ prefix: versionKey() })) {
    live.add(e.value.sha256);
  }
  for await (const e of d.kv.list<{ sha256: string | null }>({ prefix: resourceKey() })) {
    if (e.value.sha256) live.add(e.value.sha256);
  }
  let pruned = 0;
  for await (const e of d.kv.list<Rendition>({ prefix: renditionKey() })) {
    if (live.has(e.key[1] as string)) continue;
    pruned++;
    if (dryRun) continue;
    const res = await d.kv.atomic().check(e).delete(e.key).commit();
    if (res.ok) await d.blobs.delete(e.value.blobId).catch(() => {});
  }
  return pruned;
}
