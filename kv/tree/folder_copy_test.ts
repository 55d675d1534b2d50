/**
 * Folder copy rules (copyFolder): the whole tree arrives with the same contents, in commits that
 * fit denokv's check limit; refused before anything is written into itself, over quota, over the
 * item limit; and a copy cut off midway keeps its working name.
 */
import assert from "node:assert/strict";
import { MAX_COMMIT_CHECKS } from "../db.ts";
import type { Deps } from "../deps.ts";
import type { User } from "../identity/users.ts";
import { assertFails, blobCount, domainTest, newFile, newFolder, newUser } from "../testing.ts";
import { COPY_BATCH, copyFolder } from "./folder_copy.ts";
import { iterateSubtree } from "./listing.ts";
import { listResourcesOwnedBy, type Resource } from "./resources.ts";
import { getUsage } from "./usage.ts";

/** `d` whose KV fails any commit carrying more than MAX_COMMIT_CHECKS checks, and counts them. */
function checkLimitedDeps(d: Deps, seen: number[]): Deps {
  const kv = new Proxy(d.kv, {
    get(target, prop) {
      if (prop !== "atomic") {
        const v = Reflect.get(target, prop);
        return typeof v === "function" ? v.bind(target) : v;
      }
      return () => {
        const op = target.atomic();
        let checks = 0;
        const check = op.check.bind(op);
        const commit = op.commit.bind(op);
        op.check = (...c) => {
          checks += c.length;
          return check(...c);
        };
        op.commit = () => {
          seen.push(checks);
          if (checks > MAX_COMMIT_CHECKS) throw new Error(`too many checks: ${checks}`);
          return commit();
        };
        return op;
      };
    },
  });
  return { ...d, kv };
}

/** name path -> sha256 (files) or "dir" of every item under `folder`. */
async function shape(d: Deps, folder: Resource): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for await (const { resource, path } of iterateSubtree(d.kv, folder)) {
    out[path.join("/")] = resource.type === "FILE" ? resource.sha256! : "dir";
  }
  return out;
}

/** Top/ with a.txt, Sub/ (12 files, more than a batch), Sub/Deep/z.txt. */
async function sampleTree(d: Deps, owner: User) {
  const top = await newFolder(d, owner, "Top");
  await newFile(d, owner, "a.txt", "alpha", top.rs);
  const sub = await newFolder(d, owner, "Sub", top.rs);
  for (let i = 0; i < COPY_BATCH + 3; i++) {
    await newFile(d, owner, `f${i}.txt`, `file ${i}`, sub.rs);
  }
  const deep = await newFolder(d, owner, "Deep", sub.rs);
  await newFile(d, owner, "z.txt", "zulu", deep.rs);
  return { top, sub, deep };
}

domainTest("a folder copy copies the whole tree in commits within the check limit", async (d) => {
  const alice = await newUser(d, "alice");
  const { top } = await sampleTree(d, alice);
  const dest = await newFolder(d, alice, "Dest");
  const before = await getUsage(d.kv, alice.userSeq);
  const seen: number[] = [];
  const copy = await copyFolder(checkLimitedDeps(d, seen), {
    rs: top.rs,
    destOwnerSeq: alice.userSeq,
    destParentRs: dest.rs,
    actorSeq: alice.userSeq,
  });
  assert.equal(copy.name, "Top");
  assert.equal(copy.parentRs, dest.rs);
  assert.deepEqual(await shape(d, copy), await shape(d, top));
  assert.ok(Math.max(...seen) <= MAX_COMMIT_CHECKS, `checks per commit: ${seen}`);
  const sizes = (await listResourcesOwnedBy(d.kv, alice.userSeq))
    .filter((r) => r.parentRs !== null && r.type === "FILE");
  const copied = sizes.reduce((n, r) => n + r.size, 0) / 2;
  assert.equal(await getUsage(d.kv, alice.userSeq), before + copied);
  // A second copy into the same folder takes "Top (1)", as a file copy does.
  const again = await copyFolder(d, {
    rs: top.rs,
    destOwnerSeq: alice.userSeq,
    destParentRs: dest.rs,
    actorSeq: alice.userSeq,
  });
  assert.equal(again.name, "Top (1)");
});

domainTest("a folder is never copied into itself or below it (RESOURCE_007)", async (d) => {
  const alice = await newUser(d, "alice");
  const { top, sub, deep } = await sampleTree(d, alice);
  for (const dest of [top, sub, deep]) {
    await assertFails(
      copyFolder(d, {
        rs: top.rs,
        destOwnerSeq: alice.userSeq,
        destParentRs: dest.rs,
        actorSeq: alice.userSeq,
      }),
      "RESOURCE_007",
    );
  }
});

domainTest("over quota or over the item limit, a folder copy writes nothing", async (d) => {
  const alice = await newUser(d, "alice", { quotaBytes: 150 });
  const { top } = await sampleTree(d, alice);
  const count = async () => (await listResourcesOwnedBy(d.kv, alice.userSeq)).length;
  const [items, usage, blobs] = [
    await count(),
    await getUsage(d.kv, alice.userSeq),
    await blobCount(d),
  ];
  const input = { rs: top.rs, destOwnerSeq: alice.userSeq, destParentRs: null, actorSeq: 1 };
  await assertFails(copyFolder(d, input), "RESOURCE_015");
  const few = { ...d, config: { ...d.config, folderCopyMaxItems: 5 } };
  const bob = await newUser(d, "bob");
  await assertFails(copyFolder(few, { ...input, destOwnerSeq: bob.userSeq }), "RESOURCE_021");
  assert.deepEqual(
    [await count(), await getUsage(d.kv, alice.userSeq), await blobCount(d)],
    [items, usage, blobs],
  );
  assert.deepEqual(await listResourcesOwnedBy(d.kv, bob.userSeq), []);
});

domainTest("a copy cut off midway keeps its working name, never the final one", async (d) => {
  const alice = await newUser(d, "alice");
  const { top } = await sampleTree(d, alice);
  const before = await getUsage(d.kv, alice.userSeq);
  let copied = 0;
  await assert.rejects(
    copyFolder(d, {
      rs: top.rs,
      destOwnerSeq: alice.userSeq,
      destParentRs: null,
      actorSeq: alice.userSeq,
      onCopied: () => {
        if (++copied > 3) throw new Error("crash");
        return Promise.resolve();
      },
    }),
    /crash/,
  );
  const roots = (await listResourcesOwnedBy(d.kv, alice.userSeq))
    .filter((r) => r.parentRs === null).map((r) => r.name).sort();
  assert.equal(roots.length, 2);
  assert.equal(roots[0], "Top");
  assert.match(roots[1], /^Top \(copying [0-9a-f]{8}\)$/);
  // Only what was stored stays charged: the reservation of the rest is given back.
  const stored = (await listResourcesOwnedBy(d.kv, alice.userSeq)).reduce((n, r) => n + r.size, 0);
  assert.equal(await getUsage(d.kv, alice.userSeq), stored);
  assert.ok(stored > before);
});
