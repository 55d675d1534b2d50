/**
 * Test support for the domain tests beside the kv/ modules (`*_test.ts`); the service never
 * imports it. Each test gets its own `:memory:` KV with the KV blob store, so the rules are
 * exercised through the real domain functions without HTTP, and fixtures create tenants, users,
 * folders, files and shares (and trash them) the way the service does.
 */
import assert from "node:assert/strict";
import { openKvBlobStore } from "../blobs/kv.ts";
import { readConfig } from "../config.ts";
import { attachParentMemo } from "./parent_memo.ts";
import { createDeps, type Deps } from "./deps.ts";
import { DriveError, type ErrorCode } from "./errors.ts";
import { createTenant, type Tenant } from "./identity/tenants.ts";
import { createUser, type User } from "./identity/users.ts";
import { createShare, type ShareInput } from "./sharing/share_writes.ts";
import type { Share } from "./sharing/shares.ts";
import { createFolder } from "./tree/folders.ts";
import { putContent, storeGeneratedFile } from "./tree/content.ts";
import { trashResource } from "./tree/moves.ts";
import { listResourcesOwnedBy, type Resource } from "./tree/resources.ts";
import { listVersions } from "./tree/content_versions.ts";
import { blobStoreKeys } from "./keys.ts";

/**
 * Registers a test that runs `fn` on fresh Deps over a `:memory:` KV, closed afterwards; `t`
 * is there for tests made of steps.
 */
export function domainTest(
  name: string,
  fn: (d: Deps, t: Deno.TestContext) => Promise<void>,
): void {
  Deno.test(name, async (t) => {
    // With the parent memo openKv gives every service handle, so the rules run on its batches.
    const kv = attachParentMemo(await Deno.openKv(":memory:"));
    try {
      const config = readConfig({ DRIVE_KV: ":memory:", DRIVE_BLOB_STORE: "kv" });
      const blobs = openKvBlobStore(kv, blobStoreKeys);
      await fn(createDeps(config, { kv, blobs }), t);
    } finally {
      kv.close();
    }
  });
}

/** Runs `fn` on a bare `:memory:` KV (no Deps), closed afterwards. */
export async function withMemoryKv(fn: (kv: Deno.Kv) => Promise<void>): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  try {
    await fn(kv);
  } finally {
    kv.close();
  }
}

/**
 * Runs `fn` with Date.now returning `clock.now`, which the test moves; the real clock is back
 * afterwards. The tests of one file run one after another, so no other test sees the stub.
 */
export async function withClock(fn: (clock: { now: number }) => Promise<void>): Promise<void> {
  const real = Date.now;
  const clock = { now: real() };
  Date.now = () => clock.now;
  try {
    await fn(clock);
  } finally {
    Date.now = real;
  }
}

/** A tenant (organization) with the default share policy. */
export function newTenant(d: Deps, name: string): Promise<Tenant> {
  return createTenant(d.kv, name);
}

/** A user in a tenant of its own (or in `tenantId`), with the default quota unless given. */
export async function newUser(
  d: Deps,
  accountId: string,
  opts: { tenantId?: number; quotaBytes?: number } = {},
): Promise<User> {
  const tenantId = opts.tenantId ?? (await createTenant(d.kv, `${accountId}-org`)).id;
  return await createUser(d.kv, {
    tenantId,
    accountId,
    email: `${accountId}@example.com`,
    name: accountId,
    quotaBytes: opts.quotaBytes ?? d.config.defaultQuotaBytes,
  });
}

/** A folder created by its owner; a taken name fails (RESOURCE_003). */
export function newFolder(
  d: Deps,
  owner: User,
  name: string,
  parentRs: number | null = null,
): Promise<Resource> {
  return createFolder(d, { ownerSeq: owner.userSeq, parentRs, name, actorSeq: owner.userSeq });
}

/** A file uploaded by its owner (the upload's quota code); a taken name fails (RESOURCE_003). */
export function newFile(
  d: Deps,
  owner: User,
  name: string,
  content: string | Uint8Array,
  parentRs: number | null = null,
): Promise<Resource> {
  return storeGeneratedFile(d, {
    ownerSeq: owner.userSeq,
    parentRs,
    name,
    actorSeq: owner.userSeq,
    onConflict: "fail",
    quotaCode: "RESOURCE_015",
    reason: "upload",
    bytes: typeof content === "string" ? new TextEncoder().encode(content) : content,
  });
}

/** A new content version of file `rs`, stored by `owner` (the upload's quota code). */
export function addVersion(d: Deps, owner: User, rs: number, content: Uint8Array) {
  return putContent(d, {
    rs,
    mode: "version",
    reason: "version",
    actorSeq: owner.userSeq,
    lockOwner: null,
    body: ReadableStream.from([content]),
    quotaCode: "RESOURCE_015",
  });
}

/** The bytes of every stored version of the user's resources (what usage must equal). */
export async function storedBytes(d: Deps, owner: User): Promise<number> {
  let sum = 0;
  for (const r of await listResourcesOwnedBy(d.kv, owner.userSeq)) {
    for (const v of await listVersions(d.kv, r.rs)) sum += v.size;
  }
  return sum;
}

/** A share of `resource` made by its owner (`input` as the external API takes it). */
export function newShare(
  d: Deps,
  owner: User,
  resource: Resource,
  input: ShareInput,
): Promise<Share> {
  return createShare(d, owner, resource.rs, input);
}

/** Moves `resource` (and whatever is below it) to the trash, as `actor`. */
export async function trash(d: Deps, actor: User, resource: Resource): Promise<void> {
  await trashResource(d, { rs: resource.rs, actorSeq: actor.userSeq });
}

/**
 * Asserts that `work` fails with the DriveError `code` (and, when given, naming `field`). A
 * function may also throw before it returns a promise (some validate synchronously).
 */
export async function assertFails(
  work: Promise<unknown> | (() => unknown),
  code: ErrorCode,
  field?: string,
): Promise<void> {
  const run = typeof work === "function" ? async () => await work() : work;
  await assert.rejects(run, { name: "DriveError", code, ...(field ? { field } : {}) });
}

/** How many complete blobs the store holds (referenced or not). */
export async function blobCount(d: Deps): Promise<number> {
  return (await Array.fromAsync(d.blobs.list())).length;
}

/**
 * Awaits calls racing each other and asserts that every one that failed did so with the
 * DriveError `code`; returns the values of those that succeeded, in call order.
 */
export async function raceWinners<T>(racing: Promise<T>[], code: ErrorCode): Promise<T[]> {
  const results = await Promise.allSettled(racing);
  for (const r of results) {
    if (r.status === "rejected") {
      assert.ok(r.reason instanceof DriveError, String(r.reason));
      assert.equal(r.reason.code, code, String(r.reason));
    }
  }
  return results.flatMap((r) => r.status === "fulfilled" ? [r.value] : []);
}
