/**
 * Backup and restore on `:memory:` KV (the verified scan): every value and key type round-trips,
 * blobs cross stores byte for byte, and bad input (a non-empty target, a truncated or foreign
 * file, a KV changing under the scan) is refused with its reason.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { openFsBlobStore } from "../../blobs/fs.ts";
import { openKvBlobStore } from "../../blobs/kv.ts";
import { openWriteLeases } from "../../blobs/leases.ts";
import { openS3BlobStore } from "../../blobs/s3.ts";
import { openS3Client } from "../../blobs/s3_client.ts";
import { s3Settings } from "../../config/storage.ts";
import { sharedS3Server } from "../../tests/helpers/s3_server.ts";
import type { BlobStore } from "../../blobs/store.ts";
import { readConfig } from "../../config.ts";
import { createDeps, type Deps } from "../deps.ts";
import { blobStoreKeys, lockKey, restoreMarkerKey, s3StoreKeys } from "../keys.ts";
import { domainTest, newFile, newFolder, newShare, newUser } from "../testing.ts";
import { isSkippedKey, REPLACEABLE_ON_TARGET } from "./format.ts";
import { restoreBackup, type RestoreMarker } from "./restore.ts";
import { BackupError } from "./format.ts";
import { writeBackup } from "./write.ts";
import { concat } from "../../tests/helpers/http.ts";

/** A sink that keeps what was written, and the bytes as a stream again. */
function memorySink() {
  const chunks: Uint8Array[] = [];
  return {
    stream: new WritableStream<Uint8Array>({ write: (c) => void chunks.push(c.slice()) }),
    bytes: (): Uint8Array => concat(chunks),
  };
}

const streamOf = (bytes: Uint8Array) => ReadableStream.from([bytes]);

/** An empty target on a fresh `:memory:` KV with the given blob store. */
async function emptyTarget(kind: "fs" | "kv" | "s3"): Promise<Deps & { done(): Promise<void> }> {
  const kv = await Deno.openKv(":memory:");
  const dir = await Deno.makeTempDir({ prefix: "restore-target-" });
  // s3: a fresh bucket on the file's one SeaweedFS (tests/helpers/s3_server.ts).
  const s3 = kind === "s3" ? await sharedS3Server() : null;
  const config = readConfig({
    DRIVE_KV: ":memory:",
    DRIVE_BLOB_STORE: kind,
    DRIVE_DATA_DIR: dir,
    ...(s3 ? s3.env(await s3.newBucket()) : {}),
  });
  const blobs: BlobStore = kind === "fs"
    ? await openFsBlobStore(`${dir}/blobs`, openWriteLeases(kv, blobStoreKeys.lease, "fs"))
    : kind === "s3"
    ? openS3BlobStore(
      kv,
      openS3Client(await s3Settings(config)),
      s3StoreKeys,
      openWriteLeases(kv, blobStoreKeys.lease, "s3"),
    )
    : openKvBlobStore(kv, blobStoreKeys);
  return {
    ...createDeps(config, { kv, blobs }),
    async done() {
      kv.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

async function sha256Of(blobs: BlobStore, blobId: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of await blobs.read(blobId)) hash.update(chunk);
  return hash.digest("hex");
}

/** Every entry outside the blob store's own families, blob ids replaced by their content hash. */
async function comparableState(d: Deps): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const e of d.kv.list({ prefix: [] })) {
    if (isSkippedKey(e.key)) continue;
    const value = e.value as Record<string, unknown> | null;
    if (value && typeof value === "object" && typeof value.blobId === "string") {
      out.push([e.key, { ...value, blobId: await sha256Of(d.blobs, value.blobId) }]);
    } else {
      out.push([e.key, e.value]);
    }
  }
  return out;
}

const TYPED_KEY: Deno.KvKey = ["backup_test", "s", 1.5, 7n, true, new Uint8Array([0, 255, 0])];
const TYPED_VALUE = {
  bytes: new Uint8Array([0, 1, 2, 255]),
  big: 2n ** 70n,
  date: new Date(1_700_000_000_000),
  map: new Map<string, number[]>([["a", [1, 2]]]),
  nested: { list: [null, "x", -0, Infinity] },
};

async function seed(d: Deps) {
  const alice = await newUser(d, "alice");
  const bob = await newUser(d, "bob");
  const folder = await newFolder(d, alice, "Reports");
  const big = new Uint8Array(200_000).map((_, i) => (i * 31) % 251);
  await newFile(d, alice, "q1.bin", big, folder.rs);
  await newFile(d, alice, "empty.txt", new Uint8Array(0));
  await newShare(d, alice, folder, {
    st: "SPECIFIC_USERS",
    ts: [{ us: bob.userSeq, cv: true, cd: true }],
  });
  await d.kv.set(TYPED_KEY, TYPED_VALUE);
  await d.kv.atomic().sum(["backup_test", "counter"], 41n).sum(["backup_test", "counter"], 1n)
    .commit();
  await d.kv.set(["backup_test", "raw"], new Uint8Array([9, 8, 7]));
}

for (const target of ["kv", "fs"] as const) {
  domainTest(`a kv-store backup restores into a ${target} store exactly`, async (d) => {
    await seed(d);
    const sink = memorySink();
    const manifest = await writeBackup(d, sink.stream);
    assert.equal(manifest.blobs, 2);
    assert.equal(manifest.blobBytes, 200_000);
    const t = await emptyTarget(target);
    try {
      const summary = await restoreBackup(t, streamOf(sink.bytes()));
      assert.equal(summary.blobs, 2);
      assert.equal(summary.kvEntries, manifest.kvEntries);
      assert.deepEqual(await comparableState(t), await comparableState(d));
      assert.deepEqual((await t.kv.get(TYPED_KEY)).value, TYPED_VALUE);
      const counter = (await t.kv.get<Deno.KvU64>(["backup_test", "counter"])).value;
      assert.ok(counter instanceof Deno.KvU64);
      assert.equal(counter.value, 42n);
      // The counter stays a counter: KV sums onto it.
      await t.kv.atomic().sum(["backup_test", "counter"], 1n).commit();
      assert.deepEqual((await t.kv.get(["backup_test", "raw"])).value, new Uint8Array([9, 8, 7]));
      // The kv store's chunks are not in the KV part: only logical blobs travel.
      assert.ok(manifest.kvEntries < (await countAll(d.kv)) - 2);
    } finally {
      await t.done();
    }
  });
}

// The s3 store across stores: kv -> s3, then that s3 store's own backup -> fs. One SeaweedFS for
// the file outlives the test, so the op and resource sanitizers are off.
Deno.test({
  name: "a kv-store backup restores into an s3 store exactly, and its backup into an fs store",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const kv = await Deno.openKv(":memory:");
  const source = createDeps(readConfig({ DRIVE_KV: ":memory:", DRIVE_BLOB_STORE: "kv" }), {
    kv,
    blobs: openKvBlobStore(kv, blobStoreKeys),
  });
  const onS3 = await emptyTarget("s3");
  const onFs = await emptyTarget("fs");
  try {
    await seed(source);
    const first = memorySink();
    await writeBackup(source, first.stream);
    assert.equal((await restoreBackup(onS3, streamOf(first.bytes()))).blobs, 2);
    assert.equal(onS3.blobs.kind, "s3");
    assert.deepEqual(await comparableState(onS3), await comparableState(source));
    const second = memorySink();
    const manifest = await writeBackup(onS3, second.stream);
    assert.equal(manifest.blobs, 2);
    assert.equal(manifest.blobBytes, 200_000);
    assert.equal((await restoreBackup(onFs, streamOf(second.bytes()))).blobs, 2);
    assert.deepEqual(await comparableState(onFs), await comparableState(source));
  } finally {
    await onFs.done();
    await onS3.done();
    kv.close();
  }
});

async function countAll(kv: Deno.Kv): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix: [] })) n++;
  return n;
}

/** Restores a backup of `d` (seeded) into a kv target holding `entry`, which must refuse it. */
async function restoreOverData(d: Deps, entry: Deno.KvKey): Promise<unknown> {
  await seed(d);
  const sink = memorySink();
  await writeBackup(d, sink.stream);
  const t = await emptyTarget("kv");
  try {
    await t.kv.set(entry, { seq: 1 });
    const refusal = await restoreBackup(t, streamOf(sink.bytes())).then(
      () => assert.fail("restored over data"),
      (err) => err,
    );
    assert.equal(await countAll(t.kv), 1, "nothing was written");
    return refusal;
  } finally {
    await t.done();
  }
}

domainTest("restore refuses a target that holds data", async (d) => {
  const err = await restoreOverData(d, ["user", 1]);
  assert.ok(err instanceof BackupError && err.reason === "target-not-empty", String(err));
});

domainTest("the refusal of a target holding data names its key family in a sentence", async (d) => {
  // It said `a "adapter" entry` (bug 13).
  const err = await restoreOverData(d, ["adapter", "drive-host"]);
  assert.equal(
    (err as Error).message,
    'the target KV already holds data (entries under "adapter"); restore only into an empty ' +
      "data directory or KV",
  );
});

domainTest("restore refuses a truncated backup and a file that is not one", async (d) => {
  await seed(d);
  const sink = memorySink();
  await writeBackup(d, sink.stream);
  const bytes = sink.bytes();
  // Cut inside the end: the manifest (and the tar's end blocks) are missing.
  for (const input of [bytes.subarray(0, bytes.byteLength - 2048), new Uint8Array(4096).fill(7)]) {
    const t = await emptyTarget("kv");
    try {
      await assert.rejects(
        restoreBackup(t, streamOf(input)),
        (err) => err instanceof BackupError && err.reason === "invalid-file",
      );
    } finally {
      await t.done();
    }
  }
});

domainTest("a scan that sees the KV change fails instead of writing a torn backup", async (d) => {
  await seed(d);
  const sink = memorySink();
  await assert.rejects(
    writeBackup(d, sink.stream, {
      afterSnapshot: () => d.kv.set(["backup_test", "late"], 1).then(() => {}),
    }),
    (err) => err instanceof BackupError && err.reason === "inconsistent",
  );
});

domainTest("expired entries are left out, live ones keep their expiry", async (d) => {
  await seed(d);
  const past = { rs: 1, owner: "x", source: "office", holder: "1", lockedAt: 0, expiresAt: 1 };
  const future = { ...past, rs: 2, expiresAt: Date.now() + 3_600_000 };
  await d.kv.set(lockKey(1), past);
  await d.kv.set(lockKey(2), future);
  const sink = memorySink();
  await writeBackup(d, sink.stream);
  const t = await emptyTarget("kv");
  try {
    await restoreBackup(t, streamOf(sink.bytes()));
    assert.equal((await t.kv.get(lockKey(1))).value, null);
    assert.deepEqual((await t.kv.get(lockKey(2))).value, future);
  } finally {
    await t.done();
  }
});

/** The target's entries outside the families a fresh target holds anyway, and its blobs. */
async function leftovers(t: Deps): Promise<{ entries: unknown[]; blobs: string[] }> {
  const entries: unknown[] = [];
  for await (const e of t.kv.list({ prefix: [] })) {
    if (!REPLACEABLE_ON_TARGET.has(e.key[0])) entries.push(e.key);
  }
  const blobs = (await Array.fromAsync(t.blobs.list())).map((b) => b.blobId);
  return { entries, blobs };
}

for (const store of ["fs", "kv"] as const) {
  domainTest(
    `a restore that fails half-way removes what it wrote (${store} store); a retry works`,
    async (d) => {
      await seed(d);
      const sink = memorySink();
      await writeBackup(d, sink.stream);
      const bytes = sink.bytes();
      const t = await emptyTarget(store);
      try {
        // Cut before the manifest: the blobs and KV batches were written when it fails.
        await assert.rejects(
          restoreBackup(t, streamOf(bytes.subarray(0, bytes.byteLength - 2048))),
          (err) => err instanceof BackupError && err.reason === "invalid-file",
        );
        assert.deepEqual(await leftovers(t), { entries: [], blobs: [] });
        // It was refused as not empty.
        await restoreBackup(t, streamOf(bytes));
        assert.deepEqual(await comparableState(t), await comparableState(d));
        assert.equal((await t.kv.get(restoreMarkerKey())).value, null);
      } finally {
        await t.done();
      }
    },
  );
}

domainTest(
  "what a killed restore left under its marker is cleared by the next restore",
  async (d) => {
    await seed(d);
    const sink = memorySink();
    await writeBackup(d, sink.stream);
    const t = await emptyTarget("fs");
    try {
      // A restore killed half-way: its marker, a blob and some entries, no cleanup.
      const marker: RestoreMarker = { startedAt: new Date().toISOString(), secretsKeyFile: null };
      await t.kv.set(restoreMarkerKey(), marker);
      await t.blobs.write(ReadableStream.from([new Uint8Array([1, 2, 3])]), { expectedSize: 3 });
      await t.kv.set(["user", 1], { seq: 1 });
      await restoreBackup(t, streamOf(sink.bytes()));
      assert.deepEqual(await comparableState(t), await comparableState(d));
      assert.equal((await Array.fromAsync(t.blobs.list())).length, 2, "the seeded blobs only");
      // Without a marker, data in the target is someone's: still refused.
      await assert.rejects(
        restoreBackup(t, streamOf(sink.bytes())),
        (err) => err instanceof BackupError && err.reason === "target-not-empty",
      );
    } finally {
      await t.done();
    }
  },
);
