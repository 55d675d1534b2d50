/**
 * Image thumbnails with sharp (libvips, prebuilt for Linux x64/arm64 and loaded by Deno's npm
 * support). Measured against ImageMagick's `convert` on a 4-megapixel JPEG (bench/previews.ts,
 * docs/benchmarks.md): sharp is several times faster, runs in this process without a fork per
 * image, and decodes JPEG with shrink-on-load. sharp is imported on first use, so a process
 * that never makes a thumbnail does not load libvips, and a platform without it (Deno Deploy)
 * gets `null` from `loadThumbnailer` instead of failing at start.
 */

export const THUMBNAIL_SIZES = [256, 1024] as const;
export type ThumbnailSize = typeof THUMBNAIL_SIZES[number];

export interface Thumbnail {
  bytes: Uint8Array;
  width: number;
  height: number;
  contentType: "image/webp";
}

/** Not an image the library can read (or a damaged one). */
export class NotAnImageError extends Error {}

export type Thumbnailer = (input: Uint8Array, size: ThumbnailSize) => Promise<Thumbnail>;

/**
 * Bigger images are refused rather than decoded: a 16k × 16k "pixel flood" would need a GB of
 * memory. 100 MP is more than any camera's photo.
 */
const MAX_INPUT_PIXELS = 100_000_000;

/** The thumbnail maker, or null where sharp cannot load. */
export async function loadThumbnailer(): Promise<Thumbnailer | null> {
  let sharp: typeof import("sharp").default;
  try {
    sharp = (await import("sharp")).default;
  } catch {
    return null;
  }
  return async (input, size) => {
    try {
      // rotate() applies the EXIF orientation; fit "inside" keeps the aspect ratio and never
      // enlarges a small image.
      const { data, info } = await sharp(input, { limitInputPixels: MAX_INPUT_PIXELS })
        .rotate()
        .resize(size, size, { fit: "inside", withoutEnlargement: true })
        .webp({ quality: 80 })
        .toBuffer({ resolveWithObject: true });
      return {
        bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
        width: info.width,
        height: info.height,
        contentType: "image/webp",
      };
    } catch (err) {
      throw new NotAnImageError(err instanceof Error ? err.message : String(err));
    }
  };
}
