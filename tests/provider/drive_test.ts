/**
 * Storage provider protocol conformance, storage side: the nine operations on the drive, the
 * lock state table, every error status of every operation, the seven unsupported bodies,
 * read-only adapters, atomic puts (aborted, concurrent, over quota) and list limits. The host
 * client is the driver; raw requests cover what a conforming host never sends.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createFolder } from "../../kv/tree/folders.ts";
import { newResource } from "../../kv/tree/placement.ts";
import { findChildByName, type Resource, writeResource } from "../../kv/tree/resources.ts";
import { listVersions } from "../../kv/tree/content_versions.ts";
import type { Entry } from "../../provider/entries.ts";
import type { HostResult } from "../../provider/host/answers.ts";
import { forEachBlobStore, type TestServer, withServer } from "../helpers/server.ts";
import {
  jsonBody,
  newProviderAdapter,
  octetBody,
  providerRawRequest,
} from "../helpers/provider.ts";
import { lockAsOffice } from "../helpers/domain.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array | null) => new TextDecoder().decode(b!);

function statusOf(r: HostResult<unknown>): number | null {
  return r.status;
}

function assertOk<T>(r: HostResult<T>, what: string): T {
  if (!r.ok) assert.fail(`${what}: ${r.status} ${r.problems.join("; ")}`);
  return r.value;
}

async function driveBytes(server: TestServer, r: Resource): Promise<Uint8Array> {
  return new Uint8Array(await new Response(await server.blobs.read(r.blobId!)).arrayBuffer());
}

forEachBlobStore(
  "A change through the provider is the drive's change: same tree, same bytes, same locks",
  async (server) => {
    {
      const ad = await newProviderAdapter(server, "same");
      const c = ad.client;
      assertOk(await c.mkdir([], "Reports"), "mkdir");
      const put = assertOk(await c.put(["Reports", "q1.docx"], enc("first")), "put");
      const reports = (await findChildByName(server.kv, ad.userSeq, null, "Reports"))!;
      assert.equal(reports.type, "FOLDER");
      const file = (await findChildByName(server.kv, ad.userSeq, reports.rs, "q1.docx"))!;
      assert.equal(dec(await driveBytes(server, file)), "first");
      assert.equal(put.docId, `same:${file.rs}`);
      // Saving again is a new version of the same document, visible at once.
      assertOk(await c.put(["Reports", "q1.docx"], enc("second"), { saveType: "save" }), "put 2");
      const after = (await findChildByName(server.kv, ad.userSeq, reports.rs, "q1.docx"))!;
      assert.equal(after.rs, file.rs);
      assert.equal(after.version, 2);
      assert.equal(dec(await driveBytes(server, after)), "second");
      assert.deepEqual((await listVersions(server.kv, file.rs)).map((v) => v.reason), [
        "put",
        "save",
      ]);
      // A folder made through the drive API shows up in the provider listing.
      await createFolder(server.deps, {
        ownerSeq: ad.userSeq,
        parentRs: null,
        name: "FromDrive",
        actorSeq: ad.userSeq,
      });
      const names = assertOk(await c.list([]), "list").map((e) => `${e.type}:${e.path}`).sort();
      assert.deepEqual(names, ["directory:FromDrive", "directory:Reports"]);
      // The provider's lock is the drive's lock record.
      assertOk(await c.lock(["Reports", "q1.docx"], "host-session-1"), "lock");
      const info = assertOk(await c.info(["Reports", "q1.docx"]), "info")!;
      assert.equal(info.locked, true);
      assert.equal(info.locker, "host-session-1");
      const { getLock } = await import("../../kv/tree/locks.ts");
      const lock = (await getLock(server.kv, file.rs))!;
      assert.equal(lock.owner, "provider:same:host-session-1");
      assert.equal(lock.source, "provider");
    }
  },
);

Deno.test("Lock state table: every row", async () => {
  await withServer(async (server) => {
    const { client: c } = await newProviderAdapter(server, "locks");
    assertOk(await c.put(["doc.docx"], enc("x")), "put");
    const p = ["doc.docx"];
    // unlocked -> lock (any owner) -> locked by owner, 204
    assert.equal(statusOf(await c.lock(p, "A")), 204);
    assert.equal(assertOk(await c.info(p), "info")!.locked, true);
    // locked by A -> lock by A -> 204, still A
    assert.equal(statusOf(await c.lock(p, "A")), 204);
    // locked by A -> lock by B -> 409, A keeps it
    assert.equal(statusOf(await c.lock(p, "B")), 409);
    assert.equal(assertOk(await c.info(p), "info")!.locker, "A");
    // locked by A -> unlock by B -> 409, lock kept
    assert.equal(statusOf(await c.unlock(p, "B")), 409);
    assert.equal(assertOk(await c.info(p), "info")!.locked, true);
    // locked by A -> unlock by A -> unlocked, 204
    assert.equal(statusOf(await c.unlock(p, "A")), 204);
    assert.equal(assertOk(await c.info(p), "info")!.locked, false);
    // unlocked -> unlock (any owner) -> 204, still unlocked
    assert.equal(statusOf(await c.unlock(p, "Z")), 204);
    assert.equal(assertOk(await c.info(p), "info")!.locked, false);
  });
});

Deno.test("Locks: locked entries refuse rename and delete (409); put passes only this adapter's lock; an editor-session lock blocks the provider and back", async () => {
  await withServer(async (server) => {
    const a = await newProviderAdapter(server, "lockA");
    const b = await newProviderAdapter(server, "lockB", { userSeq: a.userSeq });
    assertOk(await a.client.put(["d.docx"], enc("v1")), "put");
    assertOk(await a.client.lock(["d.docx"], "owner-1"), "lock");
    assert.equal(statusOf(await a.client.rename(["d.docx"], "e.docx")), 409);
    assert.equal(statusOf(await a.client.delete(["d.docx"])), 409);
    // The protocol's put has no lock owner: the locking adapter may save, another may not.
    assertOk(await a.client.put(["d.docx"], enc("v2")), "put by the lock's adapter");
    assert.equal(statusOf(await b.client.put(["d.docx"], enc("v3"))), 409);
    assert.equal(statusOf(await b.client.lock(["d.docx"], "owner-1")), 409);
    const got = assertOk(await b.client.get(["d.docx"]), "get");
    assert.equal(dec(got.bytes), "v2");
    assertOk(await a.client.unlock(["d.docx"], "owner-1"), "unlock");
    // An editor session (office:<userSeq>) on the same record.
    const file = (await findChildByName(server.kv, a.userSeq, null, "d.docx"))!;
    await lockAsOffice(server.kv, file.rs, a.userSeq, String(a.userSeq), 60_000);
    assert.equal(statusOf(await a.client.lock(["d.docx"], "owner-1")), 409);
    assert.equal(statusOf(await a.client.put(["d.docx"], enc("v4"))), 409);
    assert.equal(assertOk(await a.client.info(["d.docx"]), "info")!.locked, true);
    assert.equal(dec(assertOk(await a.client.get(["d.docx"]), "get").bytes), "v2");
  });
});

Deno.test("Error table: every error status of every operation", async () => {
  await withServer(async (server) => {
    const ad = await newProviderAdapter(server, "errors");
    const c = ad.client;
    assertOk(await c.mkdir([], "dir"), "mkdir");
    assertOk(await c.put(["dir", "f.txt"], enc("f")), "put");
    assertOk(await c.put(["top.txt"], enc("t")), "put");
    const json = (target: string, body: string) =>
      providerRawRequest(server.url, ad, {
        method: "POST",
        target: `/doc-storage/v1/${target}`,
        ...jsonBody(body),
      });
    // info: 404 absent (the host reads it as no entry)
    const absent = await c.info(["nope"]);
    assert.equal(absent.ok && absent.value, null);
    assert.equal(absent.status, 404);
    // list: 404 missing, 409 on a file
    assert.equal(statusOf(await c.list(["nope"])), 404);
    assert.equal(statusOf(await c.list(["top.txt"])), 409);
    // get: 404 missing, 409 on a directory
    assert.equal(statusOf(await c.get(["nope"])), 404);
    assert.equal(statusOf(await c.get(["dir"])), 409);
    // put: 400 root, 404 parent missing, 409 directory at the path, 409 parent is a file
    const rootPut = await providerRawRequest(server.url, ad, {
      method: "PUT",
      target: "/doc-storage/v1/put",
      ...octetBody(enc("x")),
    });
    assert.equal(rootPut!.status, 400);
    assert.equal(statusOf(await c.put(["nope", "x.txt"], enc("x"))), 404);
    assert.equal(statusOf(await c.put(["dir"], enc("x"))), 409);
    assert.equal(statusOf(await c.put(["top.txt", "x.txt"], enc("x"))), 409);
    // put: 400 declared length differs from the real body (the body ends early)
    const short = await providerRawRequest(server.url, ad, {
      method: "PUT",
      target: "/doc-storage/v1/short.txt/put",
      ...octetBody(enc("0123456789")),
      endAfter: 4,
    });
    assert.equal(short!.status, 400);
    assert.equal(await findChildByName(server.kv, ad.userSeq, null, "short.txt"), null);
    // lock / unlock: 400 bad bodies, 404 missing, 409 directory
    for (
      const body of [
        '{"owner":""}',
        "{}",
        '{"owner":null}',
        '{"owner":1}',
        '{"owner":"a","x":1}',
        '{"owner":"a","owner":"b"}',
        "not json",
        '["a"]',
        '"a"',
      ]
    ) {
      assert.equal((await json("top.txt/lock", body))!.status, 400, `lock ${body}`);
      assert.equal((await json("top.txt/unlock", body))!.status, 400, `unlock ${body}`);
    }
    assert.equal(statusOf(await c.lock(["nope"], "o")), 404);
    assert.equal(statusOf(await c.unlock(["nope"], "o")), 404);
    assert.equal(statusOf(await c.lock(["dir"], "o")), 409);
    // mkdir: 400 names, 404 parent missing, 409 exists (also on repeat), 409 parent is a file
    for (
      const body of [
        '{"name":""}',
        '{"name":"."}',
        '{"name":".."}',
        '{"name":"a/b"}',
        '{"name":"a\\\\b"}',
        '{"name":"a\\u0001"}',
        `{"name":"${"n".repeat(256)}"}`,
        '{"name":1}',
        "{}",
        '{"name":"a","x":1}',
      ]
    ) {
      assert.equal((await json("mkdir", body))!.status, 400, `mkdir ${body}`);
    }
    assert.equal(statusOf(await c.mkdir(["nope"], "x")), 404);
    assert.equal(statusOf(await c.mkdir([], "dir")), 409);
    assert.equal(
      statusOf(await c.mkdir([], "DIR")),
      409,
      "names are case-insensitive in the drive",
    );
    assert.equal(statusOf(await c.mkdir(["top.txt"], "x")), 409);
    assertOk(await c.mkdir(["dir"], "sub"), "mkdir sub");
    assert.equal(statusOf(await c.mkdir(["dir"], "sub")), 409, "repeat");
    // rename: 400 root / bad name / extra field, 404 missing, 409 name in use
    assert.equal((await json("rename", '{"name":"x"}'))!.status, 400);
    assert.equal((await json("top.txt/rename", '{"name":"a/b"}'))!.status, 400);
    assert.equal((await json("top.txt/rename", '{"name":"x","y":1}'))!.status, 400);
    assert.equal(statusOf(await c.rename(["nope"], "x")), 404);
    assert.equal(statusOf(await c.rename(["top.txt"], "dir")), 409);
    assertOk(await c.rename(["top.txt"], "renamed.txt"), "rename");
    assert.equal(assertOk(await c.info(["renamed.txt"]), "info")!.name, "renamed.txt");
    // delete: 400 root, 404 missing and on repeat, 409 non-empty directory
    const rootDelete = await providerRawRequest(server.url, ad, {
      method: "DELETE",
      target: "/doc-storage/v1/delete",
    });
    assert.equal(rootDelete!.status, 400);
    assert.equal(statusOf(await c.delete(["nope"])), 404);
    assert.equal(statusOf(await c.delete(["dir"])), 409);
    assertOk(await c.delete(["renamed.txt"]), "delete");
    assert.equal(statusOf(await c.delete(["renamed.txt"])), 404, "repeat");
    // The deleted file is in the drive's trash, not gone.
    const { getResource } = await import("../../kv/tree/resources.ts");
    const trashed = await getResource(
      server.kv,
      Number(assertOk(await c.put(["t2.txt"], enc("t")), "put").docId.split(":")[1]),
    );
    assertOk(await c.delete(["t2.txt"]), "delete");
    assert.notEqual((await getResource(server.kv, trashed!.rs))!.trashedAt, null);
  });
});

Deno.test("Unsupported-operation response: the seven exact 501 bodies, and lock/unlock only as a pair", async () => {
  await withServer(async (server) => {
    // The protocol names each code after its operation (LIST_NOT_SUPPORTED, …): derived here
    // from that rule on purpose rather than read from provider/responses.ts.
    const codeOf = (op: string) => `${op.toUpperCase()}_NOT_SUPPORTED`;
    const full = await newProviderAdapter(server, "full");
    assertOk(await full.client.put(["f.txt"], enc("f")), "put");
    const none = await newProviderAdapter(server, "none", {
      userSeq: full.userSeq,
      operations: [],
    });
    const requests: Record<string, () => Promise<HostResult<unknown>>> = {
      list: () => none.client.list([]),
      put: () => none.client.put(["g.txt"], enc("g")),
      lock: () => none.client.lock(["f.txt"], "o"),
      unlock: () => none.client.unlock(["f.txt"], "o"),
      mkdir: () => none.client.mkdir([], "d"),
      rename: () => none.client.rename(["f.txt"], "h.txt"),
      delete: () => none.client.delete(["f.txt"]),
    };
    for (const [op, send] of Object.entries(requests)) {
      const r = await send();
      assert.equal(r.ok, false, op);
      assert.equal(!r.ok && r.unsupported, true, `${op}: ${JSON.stringify(r)}`);
      assert.equal(!r.ok && r.message, `{"code":"${codeOf(op)}"}`, op);
    }
    // Nothing was written by the unsupported calls; info and get still work.
    assert.equal(assertOk(await none.client.info(["g.txt"]), "info"), null);
    assert.equal(dec(assertOk(await none.client.get(["f.txt"]), "get").bytes), "f");
    // Exact bytes and headers on the wire.
    const raw = await providerRawRequest(server.url, none, {
      method: "GET",
      target: "/doc-storage/v1/list",
    });
    assert.equal(raw!.status, 501);
    assert.equal(dec(raw!.body), '{"code":"LIST_NOT_SUPPORTED"}');
    assert.deepEqual(raw!.headers.filter(([k]) => k === "content-type").map(([, v]) => v), [
      "application/json",
    ]);
    // Configuration that splits lock and unlock is refused.
    for (const operations of [["lock"], ["unlock", "put"]]) {
      const r = await server.admin.call("POST", "/adapters", {
        name: "split",
        userSeq: full.userSeq,
        operations,
      });
      assert.equal(r.status, 400);
      assert.equal(r.body.error, "ADAPTER_003");
    }
  });
});

Deno.test("Read-only adapter: reads work, entries are not writable, every writing operation is 403 and changes nothing", async () => {
  await withServer(async (server) => {
    const rw = await newProviderAdapter(server, "rw");
    assertOk(await rw.client.mkdir([], "d"), "mkdir");
    assertOk(await rw.client.put(["f.txt"], enc("orig")), "put");
    const ro = await newProviderAdapter(server, "ro", { userSeq: rw.userSeq, readOnly: true });
    const entries = assertOk(await ro.client.list([]), "list");
    assert.equal(entries.length, 2);
    assert.ok(entries.every((e: Entry) => e.readable && !e.writable));
    assert.equal(dec(assertOk(await ro.client.get(["f.txt"]), "get").bytes), "orig");
    const writes = [
      ro.client.put(["f.txt"], enc("changed")),
      ro.client.put(["new.txt"], enc("new")),
      ro.client.lock(["f.txt"], "o"),
      ro.client.unlock(["f.txt"], "o"),
      ro.client.mkdir([], "e"),
      ro.client.rename(["f.txt"], "g.txt"),
      ro.client.delete(["d"]),
    ];
    for (const r of await Promise.all(writes)) assert.equal(r.status, 403);
    const after = assertOk(await rw.client.list([]), "list").map((e) => e.path).sort();
    assert.deepEqual(after, ["d", "f.txt"]);
    assert.equal(dec(assertOk(await rw.client.get(["f.txt"]), "get").bytes), "orig");
    assert.equal(assertOk(await rw.client.info(["f.txt"]), "info")!.locked, false);
  });
});

Deno.test("Adapter rooted at a folder: paths resolve under it and nothing outside is reachable", async () => {
  await withServer(async (server) => {
    const owner = await newProviderAdapter(server, "whole");
    assertOk(await owner.client.mkdir([], "Shared"), "mkdir");
    assertOk(await owner.client.put(["secret.txt"], enc("s")), "put");
    assertOk(await owner.client.put(["Shared", "in.txt"], enc("i")), "put");
    const folder = (await findChildByName(server.kv, owner.userSeq, null, "Shared"))!;
    const sub = await newProviderAdapter(server, "sub", {
      userSeq: owner.userSeq,
      folderSeq: folder.rs,
    });
    const root = assertOk(await sub.client.info([]), "info root")!;
    assert.equal(root.path, "");
    assert.equal(root.name, "Shared");
    assert.equal(root.type, "directory");
    assert.deepEqual(assertOk(await sub.client.list([]), "list").map((e) => e.path), ["in.txt"]);
    assert.equal(assertOk(await sub.client.info(["secret.txt"]), "info"), null);
    assertOk(await sub.client.put(["new.txt"], enc("n")), "put");
    assert.deepEqual(
      assertOk(await owner.client.list(["Shared"]), "list").map((e) => e.path).sort(),
      ["Shared/in.txt", "Shared/new.txt"],
    );
    // When the root folder goes to the trash, the adapter's storage is gone.
    assertOk(await owner.client.delete(["Shared", "in.txt"]), "delete");
    assertOk(await owner.client.delete(["Shared", "new.txt"]), "delete");
    assertOk(await owner.client.delete(["Shared"]), "delete");
    assert.equal(statusOf(await sub.client.list([])), 404);
  });
});

Deno.test("put: docId is stable per destination and differs between destinations; revision changes with every content change", async () => {
  await withServer(async (server) => {
    const { client: c } = await newProviderAdapter(server, "ids");
    const a1 = assertOk(await c.put(["a.docx"], enc("1")), "put").docId;
    const r1 = assertOk(await c.info(["a.docx"]), "info")!.revision;
    const a2 = assertOk(await c.put(["a.docx"], enc("2"), { saveType: "save" }), "put").docId;
    const r2 = assertOk(await c.info(["a.docx"]), "info")!.revision;
    const a3 = assertOk(await c.put(["A.DOCX"], enc("2"), { saveType: "saveas" }), "put").docId;
    const r3 = assertOk(await c.info(["a.docx"]), "info")!.revision;
    const b = assertOk(await c.put(["b.docx"], enc("1")), "put").docId;
    assert.equal(a1, a2);
    assert.equal(a1, a3, "save-as to the same destination keeps the docId");
    assert.notEqual(a1, b);
    assert.notEqual(r1, r2);
    assert.notEqual(r2, r3, "same bytes saved again is still a content change");
    assert.match(a1, /^[A-Za-z0-9][A-Za-z0-9._:-]*$/);
  });
});

Deno.test("put is atomic: an aborted upload, an over-quota upload and a bad signature all leave the old bytes and no temporary data", async () => {
  await withServer(async (server) => {
    const ad = await newProviderAdapter(server, "atomic", { quotaBytes: 1_000_000 });
    const old = new Uint8Array(200_000).fill(1);
    assertOk(await ad.client.put(["doc.bin"], old), "put");
    const fresh = new Uint8Array(300_000).fill(2);
    // The client disconnects halfway.
    await providerRawRequest(server.url, ad, {
      method: "PUT",
      target: "/doc-storage/v1/doc.bin/put",
      ...octetBody(fresh),
      abortAfter: 150_000,
    });
    // Over quota: 200,000 used + 900,000 > 1,000,000.
    const over = await ad.client.put(["doc.bin"], new Uint8Array(900_000));
    assert.equal(over.status, 413);
    // Signed for different bytes.
    const forged = await providerRawRequest(server.url, ad, {
      method: "PUT",
      target: "/doc-storage/v1/doc.bin/put",
      ...octetBody(fresh),
      edit: (c) => (c.request.content_sha256 = createHash("sha256").update(old).digest("hex")),
    });
    assert.equal(forged!.status, 401);
    // Let the aborted request's handler finish its cleanup.
    for (let i = 0; i < 50 && (await tmpBlobCount(server)) > 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const got = assertOk(await ad.client.get(["doc.bin"]), "get");
    assert.deepEqual(got.bytes, old);
    const file = (await findChildByName(server.kv, ad.userSeq, null, "doc.bin"))!;
    assert.equal(file.version, 1);
    assert.equal(await tmpBlobCount(server), 0);
    assert.equal(await blobCount(server), 1, "only the stored version's blob remains");
  });
});

async function blobCount(server: TestServer): Promise<number> {
  let n = 0;
  const dir = `${server.config.dataDir}/blobs`;
  for await (const d of Deno.readDir(dir)) {
    if (!d.isDirectory || d.name === "tmp") continue;
    for await (const _ of Deno.readDir(`${dir}/${d.name}`)) n++;
  }
  return n;
}

async function tmpBlobCount(server: TestServer): Promise<number> {
  let n = 0;
  for await (const _ of Deno.readDir(`${server.config.dataDir}/blobs/tmp`)) n++;
  return n;
}

Deno.test("20 concurrent puts to one new path leave exactly one file whose content is one whole body", async () => {
  await withServer(async (server) => {
    const { client: c, userSeq } = await newProviderAdapter(server, "race");
    const bodies = Array.from({ length: 20 }, (_, i) => new Uint8Array(50_000 + i).fill(i + 1));
    const results = await Promise.all(bodies.map((b) => c.put(["race.bin"], b)));
    const ok = results.filter((r) => r.ok);
    assert.ok(ok.length >= 1);
    for (const r of results) assert.ok(r.ok || r.status === 409, JSON.stringify(r));
    assert.equal(new Set(ok.map((r) => r.ok && r.value.docId)).size, 1, "one docId");
    const listed = assertOk(await c.list([]), "list");
    assert.deepEqual(listed.map((e) => e.path), ["race.bin"]);
    const got = assertOk(await c.get(["race.bin"]), "get").bytes!;
    const match = bodies.filter((b) =>
      b.byteLength === got.byteLength && b.every((x, i) => x === got[i])
    );
    assert.equal(match.length, 1, "the content is exactly one of the bodies");
    const file = (await findChildByName(server.kv, userSeq, null, "race.bin"))!;
    assert.equal(
      (await listVersions(server.kv, file.rs)).length,
      ok.length,
      "one version per successful put",
    );
    assert.equal(await blobCount(server), ok.length, "no orphaned blobs");
  });
});

/** Writes `n` folders straight into KV (fast fixtures for the list limits). */
async function bulkFolders(
  server: TestServer,
  ownerSeq: number,
  parentRs: number,
  n: number,
  name: (i: number) => string,
  from = 0,
) {
  const tenantId =
    (await import("../../kv/identity/users.ts").then((m) => m.requireUser(server.kv, ownerSeq)))
      .tenantId;
  for (let i = from; i < from + n; i += 100) {
    const op = server.kv.atomic();
    for (let j = i; j < Math.min(i + 100, from + n); j++) {
      const folder = newResource({
        rs: 1_000_000 + j,
        ownerSeq,
        tenantId,
        parentRs,
        name: name(j),
        actorSeq: ownerSeq,
        content: null,
      });
      writeResource(op, null, folder, ownerSeq);
    }
    assert.ok((await op.commit()).ok);
  }
}

Deno.test("Limits: list of 10,000 entries is 200, 10,001 is 413 (never a partial list)", async () => {
  await withServer(async (server) => {
    const ad = await newProviderAdapter(server, "many");
    assertOk(await ad.client.mkdir([], "big"), "mkdir");
    const big = (await findChildByName(server.kv, ad.userSeq, null, "big"))!;
    await bulkFolders(server, ad.userSeq, big.rs, 10_000, (i) => `f${i}`);
    const full = assertOk(await ad.client.list(["big"]), "list 10,000");
    assert.equal(full.length, 10_000);
    assertOk(await ad.client.mkdir(["big"], "one-more"), "mkdir");
    const over = await ad.client.list(["big"]);
    assert.equal(over.status, 413);
  });
});

Deno.test("Limits: a list response of exactly 5,242,880 bytes is 200; one byte more is 413", async () => {
  await withServer(async (server) => {
    const ad = await newProviderAdapter(server, "wide");
    assertOk(await ad.client.mkdir([], "w"), "mkdir");
    const w = (await findChildByName(server.kv, ad.userSeq, null, "w"))!;
    const measure = async () => {
      const r = await providerRawRequest(server.url, ad, {
        method: "GET",
        target: "/doc-storage/v1/w/list",
      });
      return { status: r!.status, length: r!.body.byteLength };
    };
    // A file whose size digits tune the length by one byte.
    assertOk(await ad.client.put(["w", "tune.bin"], new Uint8Array(1)), "put");
    const empty = (await measure()).length;
    const long = (i: number) => `${String(i).padStart(5, "0")}${"n".repeat(250)}`;
    await bulkFolders(server, ad.userSeq, w.rs, 100, long);
    // Bytes of one entry with a 255-character name (its comma included): all have the same.
    const per = ((await measure()).length - empty) / 100;
    assert.ok(Number.isInteger(per));
    const count = Math.floor((5_242_880 - empty) / per) - 3 - 100;
    await bulkFolders(server, ad.userSeq, w.rs, count, long, 100);
    let missing = 5_242_880 - (await measure()).length;
    // Each folder entry carries its name twice ("w/<name>" and "<name>").
    const fixed = per - 2 * 255;
    const add = (name: string) =>
      createFolder(server.deps, {
        ownerSeq: ad.userSeq,
        parentRs: w.rs,
        name,
        actorSeq: ad.userSeq,
      });
    for (let i = 0; missing > 2 * per; i++) {
      await add(`x${String(i).padStart(4, "0")}${"p".repeat(250)}`);
      missing -= per;
    }
    const total = Math.floor((missing - 2 * fixed) / 2);
    const first = Math.min(255, total - 1);
    await add("y".repeat(first));
    await add("z".repeat(total - first));
    if ((missing - 2 * fixed) % 2 === 1) {
      assertOk(await ad.client.put(["w", "tune.bin"], new Uint8Array(10)), "put");
    }
    const exact = await measure();
    assert.equal(exact.length, 5_242_880);
    assert.equal(exact.status, 200);
    assert.ok(assertOk(await ad.client.list(["w"]), "list").length > 7_000);
    // One byte more: the size field gains a digit.
    const size = assertOk(await ad.client.info(["w", "tune.bin"]), "info")!.size;
    assertOk(await ad.client.put(["w", "tune.bin"], new Uint8Array(size * 10)), "put");
    const over = await measure();
    assert.equal(over.status, 413);
    assert.equal((await ad.client.list(["w"])).status, 413);
  });
});

Deno.test("Every drive name is addressable by the provider: the drive refuses C1 control characters too, and the connection test stays clean", async () => {
  await withServer(async (server) => {
    const ad = await newProviderAdapter(server, "c1names");
    for (const name of ["a\u0085b", "x\u009f", "\u0080"]) {
      await assert.rejects(
        createFolder(server.deps, { ownerSeq: ad.userSeq, parentRs: null, name, actorSeq: 1 }),
        (err: { code?: string }) => err.code === "RESOURCE_004",
        JSON.stringify(name),
      );
    }
    await createFolder(server.deps, {
      ownerSeq: ad.userSeq,
      parentRs: null,
      name: "caf\u00e9 \u2028ok",
      actorSeq: ad.userSeq,
    });
    const test = await server.admin.call("POST", `/adapters/${ad.name}/test`, {});
    assert.equal(test.body.ok, true, JSON.stringify(test.body));
    assert.deepEqual(test.body.entries.map((e: Entry) => e.name), ["caf\u00e9 \u2028ok"]);
  });
});

Deno.test("info and list read ahead what the adapter's last request read, and a stale guess never answers", async () => {
  await withServer(async (server) => {
    const ad = await newProviderAdapter(server, "ahead", {
      operations: ["put", "lock", "unlock", "rename", "delete", "mkdir", "list"],
    });
    assertOk(await ad.client.put(["a.txt"], enc("one")), "put");
    const first = assertOk(await ad.client.info(["a.txt"]), "info")!;
    // Learned now: the a.txt name slot and its lock. A lock taken since is still seen.
    assertOk(await ad.client.lock(["a.txt"], "editor-1"), "lock");
    const locked = assertOk(await ad.client.info(["a.txt"]), "info")!;
    assert.equal(locked.locked, true);
    assert.equal(locked.locker, "editor-1");
    assertOk(await ad.client.unlock(["a.txt"], "editor-1"), "unlock");
    assert.equal(assertOk(await ad.client.info(["a.txt"]), "info")!.locked, false);
    // Another document under the same name, locked by the drive: the remembered lock key names
    // the old, unlocked one, and the answer must be the new document's.
    assertOk(await ad.client.delete(["a.txt"]), "delete");
    assertOk(await ad.client.put(["a.txt"], enc("second, longer")), "put");
    const rs = (await findChildByName(server.kv, ad.userSeq, null, "a.txt"))!.rs;
    await lockAsOffice(server.kv, rs, ad.userSeq, "someone-else", 60_000);
    const again = assertOk(await ad.client.info(["a.txt"]), "info")!;
    assert.equal(again.locked, true);
    assert.equal(again.size, "second, longer".length);
    assert.notEqual(again.revision, first.revision);
    // list learns its folder's slot the same way: a renamed folder is not listed by its old name.
    assertOk(await ad.client.mkdir([], "dir"), "mkdir");
    assertOk(await ad.client.put(["dir", "x.txt"], enc("x")), "put");
    assert.equal(assertOk(await ad.client.list(["dir"]), "list").length, 1);
    assertOk(await ad.client.rename(["dir"], "renamed"), "rename");
    assert.equal(statusOf(await ad.client.list(["dir"])), 404);
    assert.equal(assertOk(await ad.client.list(["renamed"]), "list").length, 1);
  });
});
