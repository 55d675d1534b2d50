import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { putContent } from "../../kv/tree/content.ts";
import { acquireLock, getLock } from "../../kv/tree/locks.ts";
import { getResource } from "../../kv/tree/resources.ts";
import { forEachBlobStore, type TestServer, withServer } from "../helpers/server.ts";
import { ApiUser, newApiUser, uploadAs } from "../helpers/api.ts";
import { newTeam } from "../helpers/team.ts";
import { child, parseXml, textAt, type XmlNode } from "../helpers/xml.ts";
import { until } from "../helpers/wait.ts";
import { lockAsOffice } from "../helpers/domain.ts";

const enc = (s: string) => new TextEncoder().encode(s);

/** Stored versions of a file, oldest first, from GET /files/{rs}/versions. */
async function versionsOf(user: ApiUser, rs: number): Promise<
  { version: number; size: number; sha256: string; reason: string }[]
> {
  const res = await user.call("GET", `/files/${rs}/versions`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return [...res.body.data.items].sort((a, b) => a.version - b.version);
}

/** A file whose name multipart filenames cannot carry (quotes): uploaded, then renamed. */
async function uploadNamed(server: TestServer, owner: ApiUser, name: string, content: string) {
  const rs = await uploadAs(server, owner, "upload.tmp", content);
  const key = await server.admin.createKey(owner.userSeq);
  const writer = new ApiUser(server.url, owner.userSeq, owner.tenantId, key, owner.accountId);
  const res = await writer.call("PATCH", `/files/${rs}/rename`, { rn: name });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.data.name, name);
  return rs;
}

type Op = "info" | "get" | "put" | "lock" | "unlock";
const METHOD: Record<Op, string> = {
  info: "GET",
  get: "GET",
  put: "PUT",
  lock: "POST",
  unlock: "POST",
};

/** One editor-session request by `user`'s key acting as `loginUserSeq`. */
function office(
  user: ApiUser,
  loginUserSeq: number | string,
  op: Op,
  query: Record<string, string | number | undefined>,
  body?: BodyInit,
): Promise<Response> {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) qs.set(k, String(v));
  return user.fetch(`/web-office/${loginUserSeq}/${op}?${qs}`, {
    method: METHOD[op],
    body,
    headers: body === undefined ? {} : { "content-type": "application/octet-stream" },
  });
}

/** An editor opened by `user` on one document; each call sends the session's parameters. */
class Editor {
  constructor(
    readonly user: ApiUser,
    readonly docId: string,
    readonly app = "WORD_EDITOR",
    readonly login: number = user.userSeq,
    readonly userId: string = user.accountId,
  ) {}

  private params(extra: Record<string, string | number | undefined> = {}) {
    return {
      docId: this.docId,
      app: this.app,
      user_id: this.userId,
      lang: "ko_KR",
      ...extra,
    };
  }

  async info(): Promise<XmlNode> {
    const res = await office(this.user, this.login, "info", this.params());
    const text = await res.text();
    assert.equal(res.status, 200, text);
    assert.equal(res.headers.get("content-type"), "application/xml; charset=utf-8");
    return parseXml(text);
  }

  async get(): Promise<string> {
    const res = await office(this.user, this.login, "get", this.params());
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/octet-stream");
    return await res.text();
  }

  put(content: string, type?: string, size = enc(content).byteLength) {
    return office(this.user, this.login, "put", this.params({ size, type }), content);
  }

  lock() {
    return office(this.user, this.login, "lock", this.params());
  }

  unlock() {
    return office(this.user, this.login, "unlock", this.params());
  }
}

/** A plain-text failure: the status, no JSON envelope, and the code in the text. */
async function assertPlainFailure(res: Response, status: number, code?: string) {
  const text = await res.text();
  assert.equal(res.status, status, text);
  assert.match(res.headers.get("content-type") ?? "", /^text\/plain/);
  assert.throws(() => JSON.parse(text), "the body must not be a JSON envelope");
  if (code) assert.match(text, new RegExp(code));
  return text;
}

/** The editor reads `content`, but its lock and its save are refused: 403 with `code`. */
async function assertReadsOnly(editor: Editor, content: string, code: string) {
  assert.equal(await editor.get(), content);
  await assertPlainFailure(await editor.lock(), 403, code);
  await assertPlainFailure(await editor.put("overwritten", "save"), 403, code);
}

/** After refused edits: file `rs` of `owner` is unlocked and still has its one version. */
async function assertUntouched(server: TestServer, owner: ApiUser, rs: number) {
  assert.equal(await getLock(server.kv, rs), null);
  assert.equal((await versionsOf(owner, rs)).length, 1);
}

/** A document "a.docx" of `owner` holding `content`, and the owner's own editor on it. */
async function ownDocument(server: TestServer, owner: ApiUser, content: string) {
  const rs = await uploadAs(server, owner, "a.docx", content);
  return { rs, editor: new Editor(owner, `${owner.userSeq}-${rs}`) };
}

/** The editor's whole edit: lock, save `content`, unlock, and read `content` back. */
async function saveAndRead(editor: Editor, content: string) {
  await assertEmpty200(await editor.lock());
  const put = await editor.put(content, "save");
  assert.equal(put.status, 200);
  await put.body?.cancel();
  await assertEmpty200(await editor.unlock());
  assert.equal(await editor.get(), content);
}

async function assertEmpty200(res: Response) {
  const text = await res.text();
  assert.equal(res.status, 200, text);
  assert.equal(text, "");
}

async function currentContent(server: TestServer, rs: number) {
  const r = (await getResource(server.kv, rs))!;
  return { version: r.version, sha256: r.sha256, size: r.size };
}

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

forEachBlobStore(
  "a whole editing session: info, get, lock, three saves with reasons, unlock",
  async (server) => {
    const alice = await newApiUser(server, "alice");
    const content = "first draft";
    const name = `Plan & <Q3> "final" 'v1'.docx`;
    const rs = await uploadNamed(server, alice, name, content);
    const docId = `${alice.userSeq}-${rs}`;
    const editor = new Editor(alice, docId);

    const info = await editor.info();
    assert.equal(info.name, "document");
    assert.equal(textAt(info, "docId"), docId);
    assert.equal(textAt(info, "fileName"), name);
    assert.equal(Number(textAt(info, "size")), enc(content).byteLength);
    assert.equal(textAt(info, "revision"), "1");
    assert.equal(textAt(info, "owner", "userSeq"), String(alice.userSeq));
    assert.equal(textAt(info, "permissions", "view"), "true");
    assert.equal(textAt(info, "permissions", "edit"), "true");
    assert.equal(textAt(info, "editable"), "true");
    assert.equal(child(info, "lock").attrs.locked, "false");
    assert.equal(textAt(info, "collaborator", "userSeq"), String(alice.userSeq));
    assert.equal(textAt(info, "collaborator", "cursorName"), "alice");
    const color = textAt(info, "collaborator", "cursorColor");
    assert.match(color, /^#[0-9A-F]{6}$/);

    assert.equal(await editor.get(), content);

    await assertEmpty200(await editor.lock());
    const locked = await editor.info();
    const lock = child(locked, "lock");
    assert.equal(lock.attrs.locked, "true");
    assert.equal(textAt(lock, "owner"), "alice");
    assert.equal(textAt(lock, "source"), "office");
    assert.equal(textAt(lock, "lockedByYou"), "true");
    assert.ok(Date.parse(textAt(lock, "expiresAt")) > Date.parse(textAt(lock, "lockedAt")));
    assert.equal(textAt(locked, "collaborator", "cursorColor"), color, "the color is stable");

    const saves = [["save", "second"], ["autoSave", "third, longer"], ["close", "fourth ✓"]];
    for (const [type, text] of saves) {
      const res = await editor.put(text, type);
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /^text\/plain/);
      assert.equal(await res.text(), docId);
    }
    const versions = await versionsOf(alice, rs);
    assert.deepEqual(versions.map((v) => v.reason), ["upload", "save", "autoSave", "close"]);
    assert.deepEqual(
      versions.map((v) => v.sha256),
      [content, ...saves.map((s) => s[1])].map(sha256),
    );
    assert.equal(await editor.get(), "fourth ✓");
    const after = await editor.info();
    assert.equal(textAt(after, "revision"), "4");
    assert.equal(Number(textAt(after, "size")), enc("fourth ✓").byteLength);
    assert.equal(child(after, "lock").attrs.locked, "true", "saving keeps the lock");

    await assertEmpty200(await editor.unlock());
    assert.equal(child(await editor.info(), "lock").attrs.locked, "false");
    assert.equal(await getLock(server.kv, rs), null);
    // Unlocking an unlocked document succeeds, as in the provider's lock table.
    await assertEmpty200(await editor.unlock());
  },
);

Deno.test("a put without a type is kept as reason 'put'; a streamed body is stored exactly", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const rs = await uploadAs(server, alice, "big.bin", "x");
    const docId = `${alice.userSeq}-${rs}`;
    // 3 MiB in 64 KiB chunks, sent as a stream (no Content-Length known up front).
    const chunk = new Uint8Array(64 * 1024).map((_, i) => i % 251);
    const hash = createHash("sha256");
    for (let i = 0; i < 48; i++) hash.update(chunk);
    const body = ReadableStream.from((function* () {
      for (let i = 0; i < 48; i++) yield chunk;
    })());
    const res = await alice.fetch(
      `/web-office/${alice.userSeq}/put?docId=${docId}&app=CELL_EDITOR&user_id=alice&size=${
        48 * chunk.byteLength
      }`,
      { method: "PUT", body, duplex: "half" } as RequestInit,
    );
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(await res.text(), docId);
    const versions = await versionsOf(alice, rs);
    assert.equal(versions.at(-1)!.reason, "put");
    assert.equal(versions.at(-1)!.sha256, hash.digest("hex"));
    assert.equal(versions.at(-1)!.size, 48 * chunk.byteLength);
  });
});

Deno.test("invalid parameters answer 400 in plain text naming the parameter", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const rs = await uploadAs(server, alice, "a.docx", "keep me");
    const docId = `${alice.userSeq}-${rs}`;
    const good = { docId, app: "WORD_EDITOR", user_id: "alice" };
    const cases: [Op, Record<string, string | number | undefined>, string][] = [
      ["info", { ...good, app: "WORD_EDIT" }, "app"],
      ["info", { ...good, app: "EXCEL_EDITOR" }, "app"],
      ["get", { ...good, app: "word_editor" }, "app"],
      ["info", { ...good, app: undefined }, "app"],
      ["info", { ...good, docId: "abc" }, "docId"],
      ["get", { ...good, docId: `${rs}` }, "docId"],
      ["info", { ...good, docId: `0-${rs}` }, "docId"],
      ["lock", { ...good, docId: `1-${rs}-2` }, "docId"],
      ["unlock", { ...good, docId: undefined }, "docId"],
      ["get", { ...good, user_id: undefined }, "user_id"],
      ["info", { ...good, user_id: "" }, "user_id"],
      ["get", { ...good, user_id: "a".repeat(255) }, "user_id"],
      ["info", { ...good, lang: "<script>" }, "lang"],
      ["put", { ...good }, "size"],
      ["put", { ...good, size: "7b" }, "size"],
      ["put", { ...good, size: -7 }, "size"],
      ["put", { ...good, size: 7, type: "autosave" }, "type"],
      ["lock", { ...good, app: "PDF_READER" }, "app"],
    ];
    for (const [op, query, field] of cases) {
      const res = await office(
        alice,
        alice.userSeq,
        op,
        query,
        op === "put" ? "changed" : undefined,
      );
      const text = await assertPlainFailure(res, 400, "REQUEST_001");
      assert.match(text, new RegExp(field), `${op} ${JSON.stringify(query)}: ${text}`);
    }
    const badLogin = await office(alice, "abc", "info", good);
    assert.match(await assertPlainFailure(badLogin, 400), /loginUserSeq/);
    const v = await versionsOf(alice, rs);
    assert.equal(v.length, 1, "no failed put stored anything");
    assert.equal(await new Editor(alice, docId).get(), "keep me");
  });
});

Deno.test("loginUserSeq outside the key's tenant, or no user at all: 403 plain text on all five", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const mallory = await newApiUser(server, "mallory"); // another tenant
    const rs = await uploadAs(server, alice, "a.docx", "secret");
    const docId = `${alice.userSeq}-${rs}`;
    for (const login of [alice.userSeq, 999_999]) {
      const ed = new Editor(mallory, docId, "WORD_EDITOR", login, "alice");
      for (const res of [await ed.lock(), await ed.put("owned"), await ed.unlock()]) {
        await assertPlainFailure(res, 403, "OFFICE_001");
      }
      for (const op of ["info", "get"] as const) {
        const res = await office(mallory, login, op, {
          docId,
          app: "WORD_EDITOR",
          user_id: "alice",
        });
        await assertPlainFailure(res, 403, "OFFICE_001");
      }
    }
    assert.equal(await getLock(server.kv, rs), null);
    assert.equal(await new Editor(alice, docId).get(), "secret");
  });
});

Deno.test("a document not shared with the named user: SHARE_001, 403 plain text, nothing changes", async () => {
  await withServer(async (server) => {
    const [alice, carol] = await newTeam(server, "alice", "carol");
    const rs = await uploadAs(server, alice, "a.docx", "alice's");
    const before = await currentContent(server, rs);
    // docId naming the real owner, and docId claiming carol shared it.
    for (const docId of [`${alice.userSeq}-${rs}`, `${carol.userSeq}-${rs}`]) {
      const ed = new Editor(carol, docId);
      const info = await office(carol, carol.userSeq, "info", {
        docId,
        app: "WORD_EDITOR",
        user_id: "carol",
      });
      await assertPlainFailure(info, 403, "SHARE_001");
      const get = await office(carol, carol.userSeq, "get", {
        docId,
        app: "WORD_EDITOR",
        user_id: "carol",
      });
      await assertPlainFailure(get, 403);
      await assertPlainFailure(await ed.lock(), 403);
      await assertPlainFailure(await ed.put("carol was here"), 403);
      await assertPlainFailure(await ed.unlock(), 403);
    }
    // The owner's own docId with a wrong sharing-user part is refused too.
    const wrongSs = new Editor(alice, `${carol.userSeq}-${rs}`);
    await assertPlainFailure(await wrongSs.put("x"), 403);
    assert.deepEqual(await currentContent(server, rs), before);
    assert.equal(await getLock(server.kv, rs), null);
    // An unknown document: 404, still plain text.
    await assertPlainFailure(await new Editor(alice, `${alice.userSeq}-987654`).lock(), 404);
  });
});

Deno.test("VIEWER and WATCHER surfaces read but cannot lock or save", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const rs = await uploadAs(server, alice, "sheet.xlsx", "numbers");
    const docId = `${alice.userSeq}-${rs}`;
    for (const app of ["CELL_VIEWER", "SHOW_WATCHER", "PDF_VIEWER"]) {
      const viewer = new Editor(alice, docId, app);
      const info = await viewer.info();
      assert.equal(textAt(info, "app"), app);
      assert.equal(textAt(info, "permissions", "edit"), "true", "the user may edit elsewhere");
      assert.equal(textAt(info, "editable"), "false", "but not from this surface");
      await assertReadsOnly(viewer, "numbers", "OFFICE_003");
    }
    await assertUntouched(server, alice, rs);
  });
});

Deno.test("size mismatch: 400 plain text and the old content kept", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const { rs, editor } = await ownDocument(server, alice, "original");
    await assertEmpty200(await editor.lock());
    const before = await currentContent(server, rs);
    for (const size of [3, 100, 0]) {
      const text = await assertPlainFailure(await editor.put("replacement", "save", size), 400);
      assert.match(text, /size/);
    }
    assert.deepEqual(await currentContent(server, rs), before);
    assert.equal(await editor.get(), "original");
    assert.equal((await versionsOf(alice, rs)).length, 1);
  });
});

Deno.test("put applies the owner's quota (RESOURCE_015) and keeps the content", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice", { quotaBytes: 100 });
    const { editor } = await ownDocument(server, alice, "x".repeat(40));
    // Versions are kept, so 40 + 70 bytes would pass the 100-byte quota.
    await assertPlainFailure(await editor.put("y".repeat(70), "save"), 403, "RESOURCE_015");
    assert.equal(await editor.get(), "x".repeat(40));
    const ok = await editor.put("z".repeat(50), "save");
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
  });
});

Deno.test("another editor's lock blocks lock, save and unlock with 409 plain text", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const { rs, editor } = await ownDocument(server, alice, "v1");
    // Another user's editor session on the same document (the lock its lock call records).
    await lockAsOffice(server.kv, rs, 424242, "bob", 60_000);
    const lock = child(await editor.info(), "lock");
    assert.equal(lock.attrs.locked, "true");
    assert.equal(textAt(lock, "owner"), "bob");
    assert.equal(textAt(lock, "lockedByYou"), "false");
    const before = await currentContent(server, rs);
    await assertPlainFailure(await editor.lock(), 409, "RESOURCE_010");
    await assertPlainFailure(await editor.put("alice's", "save"), 409, "RESOURCE_010");
    await assertPlainFailure(await editor.unlock(), 409, "RESOURCE_010");
    assert.deepEqual(await currentContent(server, rs), before);
    assert.equal((await getLock(server.kv, rs))?.owner, "office:424242", "the lock is kept");
  });
});

Deno.test("editor locks and storage-provider locks are one lock", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const rsA = await uploadAs(server, alice, "a.docx", "a1");
    const rsB = await uploadAs(server, alice, "b.docx", "b1");
    const provider = {
      source: "provider" as const,
      owner: "provider:host1:someone",
      holder: "host1",
    };

    // A provider lock blocks the editor.
    await acquireLock(server.kv, { rs: rsA, ...provider, ttlMs: null });
    const edA = new Editor(alice, `${alice.userSeq}-${rsA}`);
    const lock = child(await edA.info(), "lock");
    assert.equal(textAt(lock, "source"), "provider");
    assert.equal(textAt(lock, "owner"), "host1");
    assert.equal(textAt(lock, "expiresAt"), "", "provider locks have no lease");
    await assertPlainFailure(await edA.lock(), 409, "RESOURCE_010");
    await assertPlainFailure(await edA.put("a2", "save"), 409, "RESOURCE_010");
    assert.equal(await edA.get(), "a1");

    // An editor lock blocks the provider.
    const edB = new Editor(alice, `${alice.userSeq}-${rsB}`);
    await assertEmpty200(await edB.lock());
    await assert.rejects(
      acquireLock(server.kv, { rs: rsB, ...provider, ttlMs: null }),
      (err: Error & { code?: string }) => err.code === "RESOURCE_010",
    );
    // A provider-side save (it writes through its own adapter's locks only) is refused too.
    await assert.rejects(
      putContent(server.deps, {
        rs: rsB,
        body: ReadableStream.from([enc("host's save")]),
        mode: "version",
        reason: "save",
        actorSeq: alice.userSeq,
        lockOwner: (l) => l.source === "provider" && l.owner.startsWith("provider:host1:"),
        quotaCode: "RESOURCE_015",
      }),
      (err: Error & { code?: string }) => err.code === "RESOURCE_010",
    );
    assert.equal(await edB.get(), "b1");
    assert.equal((await getLock(server.kv, rsB))?.owner, `office:${alice.userSeq}`);
  });
});

Deno.test("a repeated lock and a save by the holder renew the lease", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const { rs, editor } = await ownDocument(server, alice, "v1");
    const expiry = async () => Date.parse(textAt(await editor.info(), "lock", "expiresAt"));
    const pause = () => new Promise((r) => setTimeout(r, 5));

    await assertEmpty200(await editor.lock());
    const first = await expiry();
    assert.ok(first - Date.now() > 25 * 60_000, "default lease is 30 minutes");
    await pause();
    await assertEmpty200(await editor.lock());
    const second = await expiry();
    assert.ok(second > first, "repeated lock extends the lease");
    await pause();
    const put = await editor.put("v2", "autoSave");
    assert.equal(put.status, 200);
    await put.body?.cancel();
    assert.ok((await expiry()) > second, "a save by the holder extends the lease");

    // A save while nobody holds a lock does not create one.
    await assertEmpty200(await editor.unlock());
    const put2 = await editor.put("v3", "save");
    assert.equal(put2.status, 200);
    await put2.body?.cancel();
    assert.equal(await getLock(server.kv, rs), null);
  });
});

Deno.test("an expired lease frees the document for another editor", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const { rs, editor: crashed } = await ownDocument(server, alice, "v1");
    await assertEmpty200(await crashed.lock());
    const provider = { source: "provider" as const, owner: "provider:host1:x", holder: "host1" };
    await assert.rejects(acquireLock(server.kv, { rs, ...provider, ttlMs: null }));
    // The crashed editor never unlocked; once its lease is over, the document is free.
    await until(
      "the lease to run out",
      async () => child(await crashed.info(), "lock").attrs.locked === "false",
    );
    await acquireLock(server.kv, { rs, ...provider, ttlMs: null });
    // The returning editor has lost the lock: its save and unlock fail.
    await assertPlainFailure(await crashed.put("late save", "autoPut"), 409, "RESOURCE_010");
    await assertPlainFailure(await crashed.unlock(), 409);
    assert.equal(await crashed.get(), "v1");
  }, { env: { DRIVE_OFFICE_LOCK_TTL_S: "3" } });
});

Deno.test("a read-only key can lock, put and unlock (the spec's scope exemption)", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice", { scopes: ["api:read"] });
    const { editor } = await ownDocument(server, alice, "v1");
    // The same key is refused by an ordinary write endpoint...
    const folder = await alice.call("POST", "/folders", { fn: "x" });
    assert.equal(folder.status, 403);
    assert.equal(folder.body.errorCode, "AUTH_003");
    // ...but not by the editor session.
    await saveAndRead(editor, "v2 from a read-only key");
  });
});

Deno.test("default mode: any key of the tenant may act as any of its users (the documented risk)", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const carol = await newApiUser(server, "carol", {
      tenantId: alice.tenantId,
      scopes: ["api:read"],
    });
    const rs = await uploadAs(server, alice, "a.docx", "v1");
    const asAlice = new Editor(
      carol,
      `${alice.userSeq}-${rs}`,
      "WORD_EDITOR",
      alice.userSeq,
      "alice",
    );
    await assertEmpty200(await asAlice.lock());
    assert.equal(
      (await getLock(server.kv, rs))?.owner,
      `office:${alice.userSeq}`,
      "the lock is Alice's, though Carol's key took it",
    );
    await assertEmpty200(await asAlice.unlock());
  });
});

Deno.test("default mode: user_id is not compared with loginUserSeq's account (the spec checks the tenant only)", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    await newApiUser(server, "carol", { tenantId: alice.tenantId });
    const rs = await uploadAs(server, alice, "a.docx", "v1");
    const docId = `${alice.userSeq}-${rs}`;
    // Alice's own key naming another account of the tenant, and one nobody has.
    let content = "v1";
    for (const userId of ["carol", "somebody-else@example.com"]) {
      const ed = new Editor(alice, docId, "WORD_EDITOR", alice.userSeq, userId);
      assert.equal(textAt(await ed.info(), "collaborator", "userId"), "alice");
      assert.equal(await ed.get(), content);
      await assertEmpty200(await ed.lock());
      // The session acts as loginUserSeq: the lock is Alice's, whatever user_id says.
      const lock = await getLock(server.kv, rs);
      assert.deepEqual([lock?.owner, lock?.holder], [`office:${alice.userSeq}`, "alice"]);
      const put = await ed.put(`by ${userId}`, "save");
      assert.equal(put.status, 200, await put.clone().text());
      await put.body?.cancel();
      await assertEmpty200(await ed.unlock());
      content = `by ${userId}`;
    }
    assert.equal(
      (await versionsOf(alice, rs)).at(-1)!.sha256,
      sha256("by somebody-else@example.com"),
    );
  });
});

Deno.test("hardened mode: loginUserSeq must be the key's own user", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice", { scopes: ["api:read"] });
    const carol = await newApiUser(server, "carol", { tenantId: alice.tenantId });
    const rs = await uploadAs(server, alice, "a.docx", "v1");
    const docId = `${alice.userSeq}-${rs}`;
    const asAlice = new Editor(carol, docId, "WORD_EDITOR", alice.userSeq, "alice");
    for (const res of [await asAlice.lock(), await asAlice.put("carol"), await asAlice.unlock()]) {
      await assertPlainFailure(res, 403, "OFFICE_002");
    }
    for (const op of ["info", "get"] as const) {
      const res = await office(carol, alice.userSeq, op, {
        docId,
        app: "WORD_EDITOR",
        user_id: "alice",
      });
      await assertPlainFailure(res, 403, "OFFICE_002");
    }
    // Her own loginUserSeq with another account's user_id is refused the same way.
    const namesCarol = new Editor(alice, docId, "WORD_EDITOR", alice.userSeq, "carol");
    const reads = (["info", "get"] as const).map((op) =>
      office(alice, alice.userSeq, op, { docId, app: "WORD_EDITOR", user_id: "carol" })
    );
    for (
      const res of [await namesCarol.lock(), await namesCarol.put("x"), ...await Promise.all(reads)]
    ) {
      const text = await assertPlainFailure(res, 403, "OFFICE_002");
      assert.match(text, /user_id/);
    }
    // Alice's own key still works, read-only scope included, with her e-mail as user_id too.
    assert.equal(
      textAt(
        await new Editor(alice, docId, "WORD_EDITOR", alice.userSeq, "ALICE@example.com").info(),
        "editable",
      ),
      "true",
    );
    const own = new Editor(alice, docId);
    await saveAndRead(own, "v2");
  }, { env: { DRIVE_OFFICE_STRICT_USER: "true" } });
});

Deno.test("info escapes names and the cursor color is stable per user and differs between users", async () => {
  await withServer(async (server) => {
    const tenant = (await server.admin.createTenant("t")).id;
    const tricky = `Bob & <Co> "quoted" 'single' ]]>`;
    const u = await server.admin.createUser(tenant, "bob", { name: tricky });
    const key = await server.admin.createKey(u.userSeq);
    const bob = new ApiUser(server.url, u.userSeq, tenant, key, "bob");
    const other = await newApiUser(server, "other", { tenantId: tenant });
    const rs = await uploadNamed(server, bob, `a&b<c>"d"'e'.docx`, "x");
    const rs2 = await uploadAs(server, other, "o.docx", "y");
    const info = await new Editor(bob, `${bob.userSeq}-${rs}`).info();
    assert.equal(textAt(info, "fileName"), `a&b<c>"d"'e'.docx`);
    assert.equal(textAt(info, "collaborator", "cursorName"), tricky);
    assert.equal(textAt(info, "owner", "name"), tricky);
    const again = await new Editor(bob, `${bob.userSeq}-${rs}`).info();
    const otherInfo = await new Editor(other, `${other.userSeq}-${rs2}`).info();
    const colorOf = (n: XmlNode) => textAt(n, "collaborator", "cursorColor");
    assert.equal(colorOf(again), colorOf(info));
    assert.notEqual(colorOf(otherInfo), colorOf(info));
  });
});

Deno.test("the five editor-session endpoints are in openapi.json", async () => {
  await withServer(async (server) => {
    const doc = await (await fetch(`${server.url}/api/external/v1/openapi.json`)).json();
    const base = "/web-office/{loginUserSeq}";
    assert.ok(doc.paths[`${base}/info`].get.responses["200"].content["application/xml"]);
    assert.ok(doc.paths[`${base}/get`].get);
    assert.ok(doc.paths[`${base}/put`].put.responses["409"]);
    assert.ok(doc.paths[`${base}/lock`].post);
    assert.ok(doc.paths[`${base}/unlock`].post);
    const appParam = doc.paths[`${base}/info`].get.parameters.find((p: { name: string }) =>
      p.name === "app"
    );
    assert.ok(appParam.schema.enum.includes("HWP_WATCHER"));
  });
});

// ---------------------------------------------------------------- documents shared with Bob

Deno.test("Bob edits a document Alice shared with him; his lock blocks Alice's editor", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const bob = await newApiUser(server, "bob", { tenantId: alice.tenantId, scopes: ["api:read"] });
    const rs = await uploadAs(server, alice, "shared.docx", "v1");
    const docId = `${alice.userSeq}-${rs}`;
    const bobEd = new Editor(bob, docId);
    const aliceEd = new Editor(alice, docId);
    await assertPlainFailure(
      await office(bob, bob.userSeq, "info", { docId, app: "WORD_EDITOR", user_id: "bob" }),
      403,
      "SHARE_001",
    );
    await alice.shareWith(rs, bob, "ce", "cd");

    const info = await bobEd.info();
    assert.equal(textAt(info, "owner", "userId"), "alice");
    assert.equal(textAt(info, "permissions", "edit"), "true");
    assert.equal(textAt(info, "permissions", "share"), "false");
    assert.equal(textAt(info, "collaborator", "userId"), "bob");
    const aliceColor = textAt(await aliceEd.info(), "collaborator", "cursorColor");
    assert.notEqual(textAt(info, "collaborator", "cursorColor"), aliceColor);
    assert.equal(await bobEd.get(), "v1");

    await assertEmpty200(await bobEd.lock());
    const seen = child(await aliceEd.info(), "lock");
    assert.equal(textAt(seen, "owner"), "bob");
    assert.equal(textAt(seen, "lockedByYou"), "false");
    await assertPlainFailure(await aliceEd.lock(), 409, "RESOURCE_010");
    await assertPlainFailure(await aliceEd.put("alice's edit", "save"), 409, "RESOURCE_010");
    await assertPlainFailure(await aliceEd.unlock(), 409);

    const put = await bobEd.put("bob's edit", "saveAs");
    assert.equal(put.status, 200);
    assert.equal(await put.text(), docId);
    const versions = await versionsOf(alice, rs);
    assert.deepEqual(versions.map((v) => v.reason), ["upload", "saveAs"]);
    assert.equal(await aliceEd.get(), "bob's edit");
    await assertEmpty200(await bobEd.unlock());
    await assertEmpty200(await aliceEd.lock());
  });
});

Deno.test("Bob with a view-only share reads but cannot lock or save", async () => {
  await withServer(async (server) => {
    const [alice, bob] = await newTeam(server, "alice", "bob");
    const rs = await uploadAs(server, alice, "shared.docx", "v1");
    await alice.shareWith(rs, bob, "cd");
    const bobEd = new Editor(bob, `${alice.userSeq}-${rs}`);
    const info = await bobEd.info();
    assert.equal(textAt(info, "permissions", "view"), "true");
    assert.equal(textAt(info, "permissions", "edit"), "false");
    assert.equal(textAt(info, "editable"), "false");
    await assertReadsOnly(bobEd, "v1", "PERMISSION_004");
    await assertUntouched(server, alice, rs);
  });
});

Deno.test("another editor takes over a crashed editor's expired lease", async () => {
  await withServer(async (server) => {
    const [alice, bob] = await newTeam(server, "alice", "bob");
    const rs = await uploadAs(server, alice, "shared.docx", "v1");
    await alice.shareWith(rs, bob, "ce", "cd");
    const docId = `${alice.userSeq}-${rs}`;
    const bobEd = new Editor(bob, docId);
    const aliceEd = new Editor(alice, docId);
    await assertEmpty200(await bobEd.lock());
    await assertPlainFailure(await aliceEd.lock(), 409);
    // Bob's lease runs out by itself; until then alice's lock keeps failing.
    await until("bob's lease to run out", async () => {
      const res = await aliceEd.lock();
      if (res.status === 200) {
        await assertEmpty200(res);
        return true;
      }
      await assertPlainFailure(res, 409);
      return false;
    });
    await assertPlainFailure(await bobEd.put("bob's late save", "autoPut"), 409, "RESOURCE_010");
    const put = await aliceEd.put("alice's", "save");
    assert.equal(put.status, 200);
    await put.body?.cancel();
    assert.equal(await bobEd.get(), "alice's");
  }, { env: { DRIVE_OFFICE_LOCK_TTL_S: "3" } });
});

Deno.test("a locked document refuses move, rename and delete through the drive API", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const dest = await alice.newFolder("dest");
    const rsA = await uploadAs(server, alice, "a.docx", "a1");
    const rsB = await uploadAs(server, alice, "b.docx", "b1");
    const editor = new Editor(alice, `${alice.userSeq}-${rsA}`);
    await assertEmpty200(await editor.lock());
    // A provider host addresses its locked document by path: moving it away would strand the
    // lock (no lease) and send the host's next save to a new file at the old path.
    await acquireLock(server.kv, {
      rs: rsB,
      source: "provider",
      owner: "provider:host1:someone",
      holder: "host1",
      ttlMs: null,
    });
    for (const rs of [rsA, rsB]) {
      const before = (await getResource(server.kv, rs))!;
      const move = await alice.call("POST", `/files/${rs}/move`, { pfs: dest });
      assert.equal(move.status, 409, JSON.stringify(move.body));
      assert.equal(move.body.errorCode, "RESOURCE_010");
      const rename = await alice.call("PATCH", `/files/${rs}/rename`, { rn: "renamed.docx" });
      assert.equal(rename.body.errorCode, "RESOURCE_010");
      const del = await alice.call("PATCH", `/files/${rs}/delete`);
      assert.equal(del.body.errorCode, "RESOURCE_010");
      assert.deepEqual(await getResource(server.kv, rs), before, "nothing changed");
    }
    // Once unlocked, the move goes through.
    await assertEmpty200(await editor.unlock());
    const moved = await alice.call("POST", `/files/${rsA}/move`, { pfs: dest });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.equal(moved.body.data.parentSeq, dest);
  });
});
