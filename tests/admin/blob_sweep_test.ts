/**
 * The orphan blob sweep (POST /admin/api/blobs/sweep) on both blob stores: old blobs nothing
 * points at go (after a dry run that only counts them), every file's bytes and every older
 * version stay, young blobs stay, unfinished writes left by a crash are cleared, bad input is a
 * 400 naming the field.
 */
import assert from "node:assert/strict";
import { BlobNotFoundError, type BlobStore } from "../../blobs/store.ts";
import { getResource, listVersions } from "../../kv/tree/resources.ts";
import { forEachBlobStore, type TestServer } from "../helpers/server.ts";
import { AdminClient } from "../helpers/admin.ts";
import { newApiUser } from "../helpers/api.ts";
import { testBytes } from "../helpers/bytes.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Stores bytes with no record pointing at them: what a crash before the commit leaves. */
async function strayBlob(server: TestServer, bytes: Uint8Array): Promise<string> {
  return (await server.blobs.write(new Blob([bytes.slice()]).stream())).blobId;
}

/** Makes a blob look `ageMs` old to the sweep, the way each store records age. */
async function age(server: TestServer, blobId: string, ageMs: number): Promise<void> {
  const then = new Date(Date.now() - ageMs);
  if (server.blobs.kind === "fs") {
    await Deno.utime(`${server.config.dataDir}/blobs/${blobId.slice(0, 2)}/${blobId}`, then, then);
  } else {
    const rec = await server.kv.get<{ storedAt: number }>(["blob", blobId]);
    await server.kv.set(["blob", blobId], { ...rec.value!, storedAt: then.getTime() });
  }
}

/** Leaves the remains of a write that a crash stopped half-way, started `ageMs` ago. */
async function abandonedWrite(server: TestServer, ageMs: number): Promise<void> {
  const then = new Date(Date.now() - ageMs);
  if (server.blobs.kind === "fs") {
    const path = `${server.config.dataDir}/blobs/tmp/${crypto.randomUUID()}.part`;
    await Deno.writeFile(path, testBytes(1000));
    await Deno.utime(path, then, then);
  } else {
    const id = crypto.randomUUID().replaceAll("-", "");
    await server.kv.set(["blob_chunk", id, 0], testBytes(1000));
    await server.kv.set(["blob_pending", id], then.getTime());
  }
}

async function exists(blobs: BlobStore, blobId: string): Promise<boolean> {
  try {
    await (await blobs.read(blobId)).cancel();
    return true;
  } catch (err) {
    if (err instanceof BlobNotFoundError) return false;
    throw err;
  }
}

forEachBlobStore(
  "blob sweep: a dry run counts, a real run removes only old unreferenced blobs and crash leftovers",
  async (server) => {
    const alice = await newApiUser(server, "alice");
    const kept = await alice.newFile("kept.bin", testBytes(70_000, 3));
    // Two versions: the older one is referenced by its version record only.
    const versioned = await alice.newFile("v.txt", "first");
    const v2 = await alice.upload("v.txt", "second", { st: "version", rs: versioned });
    assert.equal(v2.status, 201, JSON.stringify(v2.body));
    const trashed = await alice.newFile("trashed.txt", "in the trash, still restorable");
    assert.equal((await alice.call("PATCH", `/files/${trashed}/delete`)).status, 200);
    const referenced = [
      (await getResource(server.kv, kept))!.blobId!,
      ...(await listVersions(server.kv, versioned)).map((v) => v.blobId),
      (await getResource(server.kv, trashed))!.blobId!,
    ];
    assert.equal(referenced.length, 4);
    for (const blobId of referenced) await age(server, blobId, 3 * DAY_MS);

    const old1 = await strayBlob(server, testBytes(100_000, 7));
    const old2 = await strayBlob(server, testBytes(5, 8));
    await age(server, old1, 2 * DAY_MS);
    await age(server, old2, 30 * DAY_MS);
    const young = await strayBlob(server, testBytes(10, 9));
    await age(server, young, 60 * 60 * 1000);
    await abandonedWrite(server, 2 * DAY_MS);

    const dry = await server.admin.call("POST", "/blobs/sweep", { dryRun: true });
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.deepEqual(dry.body, {
      dryRun: true,
      blobs: 7,
      tooYoung: 1,
      orphans: 2,
      orphanBytes: 100_005,
      removed: 0,
      abandonedWrites: 0,
    });
    assert.ok(await exists(server.blobs, old1), "a dry run removes nothing");

    // No body at all: the defaults (a real run, blobs older than 24 hours).
    const res = await fetch(`${server.url}/admin/api/blobs/sweep`, {
      method: "POST",
      headers: { authorization: `Bearer ${new AdminClient(server.url).token}` },
    });
    const run = await res.json();
    assert.equal(res.status, 200, JSON.stringify(run));
    assert.deepEqual(run, { ...dry.body, dryRun: false, removed: 2, abandonedWrites: 1 });
    assert.equal(await exists(server.blobs, old1), false);
    assert.equal(await exists(server.blobs, old2), false);
    assert.ok(await exists(server.blobs, young), "a young blob may be an upload about to commit");
    for (const blobId of referenced) assert.ok(await exists(server.blobs, blobId), blobId);

    // The files still read back whole, through the API.
    const download = await alice.fetch(`/files/${kept}/download`);
    assert.equal(download.status, 200);
    assert.deepEqual(new Uint8Array(await download.arrayBuffer()), testBytes(70_000, 3));
    const restored = await alice.call("POST", `/trash/${trashed}/restore`);
    assert.equal(restored.status, 200, JSON.stringify(restored.body));

    // A shorter minimum age reaches the young blob; nothing else is left to remove.
    const again = await server.admin.call("POST", "/blobs/sweep", { minAgeHours: 1 });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.orphans, 1);
    assert.equal(again.body.removed, 1);
    assert.equal(again.body.abandonedWrites, 0);
    assert.equal(await exists(server.blobs, young), false);
  },
);

forEachBlobStore(
  "blob sweep: bad input is a 400 naming the field; no admin token is 401",
  async (server) => {
    const cases: [unknown, string][] = [
      [{ minAgeHours: 0 }, "minAgeHours"],
      [{ minAgeHours: 1.5 }, "minAgeHours"],
      [{ minAgeHours: "24" }, "minAgeHours"],
      [{ minAgeHours: 9000 }, "minAgeHours"],
      [{ dryRun: "yes" }, "dryRun"],
      [{ force: true }, "force"],
    ];
    const stray = await strayBlob(server, testBytes(10));
    await age(server, stray, 2 * DAY_MS);
    for (const [body, field] of cases) {
      const res = await server.admin.call("POST", "/blobs/sweep", body);
      assert.equal(res.status, 400, JSON.stringify(body));
      // An unknown key is named in the message; the others are the offending field itself.
      if (field !== "force") assert.equal(res.body.field, field);
      assert.match(res.body.message, new RegExp(field));
    }
    const anonymous = await new AdminClient(server.url, "wrong-token").call("POST", "/blobs/sweep");
    assert.equal(anonymous.status, 401);
    assert.ok(await exists(server.blobs, stray), "no refused request removed anything");
  },
);
