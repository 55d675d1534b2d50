/**
 * On a real denokv (KV Connect), whose commits take at most 10 checks where a KV file takes 100:
 * everything a drive does 30 folders deep works, and so do batched purges and an account
 * deletion of many items. Before the tree shape stamp (kv/tree/tree_shape.ts), a move into a
 * deep folder, a share, a WebDAV lock or a purge of more than 8 items each built a commit past
 * the limit. Skipped only when the tests are not asked to run on denokv (DRIVE_TEST_KV=denokv,
 * as .ci/run's denokv pass does).
 */
import assert from "node:assert/strict";
import { testsWantDenokv } from "../helpers/denokv_server.ts";
import { withTwoServersOnOneKv } from "../helpers/server.ts";
import { type ApiUser, newApiUser, shareFlags } from "../helpers/api.ts";
import { davAs, driveUrl, statusOf } from "../dav/client.ts";

const DEPTH = 30;

const LOCK_BODY = `<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/>` +
  `</D:lockscope><D:locktype><D:write/></D:locktype><D:owner>t</D:owner></D:lockinfo>`;

async function deepChain(u: ApiUser): Promise<{ deepest: number; path: string }> {
  const names = Array.from({ length: DEPTH }, (_, i) => `level ${i}`);
  const seqs = await u.newFolderPath(...names);
  return { deepest: seqs.at(-1)!, path: names.map(encodeURIComponent).join("/") };
}

function ok(res: { status: number; body: unknown }, what: string) {
  assert.equal(res.status, 200, `${what}: ${JSON.stringify(res.body)}`);
}

Deno.test({
  name: "denokv: moves, shares and WebDAV locks 30 folders deep fit its 10 checks per commit",
  ignore: !testsWantDenokv(),
  fn: async () => {
    await withTwoServersOnOneKv(async (a, b) => {
      const alice = await newApiUser(a, "alice");
      const { deepest, path } = await deepChain(alice);
      // A folder moved into the deepest one, then out again (the cycle walk reads 30 levels).
      const loose = await alice.newFolder("loose");
      ok(await alice.call("POST", `/folders/${loose}/move`, { pfs: deepest }), "move in");
      const shallow = await alice.newFolder("shallow");
      ok(await alice.call("POST", `/folders/${loose}/move`, { pfs: shallow }), "move out");
      // A file deep down, moved there from the root.
      const file = await alice.newFile("deep.txt", "deep bytes");
      ok(await alice.call("POST", `/files/${file}/move`, { pfs: deepest }), "file move");
      // A share of the deepest folder.
      const share = await alice.newShare({ rs: deepest, st: "ORG_LINK", ...shareFlags("cd") });
      assert.equal(share.rs ?? deepest, deepest);
      // A WebDAV lock on the deep file, through the other process; then a PUT without the
      // token is refused (the lock holds), and UNLOCK frees it.
      const url = driveUrl(alice, `${path}/deep.txt`).replace(a.url, b.url);
      const lock = await davAs(alice, "LOCK", url, { timeout: "Second-600" }, LOCK_BODY);
      assert.equal(lock.status, 200, await lock.text());
      const token = lock.headers.get("lock-token")!;
      assert.equal(await statusOf(davAs(alice, "PUT", url, {}, "other")), 423);
      assert.equal(await statusOf(davAs(alice, "UNLOCK", url, { "lock-token": token })), 204);
      // A depth-infinity lock on the deepest folder.
      const folderUrl = driveUrl(alice, `${path}/`).replace(a.url, b.url);
      const wide = await davAs(alice, "LOCK", folderUrl, { depth: "infinity" }, LOCK_BODY);
      assert.equal(wide.status, 200, await wide.text());
    });
  },
});

Deno.test({
  name: "denokv: purging a folder of 40 items and deleting an account batch within 10 checks",
  ignore: !testsWantDenokv(),
  fn: async () => {
    await withTwoServersOnOneKv(async (a) => {
      const alice = await newApiUser(a, "alice");
      const folder = await alice.newFolder("many");
      for (let i = 0; i < 40; i++) await alice.newFile(`f${i}.txt`, `bytes ${i}`, folder);
      ok(await alice.call("PATCH", `/folders/${folder}/delete`), "trash");
      const purge = await alice.call("DELETE", `/trash/${folder}`);
      assert.ok(purge.status === 200 || purge.status === 204, JSON.stringify(purge.body));
      const trash = await alice.call("GET", "/trash");
      ok(trash, "trash list");
      assert.equal(JSON.stringify(trash.body).includes('"many"'), false);
      // An account holding 40 files is deleted page by page.
      const bob = await newApiUser(a, "bob");
      for (let i = 0; i < 40; i++) await bob.newFile(`b${i}.txt`, `bytes ${i}`);
      const gone = await a.admin.call("DELETE", `/users/${bob.userSeq}?confirm=bob`);
      assert.equal(gone.status, 200, JSON.stringify(gone.body));
      assert.equal(gone.body.resources, 40);
      assert.equal((await a.admin.call("GET", `/users/${bob.userSeq}`)).status, 404);
    });
  },
});
