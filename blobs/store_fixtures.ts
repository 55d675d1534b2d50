/**
 * Blob stores of either kind for the contract tests beside them (store_test.ts, staging_test.ts):
 * each over a KV file in a fresh temp directory, with more instances on the same files as other
 * processes have, and a count of what is left stored.
 */
import { openFsBlobStore } from "./fs.ts";
import { openKvBlobStore } from "./kv.ts";
import { type LeaseTiming, openWriteLeases } from "./leases.ts";
import type { BlobStore } from "./store.ts";
import { blobStoreKeys } from "../kv/keys.ts";
import { retryBusyCommits } from "../kv/db.ts";

type Kind = "fs" | "kv";

export interface Fixture {
  kind: Kind;
  store: BlobStore;
  /** The KV file and the blob directory (fs), for another store instance or process. */
  kvPath: string;
  dir: string;
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

/** A store of `kind` over a KV file in a fresh temp directory (blobs under `<root>/blobs`). */
export async function fixture(kind: Kind, timing?: LeaseTiming): Promise<Fixture> {
  const root = await Deno.makeTempDir({ prefix: `blob-contract-${kind}-` });
  const kvPath = `${root}/drive.kv`;
  const dir = `${root}/blobs`;
  const handles: Deno.Kv[] = [];
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
        : openKvBlobStore(kv, blobStoreKeys, leases),
    };
  };
  const { kv, store } = await open(timing);
  return {
    kind,
    store,
    kvPath,
    dir,
    kv,
    async leftovers() {
      if (kind === "fs") return await countFiles(dir);
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

/** Registers `fn` as one test per kind, `<title> [fs]` and `<title> [kv]`, on a fresh store. */
export function testEachKind(title: string, fn: (f: Fixture) => Promise<void>): void {
  for (const kind of ["fs", "kv"] as const) {
    Deno.test(`${title} [${kind}]`, async () => {
      const f = await fixture(kind);
      try {
        await fn(f);
      } finally {
        await f.close();
      }
    });
  }
}
