/**
 * A full disk is an error a write reports, never a crash: a file write failing with ENOSPC while
 * the next piece of a slow body is awaited used to be an unobserved rejection, which ends a Deno
 * process ("Uncaught (in promise) Error: No space left on device" at blobs/fs.ts). And the
 * reserve kept for KV (DRIVE_KV_RESERVE_BYTES): a store refuses bytes that would eat into it, with
 * OutOfSpaceError and nothing left behind, on both stores and for staged (tus) bytes too.
 */
import assert from "node:assert/strict";
import { openFsBlobStore } from "./fs.ts";
import { openKvBlobStore } from "./kv.ts";
import { openWriteLeases } from "./leases.ts";
import { type BlobStore, isOutOfSpace, OutOfSpaceError, StageAppendError } from "./store.ts";
import { spaceGuard } from "./reserve.ts";
import { blobStoreKeys } from "../kv/keys.ts";
import { testBytes } from "../tests/helpers/bytes.ts";

const MiB = 1024 * 1024;

const enospc = () =>
  Object.assign(new Error("No space left on device (os error 28)"), { code: "ENOSPC" });

/** `pieces` chunks of `size` bytes, with a pause before each after the first (a slow client). */
async function* slowBody(pieces: number, size: number) {
  for (let i = 0; i < pieces; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 50));
    yield testBytes(size, i);
  }
}

async function countFiles(dir: string): Promise<number> {
  let n = 0;
  for await (const e of Deno.readDir(dir)) {
    n += e.isDirectory ? await countFiles(`${dir}/${e.name}`) : 1;
  }
  return n;
}

/** An fs store in a temp directory with `opts`, handed to `fn`; everything removed after. */
async function withFsStore(
  opts: Parameters<typeof openFsBlobStore>[2],
  fn: (store: BlobStore, dir: string) => Promise<void>,
) {
  const root = await Deno.makeTempDir({ prefix: "blob-full-" });
  const kv = await Deno.openKv(`${root}/drive.kv`);
  try {
    const store = await openFsBlobStore(
      `${root}/blobs`,
      openWriteLeases(kv, blobStoreKeys.lease, "fs"),
      opts,
    );
    await fn(store, `${root}/blobs`);
  } finally {
    kv.close();
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("fs store: ENOSPC during a slow body rejects the write, and nothing goes unobserved", async () => {
  await withFsStore({
    // The disk fills between pieces: every write fails as the kernel says it.
    openFile: async (path, options) => {
      const file = await Deno.open(path, options);
      return { write: () => Promise.reject(enospc()), close: () => file.close() };
    },
  }, async (store, dir) => {
    // Before the fix, the failed write of piece 1 rejected while piece 2 was awaited: the
    // unobserved rejection failed this test (and ended the server process).
    await assert.rejects(store.write(slowBody(4, MiB)), OutOfSpaceError);
    assert.equal(await countFiles(dir), 0, "the temp file is removed");
  });
});

/** Bytes in the files under `dir`: what a disk of its own would have used. */
async function usedBytes(dir: string): Promise<number> {
  let n = 0;
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    n += e.isDirectory ? await usedBytes(path) : (await Deno.stat(path)).size;
  }
  return n;
}

Deno.test("fs store: a write that would eat into the KV reserve fails with nothing kept", async () => {
  // A 14 MiB disk holding only the store, 8 MiB of it kept for KV.
  const disk = { size: 14 * MiB, dir: "" };
  const freeBytes = async () => disk.size - await usedBytes(disk.dir);
  await withFsStore({ reserveBytes: 8 * MiB, freeBytes }, async (store, dir) => {
    disk.dir = dir;
    const small = await store.write(slowBody(1, 1000));
    assert.equal(small.size, 1000);
    await assert.rejects(store.write(slowBody(7, MiB)), OutOfSpaceError);
    assert.equal(await countFiles(dir), 1, "only the first blob");
    assert.equal((await store.write(slowBody(5, MiB))).size, 5 * MiB, "what fits is stored");
    await assert.rejects(store.write(slowBody(1, MiB)), OutOfSpaceError);
    // Under the reserve already: not even a copy of 1000 bytes, nor a new stage.
    disk.size -= MiB;
    await assert.rejects(store.copy(small.blobId), OutOfSpaceError);
    await assert.rejects(store.stage(Date.now() + 60_000), OutOfSpaceError);
    // An append stops at the step that crosses the reserve, keeping what it stored.
    disk.size += 4 * MiB;
    const stageId = await store.stage(Date.now() + 60_000);
    const err = await store.appendStaged(stageId, 0, slowBody(6, MiB)).then(() => null, (e) => e);
    assert.ok(err instanceof StageAppendError, String(err));
    assert.ok(isOutOfSpace(err.cause), String(err.cause));
    assert.ok(err.stored <= 4 * MiB, `${err.stored} bytes staged`);
    await store.discardStaged(stageId);
    // Space freed: writes work again.
    disk.size += 100 * MiB;
    assert.equal((await store.write(slowBody(3, MiB))).size, 3 * MiB);
  });
});

Deno.test("kv store: bytes past the reserve are refused, chunks and marker removed", async () => {
  const root = await Deno.makeTempDir({ prefix: "blob-full-kv-" });
  const kv = await Deno.openKv(`${root}/drive.kv`);
  const count = async (family: string) => {
    let n = 0;
    for await (const _ of kv.list({ prefix: [family] })) n++;
    return n;
  };
  try {
    // Free space as the stored chunks leave it on a 12 MiB disk, 8 MiB kept for KV.
    const freeBytes = async () => {
      let used = 0;
      for await (const e of kv.list<Uint8Array>({ prefix: ["blob_chunk"] })) {
        used += e.value.byteLength;
      }
      return 12 * MiB - used;
    };
    const store = openKvBlobStore(kv, blobStoreKeys, undefined, {
      room: spaceGuard(root, 8 * MiB, freeBytes),
    });
    assert.equal((await store.write(slowBody(1, 1000))).size, 1000);
    await assert.rejects(store.write(slowBody(6, MiB)), OutOfSpaceError);
    assert.equal(await count("blob_chunk"), 1, "the first blob's one chunk only");
    assert.equal(await count("blob_pending"), 0);
    assert.equal((await store.write(slowBody(2, MiB))).size, 2 * MiB, "what fits is stored");
  } finally {
    kv.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("isOutOfSpace: the file system's and SQLite's words for a full disk, and nothing else", () => {
  assert.ok(isOutOfSpace(enospc()));
  assert.ok(isOutOfSpace(new Error("database or disk is full")));
  assert.ok(isOutOfSpace(new StageAppendError(5, enospc())));
  assert.ok(isOutOfSpace(new OutOfSpaceError()));
  assert.ok(!isOutOfSpace(new Error("database is locked")));
  assert.ok(!isOutOfSpace(new Deno.errors.NotFound("gone")));
  assert.ok(!isOutOfSpace(null));
});

Deno.test("without the right to look at free space (NotCapable) the reserve is skipped, other failures stand", async () => {
  const denied = () =>
    Promise.reject(new Deno.errors.NotCapable('Requires sys access to "statfs"'));
  await spaceGuard("/data", 1024, denied)(4096);
  const broken = () => Promise.reject(new Error("EIO"));
  await assert.rejects(spaceGuard("/data", 1024, broken)(4096), /EIO/);
});
