/**
 * Deleting users and tenants, transferring a drive, and the retention job, on the real domain
 * functions: what each frees or moves (resources, versions, blobs, usage to the byte), what it
 * leaves alone (the other users), the confirmation, and that a recorded job a crash left is
 * finished by the retention job.
 */
import assert from "node:assert/strict";
import type { Deps } from "../deps.ts";
import { createApiKey, verifyApiKey } from "../identity/api_keys.ts";
import { getTenant } from "../identity/tenants.ts";
import { getOidcSettings, setOidcSettings } from "../identity/oidc.ts";
import { getUser, setUserDisabled, type User } from "../identity/users.ts";
import { addPin, listPins } from "../sharing/pins.ts";
import { resolveLinkToken } from "../sharing/share_links.ts";
import { getResource, listResourcesOwnedBy } from "../tree/resources.ts";
import { listChildren } from "../tree/listing.ts";
import { listVersions } from "../tree/content_versions.ts";
import { getUsage } from "../tree/usage.ts";
import {
  addVersion,
  assertFails,
  blobCount,
  domainTest,
  newFile,
  newFolder,
  newShare,
  newTenant,
  newUser,
  storedBytes,
  trash,
} from "../testing.ts";
import { deleteTenant, deleteUser } from "./delete_account.ts";
import { retentionLeaseKey } from "../keys.ts";
import { getJob, recordJob } from "./jobs.ts";
import { runRetention } from "./retention.ts";
import { transferDrive } from "./transfer.ts";
import { shareFlags } from "../../tests/helpers/api.ts";

const DAY = 86_400_000;
const bytes = (n: number, fill = 1) => new Uint8Array(n).fill(fill);

/** A drive with a folder tree, a file with two versions, a trashed folder and a public link. */
async function populate(d: Deps, owner: User) {
  const docs = await newFolder(d, owner, "Docs");
  const deep = await newFolder(d, owner, "Deep", docs.rs);
  const report = await newFile(d, owner, "report.txt", bytes(300), deep.rs);
  await addVersion(d, owner, report.rs, bytes(200, 2));
  await newFile(d, owner, "a.txt", bytes(50));
  const old = await newFolder(d, owner, "Old");
  await newFile(d, owner, "inside-old.txt", bytes(70), old.rs);
  await trash(d, owner, old);
  const share = await newShare(d, owner, docs, {
    st: "PUBLIC_LINK",
    ...shareFlags(),
  });
  return { docs, deep, report, old, share, bytes: 300 + 200 + 50 + 70 };
}

/** Ana, with a populated drive, and Ben, colleagues in tenant Acme. */
async function anaAndBen(d: Deps) {
  const tenant = await newTenant(d, "Acme");
  const ana = await newUser(d, "ana", { tenantId: tenant.id });
  const ben = await newUser(d, "ben", { tenantId: tenant.id });
  return { tenant, ana, ben, anaDrive: await populate(d, ana) };
}

domainTest(
  "deleting a user frees every byte and record of theirs and nothing of others",
  async (d) => {
    const { tenant, ana, ben, anaDrive } = await anaAndBen(d);
    await newFile(d, ben, "ben.txt", bytes(40));
    const { apiKey } = await createApiKey(d.kv, { userSeq: ana.userSeq, scopes: ["api:read"] });
    await addPin(d.kv, ana, anaDrive.docs.rs, null);
    const blobsBefore = await blobCount(d);
    assert.equal(await getUsage(d.kv, ana.userSeq), anaDrive.bytes);

    // A wrong confirmation deletes nothing.
    await assertFails(deleteUser(d, ana.userSeq, "ben"), "ADMIN_002", "confirm");
    assert.ok(await getUser(d.kv, ana.userSeq));

    const result = await deleteUser(d, ana.userSeq, "ANA");
    assert.equal(result.resources, 6);
    assert.equal(result.freedBytes, anaDrive.bytes);
    assert.equal(result.sharesRemoved, 1);
    assert.equal(result.keysDeleted, 1);
    assert.equal(await getUser(d.kv, ana.userSeq), null);
    assert.deepEqual(await listResourcesOwnedBy(d.kv, ana.userSeq), []);
    assert.equal(await getUsage(d.kv, ana.userSeq), 0);
    // Four versions' blobs (report twice, a.txt, inside-old.txt) are gone; ben's stays.
    assert.equal(await blobCount(d), blobsBefore - 4);
    assert.equal(await verifyApiKey(d.kv, apiKey), null);
    await assert.rejects(resolveLinkToken(d.kv, anaDrive.share.linkToken!));
    assert.deepEqual(await listPins(d.kv, ana), []);
    assert.equal((await getJob(d.kv, "user_delete", ana.userSeq)).value, null);
    // The tenant and the other user are untouched.
    assert.ok(await getTenant(d.kv, tenant.id));
    assert.equal(await getUsage(d.kv, ben.userSeq), 40);
    assert.equal((await listResourcesOwnedBy(d.kv, ben.userSeq)).length, 1);
  },
);

domainTest(
  "deleting a tenant deletes each of its users; confirm is the tenant's name",
  async (d) => {
    const acme = await newTenant(d, "Acme");
    const other = await newTenant(d, "Other");
    const ana = await newUser(d, "ana", { tenantId: acme.id });
    const cy = await newUser(d, "cy", { tenantId: acme.id });
    const dee = await newUser(d, "dee", { tenantId: other.id });
    await populate(d, ana);
    await newFile(d, cy, "c.txt", bytes(10));
    await newFile(d, dee, "d.txt", bytes(20));
    const sso = { label: "Acme", issuer: "https://sso.acme.test", clientId: "drive" };
    await setOidcSettings(d, acme.id, { ...sso, clientSecret: "s3cret" });
    await setOidcSettings(d, other.id, { ...sso, clientSecret: "s3cret" });
    await assertFails(deleteTenant(d, acme.id, "acme"), "ADMIN_002", "confirm");
    const result = await deleteTenant(d, acme.id, "Acme");
    assert.deepEqual(result.users.map((u) => u.userSeq).sort(), [ana.userSeq, cy.userSeq].sort());
    assert.equal(await getTenant(d.kv, acme.id), null);
    assert.equal(await getOidcSettings(d.kv, acme.id), null, "its single sign-on goes with it");
    assert.ok(await getOidcSettings(d.kv, other.id));
    assert.equal(await getUser(d.kv, ana.userSeq), null);
    assert.equal(await getUser(d.kv, cy.userSeq), null);
    assert.ok(await getUser(d.kv, dee.userSeq));
    assert.equal(await getUsage(d.kv, dee.userSeq), 20);
  },
);

domainTest(
  "a transfer moves the whole drive into a folder named after the old user, usage exact",
  async (d) => {
    const { ana, ben, anaDrive } = await anaAndBen(d);
    // ben already has a root item named "ana": the transfer folder takes the next free name.
    await newFolder(d, ben, "ana");
    await newFile(d, ben, "mine.txt", bytes(40));

    const result = await transferDrive(d, { fromUserSeq: ana.userSeq, toUserSeq: ben.userSeq });
    assert.equal(result.folderName, "ana (1)");
    assert.equal(result.resources, 6);
    assert.equal(result.movedBytes, anaDrive.bytes);
    assert.equal(result.sharesRemoved, 1);
    assert.deepEqual(await listResourcesOwnedBy(d.kv, ana.userSeq), []);
    assert.equal(await getUsage(d.kv, ana.userSeq), 0);
    assert.equal(await getUsage(d.kv, ben.userSeq), 40 + anaDrive.bytes);
    assert.equal(await getUsage(d.kv, ben.userSeq), await storedBytes(d, ben));
    // The old root's live items are listed in the folder; the trashed one restores into it.
    const listed = await listChildren(d.kv, ben.userSeq, result.folderRs, {
      sort: "name",
      order: "asc",
      limit: 10,
    });
    assert.deepEqual(listed.items.map((r) => r.name).sort(), ["Docs", "a.txt"]);
    const report = await getResource(d.kv, anaDrive.report.rs);
    assert.equal(report?.ownerSeq, ben.userSeq);
    assert.equal(report?.parentRs, anaDrive.deep.rs);
    const old = await getResource(d.kv, anaDrive.old.rs);
    assert.equal(old?.parentRs, result.folderRs);
    assert.notEqual(old?.trashedAt, null);
    // The old user stays (an administrator deletes them separately); no job is left.
    assert.ok(await getUser(d.kv, ana.userSeq));
    assert.equal((await getJob(d.kv, "transfer", ana.userSeq)).value, null);
  },
);

domainTest("a transfer goes only to another user of the same tenant", async (d) => {
  const ana = await newUser(d, "ana");
  const zed = await newUser(d, "zed");
  await assertFails(
    transferDrive(d, { fromUserSeq: ana.userSeq, toUserSeq: zed.userSeq }),
    "USER_004",
    "toUserSeq",
  );
  await assertFails(
    transferDrive(d, { fromUserSeq: ana.userSeq, toUserSeq: ana.userSeq }),
    "USER_004",
  );
  await assertFails(
    transferDrive(d, { fromUserSeq: ana.userSeq, toUserSeq: 9999 }),
    "USER_001",
    "toUserSeq",
  );
});

domainTest("retention purges trash past its age and versions beyond the kept count", async (d) => {
  const ana = await newUser(d, "ana");
  const old = await newFolder(d, ana, "Old");
  await newFile(d, ana, "x.txt", bytes(70), old.rs);
  await trash(d, ana, old);
  const doc = await newFile(d, ana, "doc.bin", bytes(100, 1));
  for (const fill of [2, 3, 4]) await addVersion(d, ana, doc.rs, bytes(100 + fill, fill));
  const cfg = { ...d, config: { ...d.config, trashRetentionDays: 30, versionsKeep: 2 } };

  // A day later: the trash stays; the two oldest of four versions go.
  const early = await runRetention(cfg, { now: Date.now() + DAY });
  assert.equal(early.ran, true);
  assert.equal(early.trashPurged, 0);
  assert.equal(early.versionsRemoved, 2);
  assert.equal(early.freedBytes, 100 + 102);
  assert.deepEqual((await listVersions(d.kv, doc.rs)).map((v) => v.size), [103, 104]);
  assert.equal(await getUsage(d.kv, ana.userSeq), 70 + 103 + 104);

  // 31 days on: the trashed folder and its file are purged; a repeated run has nothing to do.
  const later = await runRetention(cfg, { now: Date.now() + 31 * DAY });
  assert.equal(later.trashPurged, 1);
  assert.equal(later.freedBytes, 70);
  assert.equal(await getResource(d.kv, old.rs), null);
  assert.equal(await getUsage(d.kv, ana.userSeq), 103 + 104);
  assert.equal(await getUsage(d.kv, ana.userSeq), await storedBytes(d, ana));
  const again = await runRetention(cfg, { now: Date.now() + 31 * DAY });
  assert.deepEqual([again.trashPurged, again.versionsRemoved, again.freedBytes], [0, 0, 0]);
});

domainTest(
  "retention runs on one process at a time and finishes a deletion a crash left",
  async (d) => {
    const ana = await newUser(d, "ana");
    await populate(d, ana);
    // A crash right after the deletion was recorded and the user disabled.
    await recordJob(d.kv, { kind: "user_delete", id: ana.userSeq, startedAt: Date.now() });
    await setUserDisabled(d.kv, ana.userSeq, true);

    // Another process holds the lease: this run does nothing.
    const now = Date.now();
    await d.kv.set(retentionLeaseKey(), { holder: "other", until: now + 60_000 });
    assert.equal((await runRetention(d, { now, holder: "me" })).ran, false);
    assert.ok(await getUser(d.kv, ana.userSeq));
    // Once the lease lapses this process takes it, and finishes the recorded deletion.
    const report = await runRetention(d, { now: now + 61_000, holder: "me" });
    assert.equal(report.ran, true);
    assert.equal(report.jobsResumed, 1);
    assert.equal(await getUser(d.kv, ana.userSeq), null);
    assert.equal(await getUsage(d.kv, ana.userSeq), 0);
    assert.deepEqual(await listResourcesOwnedBy(d.kv, ana.userSeq), []);
  },
);
