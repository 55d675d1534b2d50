/**
 * A purge races work authorized before the trash: a move out of the purged tree keeps what
 * moved, and a file stored into it is purged along with it (not orphaned).
 */
import assert from "node:assert/strict";
import { storeGeneratedFile } from "../../kv/tree/content.ts";
import { moveResource } from "../../kv/tree/moves.ts";
import { getResource, listResourcesOwnedBy } from "../../kv/tree/resources.ts";
import { listVersions } from "../../kv/tree/content_versions.ts";
import { purgeTrashed } from "../../kv/tree/trash.ts";
import { getUsage } from "../../kv/tree/usage.ts";
import { type TestServer, withServer } from "../helpers/server.ts";
import { type ApiUser, newApiUser } from "../helpers/api.ts";
import { addVersions } from "../helpers/domain.ts";

const SLOW_VERSIONS = 1000;

/**
 * Adds to folder `top` a file with many versions, which the purge sheds over many commits,
 * trashes `top` and starts purging it. Resolves once the purge is shedding those versions: it
 * has listed the whole tree by then, so what happens next races it.
 */
async function purgeUnderway(server: TestServer, alice: ApiUser, top: number) {
  const slow = await alice.newFile("zz.txt", "v1", top);
  await addVersions(server, alice.userSeq, slow, SLOW_VERSIONS);
  assert.equal((await alice.call("PATCH", `/folders/${top}/delete`)).status, 200);
  const purge = purgeTrashed(server.deps, { ownerSeq: alice.userSeq, rs: top });
  for (
    let i = 0;
    i < 100_000 && (await listVersions(server.kv, slow)).length === SLOW_VERSIONS;
    i++
  ) {
    await new Promise((r) => setTimeout(r, 0));
  }
  return { purge };
}

Deno.test("a file or folder moved out of a trashed folder while its purge runs is not deleted", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const top = await alice.newFolder("Top");
    // Listed first, so the purge deletes it last (children go bottom-up, in reverse).
    const kept = await alice.newFile("a.txt", "keep me", top);
    const keptFolder = await alice.newFolder("b", top);
    const keptChild = await alice.newFile("child.txt", "me too", keptFolder);
    const { purge } = await purgeUnderway(server, alice, top);
    // Moves that were authorized before the trash (the race) commit now.
    await moveResource(server.deps, { rs: kept, destParentRs: null, actorSeq: alice.userSeq });
    await moveResource(server.deps, {
      rs: keptFolder,
      destParentRs: null,
      actorSeq: alice.userSeq,
    });
    await purge;
    const file = await getResource(server.kv, kept);
    assert.ok(file, "the moved file was deleted by the purge");
    assert.equal(file.parentRs, null);
    assert.equal(file.trashedAt, null);
    const child = await getResource(server.kv, keptChild);
    assert.equal(child?.parentRs, keptFolder, "a file in a moved folder was deleted by the purge");
    const versions = [
      ...await listVersions(server.kv, kept),
      ...await listVersions(server.kv, keptChild),
    ];
    assert.equal(versions.length, 2);
    assert.equal(await getUsage(server.kv, alice.userSeq), versions[0].size + versions[1].size);
    const body = await alice.fetch(`/files/${kept}/download`);
    assert.equal(await body.text(), "keep me");
  });
});

Deno.test("a file stored into a trashed folder while its purge runs is purged too, not orphaned", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const top = await alice.newFolder("Top");
    const sub = await alice.newFolder("b", top);
    const { purge } = await purgeUnderway(server, alice, top);
    // An upload authorized before the trash commits now, into the already listed subfolder.
    const late = await storeGeneratedFile(server.deps, {
      ownerSeq: alice.userSeq,
      parentRs: sub,
      name: "late.txt",
      bytes: new TextEncoder().encode("late"),
      actorSeq: alice.userSeq,
      onConflict: "fail",
      reason: "upload",
      quotaCode: "RESOURCE_015",
    });
    await purge;
    const left = await listResourcesOwnedBy(server.kv, alice.userSeq);
    assert.deepEqual(left.map((r) => r.rs), [], "the purge left resources behind");
    assert.deepEqual(await listVersions(server.kv, late.rs), []);
    assert.equal(await getUsage(server.kv, alice.userSeq), 0);
  });
});
