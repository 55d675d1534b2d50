/**
 * Backup under load and restore across blob stores: a server process (main.ts) on a KV file
 * takes uploads and overwrites over HTTP while this process backs up the same KV file and blob
 * directory, as the admin CLI does. Overwrites delete the replaced blob at once, and the test
 * lets some land between the snapshot and the copying of bytes (`afterSnapshot`), so the backup
 * must hold the snapshot's blobs. The backup is then restored into a new data directory with
 * each blob store, a server is started on it, and everything is compared over HTTP: every file's
 * SHA-256 via download, folders, shares, the link, the pin, the old API key, the adapter (a
 * signed provider request with its old secret), and the lock.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { openStoresAndDeps } from "../../boot.ts";
import { readConfig } from "../../config.ts";
import { restoreBackup } from "../../kv/backup/restore.ts";
import { writeBackup } from "../../kv/backup/write.ts";
import type { Deps } from "../../kv/deps.ts";
import { ProviderHostClient } from "../../provider/host/client.ts";
import { ADMIN_TOKEN, AdminClient } from "../helpers/admin.ts";
import { ApiUser, shareFlags } from "../helpers/api.ts";
import { newTeam } from "../helpers/team.ts";
import { testBytes } from "../helpers/bytes.ts";
import { startMain } from "../helpers/process.ts";
import { newProviderAdapter } from "../helpers/provider.ts";
import type { TestServer } from "../helpers/server.ts";

type Store = "fs" | "kv";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** The stores of a data directory, opened as the admin CLI opens them (no server). */
async function openDeps(dataDir: string, store: Store): Promise<Deps> {
  const config = readConfig({
    DRIVE_DATA_DIR: dataDir,
    DRIVE_BLOB_STORE: store,
    DRIVE_ADMIN_TOKEN: ADMIN_TOKEN,
  });
  // Opened as a server opens them (boot.ts): the same KV handle, blob store and migrations.
  return await openStoresAndDeps(config);
}

function serverEnv(dataDir: string, store: Store) {
  return { DRIVE_DATA_DIR: dataDir, DRIVE_BLOB_STORE: store, DRIVE_ADMIN_TOKEN: ADMIN_TOKEN };
}

interface Item {
  resourceSeq: number;
  name: string;
  type: "FILE" | "FOLDER";
  sha256: string | null;
}

async function list(user: ApiUser, pfs?: number): Promise<Item[]> {
  const res = await user.call("GET", `/resources?ps=1000${pfs ? `&pfs=${pfs}` : ""}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.items;
}

async function download(user: ApiUser, rs: number): Promise<string> {
  const res = await user.fetch(`/files/${rs}/download`);
  assert.equal(res.status, 200);
  return sha256(new Uint8Array(await res.arrayBuffer()));
}

/** What the source holds before the load starts, and what the checks look for afterwards. */
interface Seeded {
  alice: ApiUser;
  bob: ApiUser;
  reports: number;
  docSha: string;
  linkToken: string;
  adapter: Awaited<ReturnType<typeof newProviderAdapter>>;
}

async function seed(url: string): Promise<Seeded> {
  const server = { url, admin: new AdminClient(url) } as unknown as TestServer;
  const [alice, bob] = await newTeam(server, "alice", "bob");
  const reports = await alice.newFolder("Reports");
  const doc = testBytes(300_000, 7);
  await alice.newFile("q1.docx", doc, reports);
  await alice.shareWith(reports, bob, "cd");
  const publicFolder = await alice.newFolder("Public");
  const link = await alice.newShare({ rs: publicFolder, st: "PUBLIC_LINK", ...shareFlags("cd") });
  assert.equal((await alice.call("POST", "/pinned-folders", { rs: reports })).status, 201);
  const adapter = await newProviderAdapter(server, "office", {
    userSeq: alice.userSeq,
    operations: ["lock", "unlock"],
  });
  const locked = await adapter.client.lock(["Reports", "q1.docx"], "host-session-1");
  assert.ok(locked.ok, JSON.stringify(locked));
  return {
    alice,
    bob,
    reports,
    docSha: sha256(doc),
    linkToken: link.linkUrl.split("/s/")[1],
    adapter,
  };
}

/** Uploads new files and overwrites one file in a loop; every content written is recorded. */
function startLoad(alice: ApiUser) {
  const written = new Set<string>();
  let writes = 0;
  let stop = false;
  let churn = 0;
  const waiters: { at: number; resolve: () => void }[] = [];
  const done: Promise<void> = (async () => {
    // Bounded: the test stops it far sooner.
    for (let i = 0; i < 2000 && !stop; i++) {
      const bytes = testBytes(20_000 + (i % 7) * 1000, 100 + i);
      written.add(sha256(bytes));
      const res = churn === 0
        ? await alice.upload("churn.bin", bytes)
        : await alice.upload("churn.bin", bytes, { st: "overwrite", rs: churn });
      if (i % 2 === 1) await alice.newFile(`live-${i}.bin`, bytes);
      assert.ok(res.status === 201 || res.status === 200, JSON.stringify(res.body));
      churn ||= res.body.data.resourceSeq;
      writes++;
      for (const w of waiters.filter((w) => writes >= w.at)) w.resolve();
    }
  })().finally(() => {
    // A loop that ended (or failed) releases every waiter; stop() reports the failure.
    stop = true;
    for (const w of waiters) w.resolve();
  });
  done.catch(() => {});
  return {
    written,
    /** Resolves once `n` more writes have committed. */
    more(n: number): Promise<void> {
      if (stop) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ at: writes + n, resolve }));
    },
    /** Stops the loop; throws what failed in it. */
    async stop() {
      stop = true;
      await done;
    },
  };
}

async function backupUnderLoad(source: Store, work: string): Promise<
  { file: string } & Seeded & {
    written: Set<string>;
  }
> {
  const srcDir = `${work}/source`;
  const server = await startMain(serverEnv(srcDir, source));
  try {
    const seeded = await seed(server.url);
    const load = startLoad(seeded.alice);
    await load.more(3);
    const d = await openDeps(srcDir, source);
    const file = `${work}/backup.tar`;
    try {
      const out = await Deno.open(file, { write: true, createNew: true });
      const manifest = await writeBackup(d, out.writable, {
        // Writes (overwrites deleting their old blob among them) land after the snapshot and
        // before its bytes are copied.
        afterSnapshot: () => load.more(4),
      });
      assert.ok(manifest.blobs >= 2);
      await load.more(2);
    } finally {
      d.kv.close();
      await load.stop();
    }
    return { file, ...seeded, written: load.written };
  } finally {
    await server.stop();
  }
}

async function restoreAndCompare(
  work: string,
  b: Awaited<ReturnType<typeof backupUnderLoad>>,
  target: Store,
) {
  const dir = `${work}/restored-${target}`;
  const d = await openDeps(dir, target);
  try {
    const input = await Deno.open(b.file, { read: true });
    const summary = await restoreBackup(d, input.readable);
    assert.equal(summary.secretsKey, "written");
  } finally {
    d.kv.close();
  }
  const server = await startMain(serverEnv(dir, target));
  try {
    // The same API keys, now against the restored service.
    const alice = new ApiUser(
      server.url,
      b.alice.userSeq,
      b.alice.tenantId,
      b.alice.apiKey,
      "alice",
    );
    const bob = new ApiUser(server.url, b.bob.userSeq, b.bob.tenantId, b.bob.apiKey, "bob");
    const root = await list(alice);
    const reports = root.find((i) => i.name === "Reports");
    assert.equal(reports?.resourceSeq, b.reports);
    const inReports = await list(alice, b.reports);
    const doc = inReports.find((i) => i.name === "q1.docx")!;
    assert.equal(await download(alice, doc.resourceSeq), b.docSha);
    // Every file byte for byte: its download hashes to what its record says, and to a content
    // the load really wrote.
    const files = root.filter((i) => i.type === "FILE");
    assert.ok(files.some((f) => f.name === "churn.bin"));
    for (const f of files) {
      const got = await download(alice, f.resourceSeq);
      assert.equal(got, f.sha256, f.name);
      assert.ok(b.written.has(got), `${f.name} holds content nobody wrote`);
    }
    // The share, the pin and the link.
    const shared = await bob.call("GET", "/shared?ps=50");
    assert.ok(shared.body.data.items.some((i: Item) => i.resourceSeq === b.reports));
    const pins = await alice.call("GET", "/pinned-folders");
    assert.deepEqual(
      pins.body.data.items.map((p: { resourceSeq: number }) => p.resourceSeq),
      [b.reports],
    );
    const link = await fetch(`${server.url}/public/v1/links/${b.linkToken}`);
    assert.equal(link.status, 200);
    assert.equal((await link.json()).data.resource.name, "Public");
    // The adapter with its old secret (sealed under the restored secrets.key), and its lock.
    const { name, secret } = b.adapter;
    const host = new ProviderHostClient({ baseUrl: server.url, adapter: name, secret });
    const info = await host.info(["Reports", "q1.docx"]);
    assert.ok(info.ok, JSON.stringify(info));
    const locks = await new AdminClient(server.url).call("GET", "/locks");
    assert.deepEqual(locks.body.items.map((l: { holder: string }) => l.holder), ["host-session-1"]);
  } finally {
    await server.stop();
  }
}

for (const source of ["fs", "kv"] as const) {
  Deno.test(`a ${source}-store backup taken under writes restores into both stores`, async () => {
    const work = await Deno.makeTempDir({ prefix: `backup-${source}-` });
    try {
      const backup = await backupUnderLoad(source, work);
      for (const target of ["fs", "kv"] as const) await restoreAndCompare(work, backup, target);
    } finally {
      await Deno.remove(work, { recursive: true });
    }
  });
}
