/**
 * Property-style test: a seeded pseudo-random sequence of drive operations over HTTP (uploads,
 * versions, overwrites, copies, cross-drive moves, renames, folder moves, trash, restore,
 * purge, documents, and requests that must fail), checking after every step that usage,
 * names, parents and blobs still agree. A failure names the seed and step, so it reproduces.
 */
import assert from "node:assert/strict";
import { releaseLock } from "../../kv/tree/locks.ts";
import { listResourcesOwnedBy, type Resource } from "../../kv/tree/resources.ts";
import { listVersions } from "../../kv/tree/content_versions.ts";
import { nameKeyOf } from "../../kv/tree/names.ts";
import { forEachBlobStore, fsBlobFiles, type TestServer } from "../helpers/server.ts";
import { type ApiUser, newApiUser } from "../helpers/api.ts";
import { prng, testBytes } from "../helpers/bytes.ts";
import { lockAsOffice } from "../helpers/domain.ts";

/** Another seed: INVARIANT_SEED=123 deno test -A tests/usage_invariant_test.ts */
const SEED = Number(Deno.env.get("INVARIANT_SEED") ?? 0x5eed_2026);
const STEPS = 150;
const NAMES = ["a.txt", "A.TXT", "b.bin", "report.docx", "notes", "x (1).txt", "Ünïcode.md"];

async function checkInvariants(server: TestServer, users: ApiUser[], where: string) {
  const referenced = new Set<string>();
  for (const u of users) {
    const owned = await listResourcesOwnedBy(server.kv, u.userSeq);
    const byRs = new Map(owned.map((r) => [r.rs, r]));
    let bytes = 0;
    for (const r of owned) {
      for (const v of await listVersions(server.kv, r.rs)) {
        bytes += v.size;
        assert.ok(!referenced.has(v.blobId), `${where}: blob ${v.blobId} referenced twice`);
        referenced.add(v.blobId);
      }
    }
    const admin = await server.admin.call("GET", `/users/${u.userSeq}`);
    assert.equal(admin.body.usedBytes, bytes, `${where}: usedBytes of ${u.accountId}`);

    const siblings = new Map<string, Resource>();
    for (const r of owned.filter((r) => r.trashedAt === null)) {
      const slot = `${r.parentRs}/${nameKeyOf(r.name)}`;
      const other = siblings.get(slot);
      assert.ok(!other, `${where}: ${r.rs} and ${other?.rs} are both named ${slot}`);
      siblings.set(slot, r);
      if (r.parentRs !== null) {
        const parent = byRs.get(r.parentRs);
        assert.ok(parent, `${where}: parent ${r.parentRs} of live ${r.rs} is missing`);
        assert.equal(parent.type, "FOLDER", `${where}: parent of ${r.rs} is a file`);
      }
    }
  }
  if (server.blobs.kind === "fs") {
    const files = await fsBlobFiles(server);
    assert.deepEqual(files.temp, [], `${where}: temp files left`);
    assert.deepEqual(
      [...files.blobs].sort(),
      [...referenced].sort(),
      `${where}: blob files on disk differ from the referenced blobs`,
    );
  }
}

/** Status of a request, failing the test on any 5xx. */
// deno-lint-ignore no-explicit-any
async function statusOf(what: string, res: Promise<{ status: number; body: any }>) {
  const r = await res;
  if (Deno.env.get("INVARIANT_DEBUG")) console.log(what, r.status, r.body?.errorCode ?? "");
  assert.ok(r.status < 500, `${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r;
}

forEachBlobStore("random drive operations keep usage, names, parents and blobs consistent", async (
  server,
) => {
  const tenant = await server.admin.createTenant("Invariants");
  const alice = await newApiUser(server, "inv-alice", { tenantId: tenant.id, quotaBytes: 60_000 });
  const bob = await newApiUser(server, "inv-bob", { tenantId: tenant.id, quotaBytes: 40_000 });
  const users = [alice, bob];
  // Each user drops files into the other's "Inbox" (upload permission only).
  const inbox = new Map<number, number>();
  for (const [owner, guest] of [[alice, bob], [bob, alice]]) {
    const rs = await owner.newFolder("Inbox");
    await owner.shareWith(rs, guest, "cu");
    inbox.set(owner.userSeq, rs);
  }
  const rand = prng(SEED);
  const pick = <T>(xs: T[]): T | undefined => xs[Math.floor(rand() * xs.length)];
  const locked = new Set<number>();

  for (let step = 0; step < STEPS; step++) {
    const me = pick(users)!;
    const other = users.find((u) => u !== me)!;
    const mine = await listResourcesOwnedBy(server.kv, me.userSeq);
    // Reachable: neither it nor any folder above it is in the trash.
    const byRs = new Map(mine.map((r) => [r.rs, r]));
    const reachable = (r: Resource | undefined): boolean =>
      !!r && r.trashedAt === null && (r.parentRs === null || reachable(byRs.get(r.parentRs)));
    const live = mine.filter((r) => reachable(r));
    const files = live.filter((r) => r.type === "FILE");
    const folders = live.filter((r) => r.type === "FOLDER");
    const trashed = mine.filter((r) => r.trashedAt !== null);
    const folderOrRoot = () => rand() < 0.3 ? undefined : pick(folders)?.rs;
    const op = Math.floor(rand() * 17);
    const where = `seed ${SEED} step ${step} op ${op} by ${me.accountId}`;
    const file = pick(files);
    const pfs = folderOrRoot();
    switch (op) {
      case 0:
      case 1: {
        const size = Math.floor(rand() * 4000);
        await statusOf(
          where,
          me.upload(pick(NAMES)!, testBytes(size, step + 1), pfs ? { pfs } : {}),
        );
        break;
      }
      case 2:
      case 3:
        if (file) {
          const st = op === 2 ? "version" : "overwrite";
          const r = await statusOf(
            where,
            me.upload("v.bin", testBytes(Math.floor(rand() * 3000), step), { st, rs: file.rs }),
          );
          if (locked.has(file.rs)) assert.equal(r.body.errorCode, "RESOURCE_010", where);
        }
        break;
      case 4:
        if (file) {
          await statusOf(where, me.call("POST", `/files/${file.rs}/copy`, pfs ? { pfs } : {}));
        }
        break;
      case 5:
        if (file) {
          const r = await statusOf(
            where,
            me.call("POST", `/files/${file.rs}/move`, {
              ts: other.userSeq,
              pfs: inbox.get(other.userSeq),
            }),
          );
          if (locked.has(file.rs)) assert.equal(r.body.errorCode, "RESOURCE_010", where);
          if (r.status === 200) locked.delete(file.rs);
        }
        break;
      case 6: {
        const target = pick(live);
        if (target) {
          const kind = target.type === "FILE" ? "files" : "folders";
          await statusOf(
            where,
            me.call("PATCH", `/${kind}/${target.rs}/rename`, { rn: pick(NAMES) }),
          );
        }
        break;
      }
      case 7:
        await statusOf(where, me.call("POST", "/folders", { fn: pick(NAMES), pfs }));
        break;
      case 8: {
        const target = pick(live);
        if (target) {
          const kind = target.type === "FILE" ? "files" : "folders";
          await statusOf(where, me.call("POST", `/${kind}/${target.rs}/move`, pfs ? { pfs } : {}));
        }
        break;
      }
      case 9: {
        const target = pick(live);
        if (target && target.rs !== inbox.get(me.userSeq)) {
          const kind = target.type === "FILE" ? "files" : "folders";
          await statusOf(where, me.call("PATCH", `/${kind}/${target.rs}/delete`));
        }
        break;
      }
      case 10: {
        const target = pick(trashed);
        if (target) await statusOf(where, me.call("POST", `/trash/${target.rs}/restore`));
        break;
      }
      case 11: {
        const target = pick(trashed);
        if (target) {
          const r = await statusOf(where, me.call("DELETE", `/trash/${target.rs}`));
          if (r.status === 200) locked.delete(target.rs);
        }
        break;
      }
      case 12:
        await statusOf(where, me.call("POST", "/documents", { tt: "note", pfs }));
        break;
      case 13: {
        // Must fail: more bytes than the quota has left; nothing may change.
        const used = (await server.admin.call("GET", `/users/${me.userSeq}`)).body.usedBytes;
        const quota = me === alice ? 60_000 : 40_000;
        const r = await statusOf(where, me.upload("big.bin", testBytes(quota - used + 1, step)));
        assert.equal(r.body.errorCode, "RESOURCE_015", `${where}: over-quota upload accepted`);
        break;
      }
      case 14: {
        // Must fail: names no folder may hold.
        const target = pick(live);
        if (target) {
          const kind = target.type === "FILE" ? "files" : "folders";
          const bad = pick(["..", "a/b", "c\\d", " ", "x\u0001y", "n".repeat(256)])!;
          const r = await statusOf(
            where,
            me.call("PATCH", `/${kind}/${target.rs}/rename`, { rn: bad }),
          );
          assert.equal(r.status, 400, `${where}: bad name ${JSON.stringify(bad)}: ${r.status}`);
        }
        break;
      }
      case 15:
        if (file && !locked.has(file.rs)) {
          await lockAsOffice(server.kv, file.rs, "invariants", "invariants", null);
          locked.add(file.rs);
        } else if (file) {
          await releaseLock(server.kv, file.rs, "office:invariants");
          locked.delete(file.rs);
        }
        break;
      default: {
        // A file of the other user that sits in my Inbox: upload-only, so moving it must fail.
        const theirs = (await listResourcesOwnedBy(server.kv, me.userSeq)).find((r) =>
          r.parentRs === inbox.get(me.userSeq) && r.type === "FILE" && r.trashedAt === null
        );
        if (theirs) {
          const r = await statusOf(
            where,
            other.call("POST", `/files/${theirs.rs}/move`, {}),
          );
          assert.ok(r.status === 403 || r.status === 404, `${where}: ${r.status}`);
        }
      }
    }
    await checkInvariants(server, users, where);
  }
});
