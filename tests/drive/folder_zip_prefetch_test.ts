/**
 * The folder ZIP's look-ahead (api/external/folder_zip.ts): many files come out in walk order with
 * their exact bytes while reads run ahead and finish out of order, never more of them at once than
 * the bound; and a blob that fails, before or after its first bytes were sent, cuts the response
 * at that entry instead of letting a complete-looking archive through.
 */
import assert from "node:assert/strict";
import {
  LOOKAHEAD_ENTRIES,
  PREFETCH_FILE_BYTES,
  PREFETCH_READS,
} from "../../api/external/folder_zip.ts";
import type { BlobStore } from "../../blobs/store.ts";
import { getResource } from "../../kv/tree/resources.ts";
import { type TestServer, withServer } from "../helpers/server.ts";
import { type ApiUser, newApiUser } from "../helpers/api.ts";
import { testBytes } from "../helpers/bytes.ts";
import { readZip } from "../helpers/zip_reader.ts";

async function zipResponse(user: ApiUser, server: TestServer, rs: number): Promise<Response> {
  const link = await user.call("GET", `/folders/${rs}/download-token`);
  assert.equal(link.status, 200, JSON.stringify(link.body));
  const res = await fetch(`${server.url}${link.body.data.linkUrl}`);
  assert.equal(res.status, 200);
  return res;
}

/**
 * Wraps the server's blob reads: `hook` sees each blob id (and may delay or replace the stream);
 * `inFlight` counts reads called and not yet read to their end. (The kv store's plain streams
 * are covered by tests/drive/folder_zip_test.ts.)
 */
function watchReads(
  blobs: BlobStore,
  hook: (blobId: string, n: number, stream: ReadableStream<Uint8Array>) =>
    | ReadableStream<Uint8Array>
    | Promise<ReadableStream<Uint8Array>>,
) {
  const original = blobs.read.bind(blobs);
  const stats = { calls: 0, inFlight: 0, maxInFlight: 0 };
  blobs.read = async (blobId, range) => {
    const n = stats.calls++;
    stats.maxInFlight = Math.max(stats.maxInFlight, ++stats.inFlight);
    let open = true;
    const finish = () => {
      if (open) stats.inFlight--;
      open = false;
    };
    const reader = (await hook(blobId, n, await original(blobId, range))).getReader();
    // A byte stream, as fs blobs are, so the service reads it into buffers of its own choosing.
    return new ReadableStream({
      type: "bytes",
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            finish();
            controller.close();
            // A read waiting with its own buffer is told the end this way.
            controller.byobRequest?.respond(0);
          } else controller.enqueue(value as Uint8Array<ArrayBuffer>);
        } catch (err) {
          finish();
          controller.error(err);
        }
      },
      cancel(reason) {
        finish();
        return reader.cancel(reason);
      },
    });
  };
  return { stats, restore: () => (blobs.read = original) };
}

/** Bytes of `body` until it ends or fails; `failed` tells which. */
async function readUntilCut(body: ReadableStream<Uint8Array>) {
  const parts: Uint8Array[] = [];
  let failed = false;
  try {
    for await (const chunk of body) parts.push(chunk);
  } catch {
    failed = true;
  }
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.byteLength;
  }
  return { bytes, failed };
}

const latin1 = (bytes: Uint8Array) => new TextDecoder("latin1").decode(bytes);

Deno.test("folder ZIP of many files: walk order and exact bytes while reads run ahead, bounded", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const top = await alice.newFolder("many");
    const expected: string[] = ["many/"];
    const contents = new Map<string, Uint8Array>();
    // Sizes around the prefetch limit: empty, small, exactly the limit, and streamed ones.
    const sizeOf = (i: number) =>
      [0, 10, 1000, 70_000, PREFETCH_FILE_BYTES, PREFETCH_FILE_BYTES + 1, 600_000][i % 7];
    const addFiles = async (folder: number, path: string, count: number, seed: number) => {
      for (let i = 0; i < count; i++) {
        const name = `file-${String(i).padStart(3, "0")}.bin`;
        const bytes = testBytes(sizeOf(i + seed), seed * 1000 + i + 1);
        await alice.newFile(name, bytes, folder);
        contents.set(`${path}/${name}`, bytes);
      }
    };
    // In name order, as the walk goes: the folders "a-…" and "b-…" come before the files.
    for (const sub of ["a-sub", "b-sub"]) {
      const rs = await alice.newFolder(sub, top);
      expected.push(`many/${sub}/`);
      await addFiles(rs, `many/${sub}`, 20, sub === "a-sub" ? 1 : 2);
      for (let i = 0; i < 20; i++) {
        expected.push(`many/${sub}/file-${String(i).padStart(3, "0")}.bin`);
      }
    }
    await addFiles(top, "many", 60, 3);
    for (let i = 0; i < 60; i++) expected.push(`many/file-${String(i).padStart(3, "0")}.bin`);

    // Every other read answers late, so reads finish out of the order they started in.
    const watch = watchReads(server.blobs, async (_id, n, stream) => {
      if (n % 2 === 0) await new Promise((r) => setTimeout(r, 5));
      return stream;
    });
    try {
      const res = await zipResponse(alice, server, top);
      const body = new Uint8Array(await res.arrayBuffer());
      assert.equal(body.byteLength, Number(res.headers.get("content-length")));
      const zip = readZip(body);
      assert.deepEqual(zip.entries.map((e) => e.name), expected);
      for (const [path, bytes] of contents) assert.deepEqual(zip.get(path).data(), bytes, path);
      assert.equal(watch.stats.calls, contents.size);
      // The look-ahead did read ahead, and never more at once than its bound (plus the one file
      // streaming at its turn).
      assert.ok(watch.stats.maxInFlight > 1, `at most ${watch.stats.maxInFlight} read at once`);
      assert.ok(
        watch.stats.maxInFlight <= PREFETCH_READS + 1,
        `${watch.stats.maxInFlight} reads at once`,
      );
      assert.equal(watch.stats.inFlight, 0);
    } finally {
      watch.restore();
    }
    assert.ok(
      LOOKAHEAD_ENTRIES * PREFETCH_FILE_BYTES <= 8 * 1024 * 1024,
      "look-ahead within 8 MiB",
    );
  });
});

Deno.test("folder ZIP: a blob that fails cuts the archive at its entry, read ahead or streamed", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    for (const failing of ["small", "big"] as const) {
      const top = await alice.newFolder(`cut-${failing}`);
      const names: string[] = [];
      let failingRs = 0;
      for (let i = 0; i < 40; i++) {
        const name = `f-${String(i).padStart(2, "0")}.bin`;
        const size = i === 20 && failing === "big" ? PREFETCH_FILE_BYTES * 3 : 5000;
        const rs = await alice.newFile(name, testBytes(size, i + 1), top);
        names.push(name);
        if (i === 20) failingRs = rs;
      }
      const failingBlob = (await getResource(server.kv, failingRs))!.blobId!;
      // The failing blob gives its first bytes, then an I/O error.
      const watch = watchReads(server.blobs, (blobId, _n, stream) => {
        if (blobId !== failingBlob) return stream;
        const reader = stream.getReader();
        return new ReadableStream<Uint8Array>({
          async start(controller) {
            const { value } = await reader.read();
            controller.enqueue(value!.slice(0, 1000));
            await reader.cancel();
            controller.error(new Error("disk read failed"));
          },
        });
      });
      try {
        const res = await zipResponse(alice, server, top);
        const length = Number(res.headers.get("content-length"));
        const { bytes, failed } = await readUntilCut(res.body!);
        assert.ok(failed, `${failing}: the body ended without an error`);
        assert.ok(bytes.byteLength < length, `${failing}: ${bytes.byteLength} of ${length} bytes`);
        const sent = latin1(bytes);
        for (const name of names.slice(0, 20)) assert.ok(sent.includes(`cut-${failing}/${name}`));
        for (const name of names.slice(21)) {
          assert.ok(!sent.includes(`cut-${failing}/${name}`), `${failing}: ${name} after the cut`);
        }
      } finally {
        watch.restore();
      }
      // The service goes on: the same folder zips whole once the blob reads again.
      const again = readZip(
        new Uint8Array(await (await zipResponse(alice, server, top)).arrayBuffer()),
      );
      assert.equal(again.entries.length, 41);
    }
  });
});
