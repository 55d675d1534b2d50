/**
 * Rendered previews (issue 25, item 8), figures in docs/benchmarks.md:
 * 1. The thumbnail library, in this process: sharp vs ImageMagick's `convert` on one 4-megapixel
 *    JPEG (2309 × 1732, noisy so it does not compress to nothing), 256 px WebP, p50 of --reps.
 * 2. Over HTTP against the real app (bench/serve_app.ts, fs blobs): GET /files/{rs}/thumbnail of
 *    that JPEG, uncached (each rep a new content: bytes after the JPEG's end marker) and cached.
 * 3. GET /files/{rs}/view of the shipped office templates (docx, xlsx, pptx in ko-KR and en-US),
 *    4 requested at once per round, uncached (each a new content: a random ZIP comment) and
 *    cached, with GET /healthz every 20 ms meanwhile (its p99).
 *
 *   deno run -A bench/previews.ts [--reps 15] [--rounds 4] [--magick /usr/bin/convert] [--json]
 */
import sharp from "sharp";
import { benchApiKey, median, numberArg, startApp, stringArg } from "./lib.ts";

const REPS = numberArg("reps", 15);
/** Debian's ImageMagick 6 (`apt-get install imagemagick`); PATH may put a stand-in first. */
const MAGICK = stringArg("magick") ?? "/usr/bin/convert";
const ROUNDS = numberArg("rounds", 4);
const json = Deno.args.includes("--json");
const templates = new URL("../static/templates/", import.meta.url);

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const ms = (x: number) => Math.round(x * 10) / 10;

async function fourMegapixelJpeg(): Promise<Uint8Array> {
  const [w, h] = [2309, 1732];
  const raw = new Uint8Array(w * h * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = ((i * 2654435761) >>> 13) & 0xff ^ (i / 7000);
  const out = await sharp(raw, { raw: { width: w, height: h, channels: 3 } })
    .jpeg({ quality: 85 }).toBuffer();
  return new Uint8Array(out);
}

/** The same image, other bytes: trailing bytes after the end marker, which decoders ignore. */
const variant = (jpeg: Uint8Array, n: number) => {
  const out = new Uint8Array(jpeg.length + 8);
  out.set(jpeg);
  new DataView(out.buffer).setFloat64(jpeg.length, n + Math.random());
  return out;
};

/** The same OOXML package, other bytes: a random 8-byte ZIP comment in its end record. */
function zipVariant(zip: Uint8Array): Uint8Array {
  const eocd = zip.length - 22;
  if (zip[eocd] !== 0x50 || zip[eocd + 1] !== 0x4b) throw new Error("ZIP has a comment already");
  const out = new Uint8Array(zip.length + 8);
  out.set(zip);
  new DataView(out.buffer).setUint16(eocd + 20, 8, true);
  crypto.getRandomValues(out.subarray(zip.length));
  return out;
}

async function timeIt(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function libraries(jpeg: Uint8Array) {
  const file = await Deno.makeTempFile({ suffix: ".jpg" });
  await Deno.writeFile(file, jpeg);
  const sharpRuns: number[] = [];
  const magickRuns: number[] = [];
  for (let i = 0; i < REPS; i++) {
    sharpRuns.push(
      await timeIt(() =>
        sharp(jpeg).rotate().resize(256, 256, { fit: "inside" }).webp({ quality: 80 }).toBuffer()
      ),
    );
    magickRuns.push(
      await timeIt(async () => {
        const out = await new Deno.Command(MAGICK, {
          // -define jpeg:size lets libjpeg decode at a reduced scale, as sharp's shrink-on-load.
          args: [
            "-define",
            "jpeg:size=512x512",
            file,
            "-auto-orient",
            "-thumbnail",
            "256x256",
            "-quality",
            "80",
            "webp:-",
          ],
          stdout: "piped",
          stderr: "null",
        }).output();
        if (!out.success || out.stdout.length === 0) throw new Error("convert failed");
      }),
    );
  }
  await Deno.remove(file);
  return { sharpP50: ms(median(sharpRuns)), imagemagickP50: ms(median(magickRuns)) };
}

async function main() {
  const jpeg = await fourMegapixelJpeg();
  const lib = await libraries(jpeg);
  if (!json) console.log("library, 4-MP JPEG -> 256 px WebP, p50 ms:", lib);

  const dir = await Deno.makeTempDir({ prefix: "bench-previews-" });
  const server = await startApp(dir);
  try {
    const key = await benchApiKey(server.url);
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${server.url}/api/external/v1${path}`, {
        ...init,
        headers: { authorization: `Bearer ${key}`, ...init.headers },
      });
    const upload = async (name: string, bytes: Uint8Array) => {
      const form = new FormData();
      form.append("file", new Blob([bytes as Uint8Array<ArrayBuffer>]), name);
      const res = await api("/files", { method: "POST", body: form });
      if (res.status !== 201) throw new Error(`upload ${res.status}: ${await res.text()}`);
      return (await res.json()).data.resourceSeq as number;
    };
    const get = async (path: string) => {
      const res = await api(path);
      const body = await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body.byteLength}`);
    };

    // Thumbnails over HTTP.
    const thumbUncached: number[] = [];
    let last = 0;
    for (let i = 0; i < REPS; i++) {
      last = await upload(`photo-${i}.jpg`, variant(jpeg, i));
      thumbUncached.push(await timeIt(() => get(`/files/${last}/thumbnail?size=256`)));
    }
    const thumbCached: number[] = [];
    for (let i = 0; i < REPS * 2; i++) {
      thumbCached.push(await timeIt(() => get(`/files/${last}/thumbnail?size=256`)));
    }
    const thumbnails = {
      uncachedP50: ms(median(thumbUncached)),
      cachedP50: ms(median(thumbCached)),
    };
    if (!json) console.log("thumbnail over HTTP, ms:", thumbnails);

    // Office previews over HTTP: the first one also starts LibreOffice; measured apart.
    const sources = await Promise.all(
      ["ko-KR", "en-US"].flatMap((lang) =>
        ["docx", "xlsx", "pptx"].map(async (ext) => ({
          name: `${lang}-blank.${ext}`,
          bytes: await Deno.readFile(new URL(`${lang}/blank.${ext}`, templates)),
        }))
      ),
    );
    const warm = await upload("warm.docx", zipVariant(sources[0].bytes));
    const firstStart = await timeIt(() => get(`/files/${warm}/view`));
    let healthRunning = true;
    const health: number[] = [];
    const healthLoop = (async () => {
      while (healthRunning) {
        health.push(
          await timeIt(async () => {
            await (await fetch(`${server.url}/healthz`)).arrayBuffer();
          }),
        );
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const officeUncached: number[] = [];
    const converted: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const batch = await Promise.all(
        [0, 1, 2, 3].map((k) => {
          const s = sources[(round * 4 + k) % sources.length];
          return upload(s.name, zipVariant(s.bytes));
        }),
      );
      const times = await Promise.all(batch.map((rs) => timeIt(() => get(`/files/${rs}/view`))));
      officeUncached.push(...times);
      converted.push(...batch);
    }
    healthRunning = false;
    await healthLoop;
    const officeCached: number[] = [];
    for (let i = 0; i < REPS * 2; i++) {
      officeCached.push(
        await timeIt(() => get(`/files/${converted[i % converted.length]}/view`)),
      );
    }
    const office = {
      firstConversionWithLibreOfficeStart: ms(firstStart),
      uncachedP50FourAtOnce: ms(median(officeUncached)),
      uncachedMax: ms(Math.max(...officeUncached)),
      cachedP50: ms(median(officeCached)),
      healthzP99WhileConverting: ms(pct(health, 0.99)),
      healthzSamples: health.length,
    };
    if (json) console.log(JSON.stringify({ libraries: lib, thumbnails, office }));
    else console.log("office preview over HTTP, ms:", office);
  } finally {
    await server.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

await main();
