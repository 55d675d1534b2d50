/**
 * Blob stores of every kind for the contract tests beside them (store_test.ts, staging_test.ts),
 * as rclone's fstests run every backend through one contract: each over a KV file in a fresh
 * temp directory (s3: and a fresh bucket on a real SeaweedFS, tests/helpers/s3_server.ts), with
 * more instances on the same files as other processes have, and a count of what is left stored.
 */
import { openFsBlobStore } from "./fs.ts";
import { openKvBlobStore } from "./kv.ts";
import { openS3BlobStore } from "./s3.ts";
import { openS3Client, type S3Settings } from "./s3_client.ts";
import { type LeaseTiming, openWriteLeases } from "./leases.ts";
import type { BlobStore } from "./store.ts";
import { blobStoreKeys, s3StoreKeys } from "../kv/keys.ts";
import { retryBusyCommits } from "../kv/db.ts";
import { sharedS3Server } from "../tests/helpers/s3_server.ts";

export type Kind = "fs" | "kv" | "s3";
export const KINDS: readonly Kind[] = ["fs", "kv", "s3"];

export interface Fixture {
  kind: Kind;
  store: BlobStore;
  /** The KV file and the blob directory (fs), for another store instance or process. */
  kvPath: string;
  dir: string;
  /** The bucket and its credentials (s3). */
  s3?: S3Settings;
  /** The store's own KV handle, for looking at its leases. */
  kv: Deno.Kv;
  /**
   * How many stored things (files, KV entries) exist, temp files and pending markers included
   * (not the writer leases, which outlive writes on purpose).
   */
  leftovers(): Promise<number>;
  /** Another instance of the store on the same KV file and directory, as another process has. */
  another(timing?: LeaseTiming): Promise<BlobStore>;
  close(): Promise<void>;
}

async function countFiles(dir: string): Promise<number> {
  let n = 0;
  for await (const e of Deno.readDir(dir)) {
    n += e.isDirectory ? await countFiles(`${dir}/${e.name}`) : 1;
  }
  return n;
}

async function countEntries(kv: Deno.Kv, families: string[]): Promise<number> {
  let n = 0;
  for (const family of families) for await (const _ of kv.list({ prefix: [family] })) n++;
  return n;
}

/** Multipart uploads begun in the bucket and neither completed nor aborted. */
async function unfinishedUploads(s3: S3Settings): Promise<number> {
  const server = await sharedS3Server();
  const res = await server.client.fetch(`${s3.endpoint}/${s3.bucket}?uploads`);
  const xml = await res.text();
  if (!res.ok) throw new Error(`list multipart uploads: ${res.status} ${xml}`);
  return xml.split("<Upload>").length - 1;
}

/** A store of `kind` over a KV file in a fresh temp directory (blobs under `<root>/blobs`). */
export async function fixture(kind: Kind, timing?: LeaseTiming): Promise<Fixture> {
  const root = await Deno.makeTempDir({ prefix: `blob-contract-${kind}-` });
  const kvPath = `${root}/drive.kv`;
  const dir = `${root}/blobs`;
  const handles: Deno.Kv[] = [];
  let s3: S3Settings | undefined;
  if (kind === "s3") {
    const server = await sharedS3Server();
    s3 = {
      endpoint: server.endpoint,
      bucket: await server.newBucket(),
      region: "us-east-1",
      pathStyle: true,
      accessKeyId: server.accessKeyId,
      secretAccessKey: server.secretAccessKey,
    };
  }
  const open = async (timing?: LeaseTiming) => {
    // Several handles on one file contend for SQLite's writer as processes do; the service's
    // commits wait out "database is locked" (kv/db.ts), so the stores here must too.
    const kv = retryBusyCommits(await Deno.openKv(kvPath));
    handles.push(kv);
    const leases = openWriteLeases(kv, blobStoreKeys.lease, kind, timing);
    return {
      kv,
      store: kind === "fs"
        ? await openFsBlobStore(dir, leases)
        : kind === "s3"
        ? openS3BlobStore(kv, openS3Client(s3!), s3StoreKeys, leases)
        : openKvBlobStore(kv, blobStoreKeys, leases),
    };
  };
  const { kv, store } = await open(timing);
  return {
    kind,
    store,
    kvPath,
    dir,
    s3,
    kv,
    async leftovers() {
      if (kind === "fs") return await countFiles(dir);
      if (kind === "s3") {
        let objects = 0;
        for await (const _ of openS3Client(s3!).list("")) objects++;
        return objects + await unfinishedUploads(s3!) +
          await countEntries(kv, ["s3_pending", "s3_stage", "s3_stage_chunk"]);
      }
      return await countEntries(kv, ["blob", "blob_chunk", "blob_pending"]);
    },
    async another(timing?: LeaseTiming) {
      return (await open(timing)).store;
    },
    async close() {
      for (const h of handles) h.close();
      await Deno.remove(root, { recursive: true });
    },
  };
}

/**
 * Registers `fn` as one test per kind, `<title> [fs]`, `[kv]` and `[s3]`, on a fresh store. The
 * s3 tests share one server for the file (started by the first), whose process and connections
 * outlive each test: the op and resource sanitizers are off for them.
 */
export function testEachKind(title: string, fn: (f: Fixture) => Promise<void>): void {
  for (const kind of KINDS) {
    const shared = kind === "s3" ? { sanitizeOps: false, sanitizeResources: false } : {};
    Deno.test({ name: `${title} [${kind}]`, ...shared }, async () => {
      const f = await fixture(kind);
      try {
        await fn(f);
      } finally {
        await f.close();
      }
    });
  }
}
