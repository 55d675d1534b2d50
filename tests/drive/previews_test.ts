/**
 * Rendered previews over HTTP: `view` of an office document is a PDF made by LibreOffice
 * (checked with poppler's `pdfinfo`), kept per content and served from the cache the second
 * time; a damaged document is 422 PREVIEW_001; thumbnails have the size asked for (read from
 * the WebP header); a non-image thumbnail is 422 PREVIEW_003; the blob sweep keeps renditions
 * of live content and frees the others. Needs soffice, python3-uno and pdfinfo (.ci/run
 * installs them); without them (and without CI) the office tests are skipped.
 */
import assert from "node:assert/strict";
import sharp from "sharp";
import { renditionKey } from "../../kv/keys.ts";
import { sweepOrphanBlobs } from "../../kv/tree/blob_sweep.ts";
import { type TestServer, withServer } from "../helpers/server.ts";
import { type ApiUser, newApiUser } from "../helpers/api.ts";
import { assertErrorAnswer } from "../helpers/http.ts";

const TEMPLATES = new URL("../../static/templates/", import.meta.url);

async function hasTool(cmd: string, args: string[]): Promise<boolean> {
  try {
    return (await new Deno.Command(cmd, { args, stdout: "null", stderr: "null" }).output())
      .success;
  } catch {
    return false;
  }
}
const officeReady = await hasTool("/usr/bin/python3", ["-c", "import uno"]) &&
  await hasTool("pdfinfo", ["-v"]);
const ignoreOffice = !officeReady && !Deno.env.get("CI");

/** Pages of a PDF, by poppler's pdfinfo (which fails on anything that is not a PDF). */
async function pdfPages(pdf: Uint8Array): Promise<number> {
  const path = await Deno.makeTempFile({ suffix: ".pdf" });
  try {
    await Deno.writeFile(path, pdf);
    const out = await new Deno.Command("pdfinfo", { args: [path] }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    return Number(/^Pages:\s+(\d+)/m.exec(new TextDecoder().decode(out.stdout))?.[1] ?? 0);
  } finally {
    await Deno.remove(path);
  }
}

/** Width and height from a WebP's header (VP8, VP8L or VP8X). */
function webpSize(b: Uint8Array): { width: number; height: number } {
  const tag = (at: number) => String.fromCharCode(...b.subarray(at, at + 4));
  assert.equal(tag(0), "RIFF");
  assert.equal(tag(8), "WEBP");
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  switch (tag(12)) {
    case "VP8 ":
      return { width: v.getUint16(26, true) & 0x3fff, height: v.getUint16(28, true) & 0x3fff };
    case "VP8L": {
      const bits = v.getUint32(21, true);
      return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
    }
    case "VP8X":
      return {
        width: (v.getUint32(24, true) & 0xffffff) + 1,
        height: (v.getUint32(27, true) & 0xffffff) + 1,
      };
  }
  throw new Error(`not a WebP chunk: ${tag(12)}`);
}

async function viewPdf(user: ApiUser, rs: number): Promise<Uint8Array> {
  const res = await user.fetch(`/files/${rs}/view`);
  const bytes = new Uint8Array(await res.arrayBuffer());
  assert.equal(res.status, 200, new TextDecoder().decode(bytes.subarray(0, 300)));
  assert.equal(res.headers.get("content-type"), "application/pdf");
  assert.match(res.headers.get("content-disposition")!, /^inline; filename=".*\.pdf"/);
  return bytes;
}

/**
 * A test that needs LibreOffice (skipped without it, unless CI): `fn` runs with alice on a
 * server whose LibreOffice workers are stopped at the end.
 */
function officeTest(name: string, fn: (server: TestServer, alice: ApiUser) => Promise<void>) {
  Deno.test({
    name,
    ignore: ignoreOffice,
    fn: () =>
      withServer(async (server) => {
        try {
          await fn(server, await newApiUser(server, "alice"));
        } finally {
          await server.deps.officeConverter.close();
        }
      }),
  });
}

officeTest(
  "view: every shipped template and an uploaded document become PDFs with pages, cached",
  async (server, alice) => {
    const names: string[] = [];
    for (const lang of ["ko-KR", "en-US"]) {
      for await (const entry of Deno.readDir(new URL(`${lang}/`, TEMPLATES))) {
        names.push(`${lang}/${entry.name}`);
      }
    }
    names.sort();
    assert.ok(names.length >= 8, names.join());
    for (const name of names) {
      // POST /documents stores exactly these files (tests/drive/documents_test.ts).
      const bytes = await Deno.readFile(new URL(name, TEMPLATES));
      const rs = await alice.newFile(name.replace("/", "-"), bytes);
      if (name.endsWith(".txt")) {
        // Text is its own preview: shown as text, never sent to LibreOffice.
        const res = await alice.fetch(`/files/${rs}/view`);
        assert.equal(res.headers.get("content-type"), "text/plain; charset=utf-8");
        assert.deepEqual(new Uint8Array(await res.arrayBuffer()), bytes);
        continue;
      }
      assert.ok((await pdfPages(await viewPdf(alice, rs))) >= 1, name);
    }

    // A document written here, uploaded through the API, with text on two pages.
    const rtf = "{\\rtf1\\ansi First page\\page Second page}";
    const uploaded = await alice.newFile("notes.rtf", rtf);
    const before = server.deps.officeConverter.conversions;
    const pdf = await viewPdf(alice, uploaded);
    assert.equal(await pdfPages(pdf), 2);
    assert.equal(server.deps.officeConverter.conversions, before + 1);

    // The second view is the cached rendition: the same bytes, no conversion.
    const again = await viewPdf(alice, uploaded);
    assert.deepEqual(again, pdf);
    assert.equal(server.deps.officeConverter.conversions, before + 1);
    const records = await Array.fromAsync(server.kv.list({ prefix: renditionKey() }));
    assert.equal(records.length, names.filter((n) => !n.endsWith(".txt")).length + 1);
  },
);

officeTest(
  "view: a damaged document is 422 PREVIEW_001, not a 500, and the server goes on",
  async (server, alice) => {
    const broken = await alice.newFile("broken.docx", "PK\x03\x04 this is no zip at all");
    await assertErrorAnswer(await alice.fetch(`/files/${broken}/view`), 422, "PREVIEW_001");
    assert.equal(
      (await Array.fromAsync(server.kv.list({ prefix: renditionKey() }))).length,
      0,
    );
    const good = await alice.newFile("ok.rtf", "{\\rtf1 fine}");
    assert.equal(await pdfPages(await viewPdf(alice, good)), 1);
  },
);

Deno.test("thumbnail: the size asked for, cached; a non-image is 422 PREVIEW_003", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const jpeg = await sharp({
      create: { width: 2000, height: 1500, channels: 3, background: { r: 10, g: 120, b: 200 } },
    }).jpeg().toBuffer();
    const rs = await alice.newFile("photo.jpg", new Uint8Array(jpeg));
    for (const [size, want] of [["256", [256, 192]], ["1024", [1024, 768]]] as const) {
      const res = await alice.fetch(`/files/${rs}/thumbnail?size=${size}`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "image/webp");
      const { width, height } = webpSize(new Uint8Array(await res.arrayBuffer()));
      assert.deepEqual([width, height], want);
    }
    const byDefault = await alice.fetch(`/files/${rs}/thumbnail`);
    const etag = byDefault.headers.get("etag")!;
    assert.deepEqual(webpSize(new Uint8Array(await byDefault.arrayBuffer())), {
      width: 256,
      height: 192,
    });
    const revalidated = await alice.fetch(`/files/${rs}/thumbnail`, {
      headers: { "if-none-match": etag },
    });
    assert.equal(revalidated.status, 304);
    await revalidated.body?.cancel();
    const kinds = (await Array.fromAsync(server.kv.list({ prefix: renditionKey() })))
      .map((e) => e.key[2]).sort();
    assert.deepEqual(kinds, ["thumb1024", "thumb256"]);

    const text = await alice.newFile("notes.md", "# not an image");
    await assertErrorAnswer(await alice.fetch(`/files/${text}/thumbnail`), 422, "PREVIEW_003");
    const fake = await alice.newFile("fake.png", "not really a png");
    await assertErrorAnswer(await alice.fetch(`/files/${fake}/thumbnail`), 422, "PREVIEW_003");
    await assertErrorAnswer(
      await alice.fetch(`/files/${rs}/thumbnail?size=300`),
      400,
      "REQUEST_001",
    );

    // Freed with the content: the sweep keeps renditions of live content and drops the rest.
    const renditions = () => Array.fromAsync(server.kv.list({ prefix: renditionKey() }));
    const kept = await sweepOrphanBlobs(server.deps, { minAgeMs: 0, dryRun: false });
    assert.equal(kept.removed, 0);
    assert.equal((await renditions()).length, 2);
    assert.equal((await alice.call("PATCH", `/files/${rs}/delete`)).status, 200);
    assert.equal((await alice.call("DELETE", `/trash/${rs}`)).status, 200);
    const blobsBefore = (await Array.fromAsync(server.blobs.list())).length;
    await sweepOrphanBlobs(server.deps, { minAgeMs: 0, dryRun: false });
    assert.equal((await renditions()).length, 0);
    assert.equal((await Array.fromAsync(server.blobs.list())).length, blobsBefore - 2);
  });
});

Deno.test("view without LibreOffice (DRIVE_PREVIEW_SOFFICE=off, as on Deno Deploy): the original bytes", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const bytes = await Deno.readFile(new URL("en-US/blank.docx", TEMPLATES));
    const rs = await alice.newFile("report.docx", bytes);
    const res = await alice.fetch(`/files/${rs}/view`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/octet-stream");
    assert.deepEqual(new Uint8Array(await res.arrayBuffer()), bytes);
    assert.equal(server.deps.officeConverter.conversions, 0);
  }, { env: { DRIVE_PREVIEW_SOFFICE: "off" } });
});
