import assert from "node:assert/strict";
import { getUsage } from "../../kv/tree/usage.ts";
import { forEachBlobStore, withServer } from "../helpers/server.ts";
import { ApiUser, newApiUser } from "../helpers/api.ts";
import { newTeam } from "../helpers/team.ts";
import { multipartBody } from "../helpers/http.ts";
import { testBytes } from "../helpers/bytes.ts";

async function downloadBytes(user: ApiUser, rs: number): Promise<Uint8Array> {
  const res = await user.fetch(`/files/${rs}/download`);
  assert.equal(res.status, 200);
  return new Uint8Array(await res.arrayBuffer());
}

function rawUpload(user: ApiUser, form: { body: Uint8Array<ArrayBuffer>; contentType: string }) {
  return user.fetch("/files", {
    method: "POST",
    headers: { "content-type": form.contentType },
    body: form.body,
  }).then(async (res) => ({ status: res.status, body: await res.json() }));
}

/** POST /files with a body that is not a multipart form: 415 REQUEST_003. */
async function assertNotAForm(user: ApiUser, contentType: string, body: string) {
  const res = await rawUpload(user, { body: new TextEncoder().encode(body), contentType });
  assert.equal(res.status, 415);
  assert.equal(res.body.errorCode, "REQUEST_003");
}

forEachBlobStore("upload new files; duplicate names get a copy number", async (server) => {
  const alice = await newApiUser(server, "alice");
  const bytes = testBytes(300_000);
  const first = await alice.upload("report.pdf", bytes);
  assert.equal(first.status, 201);
  assert.equal(first.body.result, true);
  assert.equal(first.body.code, 201);
  assert.equal(first.body.data.resourceName, "report.pdf");
  assert.deepEqual(await downloadBytes(alice, first.body.data.resourceSeq), bytes);

  const second = await alice.upload("report.pdf", "other");
  assert.equal(second.status, 201);
  assert.equal(second.body.data.resourceName, "report (1).pdf");
  assert.notEqual(second.body.data.resourceSeq, first.body.data.resourceSeq);
  const third = await alice.upload("REPORT.pdf", "x", { st: "duplicate" });
  assert.equal(third.body.data.resourceName, "REPORT (2).pdf");

  const folder = await alice.call("POST", "/folders", { fn: "Inbox" });
  const inside = await alice.upload("report.pdf", "in folder", {
    pfs: folder.body.data.resourceSeq,
  });
  assert.equal(inside.status, 201);
  assert.equal(inside.body.data.resourceName, "report.pdf");
  const empty = await alice.upload("empty.txt", new Uint8Array(0));
  assert.equal(empty.status, 201);
  assert.equal((await downloadBytes(alice, empty.body.data.resourceSeq)).byteLength, 0);
  assert.equal(await getUsage(server.kv, alice.userSeq), 300_000 + 5 + 1 + 9);
});

forEachBlobStore(
  "st=version keeps the old content as a version; overwrite replaces it",
  async (server) => {
    const alice = await newApiUser(server, "alice");
    const up = await alice.upload("notes.txt", "one");
    const rs = up.body.data.resourceSeq;
    const v2 = await alice.upload("ignored-name.txt", "second", { st: "version", rs });
    assert.equal(v2.status, 201);
    assert.deepEqual(v2.body.data, { resourceSeq: rs, resourceName: "notes.txt" });
    assert.equal(new TextDecoder().decode(await downloadBytes(alice, rs)), "second");
    assert.equal(await getUsage(server.kv, alice.userSeq), 3 + 6);

    const versions = await alice.call("GET", `/files/${rs}/versions`);
    assert.equal(versions.status, 200);
    assert.deepEqual(
      versions.body.data.items.map((v: { version: number; size: number; current: boolean }) => [
        v.version,
        v.size,
        v.current,
      ]),
      [[1, 3, false], [2, 6, true]],
    );

    const v3 = await alice.upload("x.txt", "third!!", { st: "overwrite", rs });
    assert.equal(v3.status, 201);
    assert.equal(new TextDecoder().decode(await downloadBytes(alice, rs)), "third!!");
    // Overwrite drops the replaced version (6 bytes) and keeps version 1.
    assert.equal(await getUsage(server.kv, alice.userSeq), 3 + 7);
    const after = await alice.call("GET", `/files/${rs}/versions`);
    assert.deepEqual(after.body.data.items.map((v: { version: number }) => v.version), [1, 3]);
  },
);

Deno.test("upload input errors name the problem", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const file = await alice.newFile("a.txt", "abc");
    const folder = await alice.newFolder("F");

    const noRs = await alice.upload("a.txt", "x", { st: "version" });
    assert.equal(noRs.status, 400);
    assert.equal(noRs.body.errorCode, "RESOURCE_016");
    assert.equal(
      (await alice.upload("a.txt", "x", { st: "overwrite" })).body.errorCode,
      "RESOURCE_016",
    );
    const badSt = await alice.upload("a.txt", "x", { st: "replace" });
    assert.equal(badSt.body.errorCode, "REQUEST_001");
    assert.match(badSt.body.message, /st/);
    const badPfs = await alice.upload("a.txt", "x", { pfs: "abc" });
    assert.equal(badPfs.body.errorCode, "REQUEST_001");
    assert.match(badPfs.body.message, /pfs/);
    const intoFile = await alice.upload("a.txt", "x", { pfs: file });
    assert.equal(intoFile.body.errorCode, "RESOURCE_005");
    const unknownPfs = await alice.upload("a.txt", "x", { pfs: 999999 });
    assert.equal(unknownPfs.status, 404);
    const versionOfFolder = await alice.upload("a.txt", "x", { st: "version", rs: folder });
    assert.equal(versionOfFolder.body.errorCode, "RESOURCE_006");
    const versionOfNothing = await alice.upload("a.txt", "x", { st: "version", rs: 999999 });
    assert.equal(versionOfNothing.body.errorCode, "RESOURCE_002");

    for (const name of ["a/b.txt", "x".repeat(256), "..", ""]) {
      const bad = await rawUpload(
        alice,
        multipartBody([{ name: "file", filename: name, bytes: new Uint8Array([1]) }]),
      );
      assert.equal(bad.status, 400, `name ${JSON.stringify(name)}`);
      assert.equal(bad.body.errorCode, "RESOURCE_004");
    }

    const noFile = await rawUpload(alice, multipartBody([{ name: "pfs", value: String(folder) }]));
    assert.equal(noFile.status, 400);
    assert.equal(noFile.body.errorCode, "RESOURCE_013");
    const wrongPart = await rawUpload(
      alice,
      multipartBody([{ name: "upload", filename: "a.txt", bytes: new Uint8Array([1]) }]),
    );
    assert.equal(wrongPart.body.errorCode, "REQUEST_001");
    assert.match(wrongPart.body.message, /upload/);
    const fieldAfterFile = await rawUpload(
      alice,
      multipartBody([
        { name: "file", filename: "late.txt", bytes: new Uint8Array([1, 2]) },
        { name: "pfs", value: String(folder) },
      ]),
    );
    assert.equal(fieldAfterFile.status, 400);
    assert.equal(fieldAfterFile.body.errorCode, "REQUEST_001");
    assert.match(fieldAfterFile.body.message, /pfs.*before the file/);
    const truncated = await rawUpload(
      alice,
      multipartBody([{ name: "file", filename: "cut.txt", bytes: testBytes(5000) }], {
        close: false,
      }),
    );
    assert.equal(truncated.status, 400);
    assert.equal(truncated.body.errorCode, "REQUEST_006");
    await assertNotAForm(alice, "application/json", "{}");

    // None of the refused uploads stored anything.
    const listing = await server.kv.get(["usage", alice.userSeq]);
    assert.equal(listing.value, 3);
    const names = [];
    for await (const e of server.kv.list({ prefix: ["res_name", alice.userSeq] })) {
      names.push(e.key.at(-1));
    }
    assert.deepEqual(names.sort(), ["a.txt", "f"]);
  });
});

Deno.test("multipart framing: trickled bodies, near-boundaries in the data, filename*, bad parts", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const boundary = "----drive-test-boundary-7d1f";
    // File data salted with prefixes of the delimiter, sent a few bytes per network write.
    const enc = new TextEncoder();
    const salt = enc.encode(`\r\n--${boundary.slice(0, -1)}\r\n-\r`);
    const data = new Uint8Array(70_000);
    data.set(testBytes(data.length));
    for (let at = 0; at + salt.length < data.length; at += 997) data.set(salt, at);
    const form = multipartBody([{ name: "file", filename: "salted.bin", bytes: data }]);
    let sent = 0;
    const trickled = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= form.body.length) return controller.close();
        const n = 1 + (sent % 13) * 97;
        controller.enqueue(form.body.slice(sent, sent + n));
        sent += n;
      },
    });
    const res = await alice.fetch("/files", {
      method: "POST",
      headers: { "content-type": form.contentType },
      body: trickled,
    });
    assert.equal(res.status, 201);
    const rs = (await res.json()).data.resourceSeq;
    assert.deepEqual(await downloadBytes(alice, rs), data);

    const raw = (body: string) =>
      alice.fetch("/files", {
        method: "POST",
        headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
        body,
      }).then(async (r) => ({ status: r.status, body: await r.json() }));
    const extended = await raw(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="x.txt"; ` +
        `filename*=UTF-8''%EC%83%88%20%EB%AC%B8%EC%84%9C.txt\r\n\r\nhi\r\n--${boundary}--\r\n`,
    );
    assert.equal(extended.status, 201);
    assert.equal(extended.body.data.resourceName, "새 문서.txt");

    const noDisposition = await raw(
      `--${boundary}\r\nContent-Type: text/plain\r\n\r\nhi\r\n--${boundary}--`,
    );
    assert.equal(noDisposition.status, 400);
    assert.equal(noDisposition.body.errorCode, "REQUEST_006");
    assert.match(noDisposition.body.message, /Content-Disposition/);
    const noBoundaryLine = await raw("just some text");
    assert.equal(noBoundaryLine.body.errorCode, "REQUEST_006");
    assert.match(noBoundaryLine.body.message, /no boundary line/);
    const longEpilogue = await raw(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="e.txt"\r\n\r\n` +
        `hi\r\n--${boundary}--\r\n${"e".repeat(70_000)}`,
    );
    assert.equal(longEpilogue.body.errorCode, "REQUEST_006");
    assert.match(longEpilogue.body.message, /outside the boundaries/);
    // multipart/form-data without its boundary parameter is no form either.
    await assertNotAForm(alice, "multipart/form-data", "x");

    // The reader's own limits on the parts of a form.
    const one = { name: "file", filename: "f.txt", bytes: new Uint8Array([1]) };
    const refusals: [Parameters<typeof multipartBody>[0], RegExp][] = [
      [[{ name: "pfs", value: "1".repeat(4097) }, one], /pfs: longer than 4096 bytes/],
      [[{ name: "st", value: "version" }, { name: "st", value: "version" }, one], /st: sent twice/],
      [[one, { ...one, filename: "g.txt" }], /only one file part/],
      [
        [...Array.from({ length: 33 }, (_, i) => ({ name: `x${i}`, value: "v" })), one],
        /too many fields \(at most 32\)/,
      ],
    ];
    for (const [parts, message] of refusals) {
      const refused = await rawUpload(alice, multipartBody(parts));
      assert.equal(refused.status, 400, String(message));
      assert.equal(refused.body.errorCode, "REQUEST_001");
      assert.match(refused.body.message, message);
    }

    // Only the two good uploads were stored.
    assert.equal((await server.kv.get(["usage", alice.userSeq])).value, data.length + 2);
  });
});

Deno.test("rename: NONE refuses a taken name, AUTO numbers it; bad names are refused", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const a = await alice.newFile("a.txt", "a");
    await alice.upload("b.txt", "b");
    const folder = await alice.newFolder("F");

    const plain = await alice.call("PATCH", `/files/${a}/rename`, { rn: "c.txt" });
    assert.equal(plain.status, 200);
    assert.deepEqual(plain.body.data, { name: "c.txt" });
    const taken = await alice.call("PATCH", `/files/${a}/rename`, { rn: "B.TXT", ncp: "NONE" });
    assert.equal(taken.status, 409);
    assert.equal(taken.body.errorCode, "RESOURCE_003");
    const auto = await alice.call("PATCH", `/files/${a}/rename`, { rn: "b.txt", ncp: "AUTO" });
    assert.equal(auto.status, 200);
    assert.equal(auto.body.data.name, "b (1).txt");
    const download = await alice.fetch(`/files/${a}/download`);
    await download.body?.cancel();
    assert.match(download.headers.get("content-disposition")!, /filename="b \(1\)\.txt"/);

    for (const rn of ["", "x/y", "y".repeat(256)]) {
      const bad = await alice.call("PATCH", `/files/${a}/rename`, { rn });
      assert.equal(bad.body.errorCode, "RESOURCE_004", `rn ${JSON.stringify(rn)}`);
    }
    assert.equal(
      (await alice.call("PATCH", `/files/${a}/rename`, {})).body.errorCode,
      "REQUEST_001",
    );
    const wrongType = await alice.call("PATCH", `/files/${a}/rename`, { rn: 5 });
    assert.equal(wrongType.body.errorCode, "REQUEST_001");
    assert.match(wrongType.body.message, /rn/);
    const badNcp = await alice.call("PATCH", `/files/${a}/rename`, { rn: "z", ncp: "MAYBE" });
    assert.match(badNcp.body.message, /ncp/);
    const wrongFolder = await alice.call("PATCH", `/files/${a}/rename`, { rn: "z", pfs: folder });
    assert.equal(wrongFolder.body.errorCode, "REQUEST_001");
    assert.match(wrongFolder.body.message, /pfs/);
    const ofFolder = await alice.call("PATCH", `/files/${folder}/rename`, { rn: "G" });
    assert.equal(ofFolder.body.errorCode, "RESOURCE_006");
    const unknown = await alice.call("PATCH", `/files/424242/rename`, { rn: "z" });
    assert.equal(unknown.body.errorCode, "RESOURCE_002");
    const badId = await alice.call("PATCH", `/files/abc/rename`, { rn: "z" });
    assert.equal(badId.body.errorCode, "REQUEST_001");
  });
});

Deno.test("move within the drive; name clashes, unknown folders and other users' folders fail", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const bob = await newApiUser(server, "bob");
    const a = await alice.newFile("a.txt", "a");
    const f = await alice.newFolder("F");
    const moved = await alice.call("POST", `/files/${a}/move`, { pfs: f });
    assert.equal(moved.status, 200);
    assert.equal(moved.body.data.resourceSeq, a);
    assert.equal(moved.body.data.parentSeq, f);
    assert.equal(moved.body.data.name, "a.txt");
    assert.equal(moved.body.data.type, "FILE");

    await alice.upload("a.txt", "root twin");
    const clash = await alice.call("POST", `/files/${a}/move`, {});
    assert.equal(clash.status, 409);
    assert.equal(clash.body.errorCode, "RESOURCE_003");
    const missing = await alice.call("POST", `/files/${a}/move`, { pfs: 999999 });
    assert.equal(missing.body.errorCode, "RESOURCE_002");
    const ofFolder = await alice.call("POST", `/files/${f}/move`, {});
    assert.equal(ofFolder.body.errorCode, "RESOURCE_006");
    const bobFolder = await bob.newFolder("Mine");
    const intoBob = await alice.call("POST", `/files/${a}/move`, {
      pfs: bobFolder,
      ts: bob.userSeq,
    });
    assert.equal(intoBob.status, 403);
    assert.equal(intoBob.body.errorCode, "PERMISSION_002");
    const tsWithoutPfs = await alice.call("POST", `/files/${a}/move`, { ts: bob.userSeq });
    assert.equal(tsWithoutPfs.body.errorCode, "REQUEST_001");
    const bobMovesAlices = await bob.call("POST", `/files/${a}/move`, {});
    assert.equal(bobMovesAlices.body.errorCode, "PERMISSION_002");
    // Still where the first move put it.
    const item = await server.kv.get<{ parentRs: number }>(["res", a]);
    assert.equal(item.value?.parentRs, f);
  });
});

forEachBlobStore(
  "copy: new file with its own bytes, numbered name, charged to quota",
  async (server) => {
    const alice = await newApiUser(server, "alice");
    const bytes = testBytes(200_000, 7);
    const a = await alice.newFile("a.bin", bytes);
    const copy = await alice.call("POST", `/files/${a}/copy`, {});
    assert.equal(copy.status, 201);
    assert.equal(copy.body.data.resourceName, "a (1).bin");
    const c = copy.body.data.resourceSeq;
    assert.notEqual(c, a);
    assert.deepEqual(await downloadBytes(alice, c), bytes);
    assert.equal(await getUsage(server.kv, alice.userSeq), 400_000);
    // The copy is independent: deleting the original leaves it readable.
    assert.equal((await alice.call("PATCH", `/files/${a}/delete`)).status, 200);
    assert.deepEqual(await downloadBytes(alice, c), bytes);

    const f = await alice.newFolder("F");
    const intoFolder = await alice.call("POST", `/files/${c}/copy`, { pfs: f });
    assert.equal(intoFolder.body.data.resourceName, "a (1).bin");
    const bob = await newApiUser(server, "bob");
    const notHis = await bob.call("POST", `/files/${c}/copy`, {});
    assert.equal(notHis.body.errorCode, "PERMISSION_002");
  },
);

Deno.test("delete moves a file to the trash; folders and repeats are refused", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const a = await alice.newFile("a.txt", "abc");
    const f = await alice.newFolder("F");
    const del = await alice.call("PATCH", `/files/${a}/delete`);
    assert.equal(del.status, 200);
    assert.equal(del.body.data.resourceSeq, a);
    assert.ok(!Number.isNaN(Date.parse(del.body.data.trashedAt)));
    const gone = await alice.fetch(`/files/${a}/download`);
    assert.equal(gone.status, 404);
    assert.equal((await gone.json()).errorCode, "RESOURCE_002");
    assert.equal((await alice.call("PATCH", `/files/${a}/delete`)).body.errorCode, "RESOURCE_002");
    const folder = await alice.call("PATCH", `/files/${f}/delete`);
    assert.equal(folder.status, 400);
    assert.equal(folder.body.errorCode, "RESOURCE_006");
    // Trash still counts against the quota until purged.
    assert.equal(await getUsage(server.kv, alice.userSeq), 3);
    // The name is free again.
    assert.equal((await alice.upload("a.txt", "new")).body.data.resourceName, "a.txt");
  });
});

Deno.test("a read-only key can download but not upload, rename, move, copy or delete", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const a = await alice.newFile("a.txt", "abc");
    const readKey = await server.admin.createKey(alice.userSeq, ["api:read"]);
    const reader = new ApiUser(server.url, alice.userSeq, alice.tenantId, readKey, "alice");
    assert.equal(new TextDecoder().decode(await downloadBytes(reader, a)), "abc");
    assert.equal((await reader.call("GET", `/files/${a}/download-token`)).status, 200);
    assert.equal((await reader.call("GET", `/files/${a}/versions`)).status, 200);
    const view = await reader.fetch(`/files/${a}/view`);
    assert.equal(view.status, 200);
    await view.body?.cancel();
    const attempts = [
      await reader.upload("b.txt", "b"),
      await reader.call("PATCH", `/files/${a}/rename`, { rn: "z.txt" }),
      await reader.call("POST", `/files/${a}/move`, {}),
      await reader.call("POST", `/files/${a}/copy`, {}),
      await reader.call("PATCH", `/files/${a}/delete`),
    ];
    for (const r of attempts) {
      assert.equal(r.status, 403);
      assert.equal(r.body.errorCode, "AUTH_003");
    }
    assert.equal(await getUsage(server.kv, alice.userSeq), 3);
    assert.equal((await server.kv.get<{ name: string }>(["res", a])).value?.name, "a.txt");
  });
});

Deno.test("recipients: upload, version, download and copy by share permission", async () => {
  await withServer(async (server) => {
    const [alice, bob] = await newTeam(server, "alice", "bob");
    const rw = await alice.newFolder("ReadWrite");
    const ro = await alice.newFolder("ReadOnly");
    await alice.shareWith(rw, bob, "ce", "cd", "cu");
    await alice.shareWith(ro, bob);
    const up = await bob.upload("from-bob.txt", "hello", { pfs: rw, ss: alice.userSeq });
    assert.equal(up.status, 201);
    const rs = up.body.data.resourceSeq;
    // The owner of the folder owns (and pays for) what is uploaded into it.
    assert.equal(await getUsage(server.kv, alice.userSeq), 5);
    assert.equal(await getUsage(server.kv, bob.userSeq), 0);
    const denied = await bob.upload("x.txt", "x", { pfs: ro, ss: alice.userSeq });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.errorCode, "PERMISSION_004");

    const v2 = await bob.upload("any.txt", "hello v2", { st: "version", rs, ss: alice.userSeq });
    assert.equal(v2.status, 201);
    const inRo = await alice.newFile("doc.txt", "read only", ro);
    const noEdit = await bob.upload("doc.txt", "x", {
      st: "overwrite",
      rs: inRo,
      ss: alice.userSeq,
    });
    assert.equal(noEdit.body.errorCode, "PERMISSION_004");
    const noDownload = await bob.fetch(`/files/${inRo}/download?ss=${alice.userSeq}`);
    assert.equal(noDownload.status, 403);
    assert.equal((await noDownload.json()).errorCode, "PERMISSION_004");
    const view = await bob.fetch(`/files/${inRo}/view?ss=${alice.userSeq}`);
    assert.equal(view.status, 200);
    assert.equal(await view.text(), "read only");
    assert.equal(
      (await bob.call("POST", `/files/${inRo}/copy`, { ss: alice.userSeq })).body
        .errorCode,
      "PERMISSION_004",
    );

    const copy = await bob.call("POST", `/files/${rs}/copy`, { ss: alice.userSeq });
    assert.equal(copy.status, 201);
    assert.equal(await getUsage(server.kv, bob.userSeq), 8, "the copy is charged to bob");
    const mine = await bob.fetch(`/files/${copy.body.data.resourceSeq}/download`);
    assert.equal(await mine.text(), "hello v2");
  });
});

forEachBlobStore(
  "cross-drive move: owner and usage change in one step, quota enforced",
  async (server) => {
    const alice = await newApiUser(server, "alice");
    const bob = await newApiUser(server, "bob", { tenantId: alice.tenantId, quotaBytes: 20 });
    const shared = await alice.newFolder("Shared");
    await alice.shareWith(shared, bob, "ce", "cd", "cu");
    const rs = await alice.newFile("a.txt", "12345", shared);
    await alice.upload("a.txt", "1234567", { st: "version", rs });
    const big = await alice.newFile("big.txt", testBytes(30), shared);
    assert.equal(await getUsage(server.kv, alice.userSeq), 5 + 7 + 30);

    const tooBig = await bob.call("POST", `/files/${big}/move`, { ss: alice.userSeq });
    assert.equal(tooBig.status, 403);
    assert.equal(tooBig.body.errorCode, "RESOURCE_015");
    assert.equal(
      (await server.kv.get<{ ownerSeq: number }>(["res", big])).value?.ownerSeq,
      alice.userSeq,
    );

    // Bob takes the file out of the shared folder into his own root: every version moves with it.
    const moved = await bob.call("POST", `/files/${rs}/move`, { ss: alice.userSeq });
    assert.equal(moved.status, 200);
    assert.equal(moved.body.data.ownerSeq, bob.userSeq);
    assert.equal(moved.body.data.parentSeq, null);
    assert.equal(await getUsage(server.kv, alice.userSeq), 30);
    assert.equal(await getUsage(server.kv, bob.userSeq), 12);
    const res = await bob.fetch(`/files/${rs}/download`);
    assert.equal(await res.text(), "1234567");
    assert.equal((await bob.call("GET", `/files/${rs}/versions`)).body.data.items.length, 2);
    const gone = await alice.fetch(`/files/${rs}/download`);
    assert.equal(gone.status, 403);
    await gone.body?.cancel();

    // A file with its own share stays in its owner's drive.
    const sharedFile = await alice.newFile("s.txt", "s", shared);
    await alice.shareWith(sharedFile, bob, "ce", "cd", "cu");
    const refused = await bob.call("POST", `/files/${sharedFile}/move`, { ss: alice.userSeq });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.errorCode, "RESOURCE_017");
    await alice.call("PATCH", `/files/${sharedFile}/delete`);

    // And back: bob moves his own file into alice's folder shared with him (needs upload there).
    const back = await bob.call("POST", `/files/${rs}/move`, { pfs: shared, ts: alice.userSeq });
    assert.equal(back.status, 200);
    assert.equal(back.body.data.ownerSeq, alice.userSeq);
    assert.equal(await getUsage(server.kv, bob.userSeq), 0);
    assert.equal(await getUsage(server.kv, alice.userSeq), 43);
  },
);
