/**
 * Users. accountId and email are unique across the service: their index keys are created in
 * the same commit as the user, guarded by `check(versionstamp: null)`.
 */
import { commit, commitWithRetry, CONFLICT, getManyValues, nextSeq } from "../db.ts";
import { fail } from "../errors.ts";
import { getTenant, requireTenant } from "./tenants.ts";
import { bumpIdentityEpoch } from "./cache.ts";
import type { FactCache } from "../deps.ts";
import {
  userAdminKey,
  userByAccountKey,
  userByEmailKey,
  userByTenantKey,
  userKey,
  userTermKey,
} from "../keys.ts";

export interface User {
  userSeq: number;
  tenantId: number;
  accountId: string;
  email: string;
  name: string;
  quotaBytes: number;
  createdAt: string;
  /**
   * When an administrator disabled the user (null or absent: enabled; absent on records written
   * before users could be disabled). Data is kept; API keys, adapters and links stop working.
   */
  disabledAt?: string | null;
  /** "admin": the full admin console and API when signed in (absent: no role). */
  roles?: Role[];
  /**
   * Sessions started at or before this time (ms since the epoch) are void: set when the user is
   * disabled or their password is set, changed or reset (kv/identity/sessions.ts reads it with
   * the user's standing, so every process refuses those sessions from its next request).
   */
  signedOutAt?: number | null;
}

export type Role = "admin";

/** Who a request acts as, as the domain sees it: a user and the tenant they belong to. */
export type Caller = Pick<User, "userSeq" | "tenantId">;

/** Who a user is, as an answer or an export names them: no quota, state or secrets. */
export type UserIdentity = Pick<User, "userSeq" | "tenantId" | "accountId" | "email" | "name">;

export const userIdentity = (u: User): UserIdentity => ({
  userSeq: u.userSeq,
  tenantId: u.tenantId,
  accountId: u.accountId,
  email: u.email,
  name: u.name,
});

export async function createUser(
  kv: Deno.Kv,
  input: Omit<User, "userSeq" | "createdAt" | "disabledAt">,
): Promise<User> {
  await requireTenant(kv, input.tenantId);
  const userSeq = await nextSeq(kv, "user");
  const user: User = { userSeq, ...input, createdAt: new Date().toISOString(), disabledAt: null };
  return commitWithRetry(async () => {
    const [acc, mail] = await kv.getMany([
      userByAccountKey(user.accountId),
      userByEmailKey(user.email),
    ]);
    if (acc.value !== null) {
      fail("USER_002", `accountId "${user.accountId}" is already taken`, "accountId");
    }
    if (mail.value !== null) fail("USER_003", `email "${user.email}" is already taken`, "email");
    const ok = await commit(
      kv.atomic()
        .check(acc, mail)
        .set(userKey(userSeq), user)
        .set(userByAccountKey(user.accountId), userSeq)
        .set(userByEmailKey(user.email), userSeq)
        .set(userByTenantKey(user.tenantId, userSeq), true)
        .mutate(...termMutations(null, user)),
    );
    return ok === true ? user : CONFLICT;
  });
}

export async function getUser(kv: Deno.Kv, userSeq: number): Promise<User | null> {
  return (await kv.get<User>(userKey(userSeq))).value;
}

export async function requireUser(kv: Deno.Kv, userSeq: number, field = "userSeq"): Promise<User> {
  return (await getUser(kv, userSeq)) ?? fail("USER_001", `No user with seq ${userSeq}`, field);
}

export async function findUserByAccountId(kv: Deno.Kv, accountId: string): Promise<User | null> {
  const seq = (await kv.get<number>(userByAccountKey(accountId))).value;
  return seq === null ? null : getUser(kv, seq);
}

export async function findUserByEmail(kv: Deno.Kv, email: string): Promise<User | null> {
  const seq = (await kv.get<number>(userByEmailKey(email))).value;
  return seq === null ? null : getUser(kv, seq);
}

export async function listUsers(kv: Deno.Kv, tenantId?: number): Promise<User[]> {
  return await Array.fromAsync(iterateUsers(kv, tenantId));
}

/** Every user (of one tenant), in userSeq order, read in getMany batches. */
export async function* iterateUsers(kv: Deno.Kv, tenantId?: number): AsyncGenerator<User> {
  if (tenantId === undefined) {
    for await (const e of kv.list<User>({ prefix: userKey() })) yield e.value;
    return;
  }
  let seqs: number[] = [];
  const flush = async function* () {
    const users = await getManyValues<User>(kv, seqs.map((seq) => userKey(seq)));
    seqs = [];
    for (const u of users) if (u) yield u;
  };
  for await (const e of kv.list({ prefix: userByTenantKey(tenantId) })) {
    seqs.push(e.key[2] as number);
    if (seqs.length === 50) yield* flush();
  }
  yield* flush();
}

export function updateUser(
  kv: Deno.Kv,
  userSeq: number,
  patch: Partial<Pick<User, "name" | "email" | "quotaBytes">>,
): Promise<User> {
  return commitWithRetry(async () => {
    const cur = await kv.get<User>(userKey(userSeq));
    if (!cur.value) fail("USER_001", `No user with seq ${userSeq}`);
    const next: User = { ...cur.value, ...patch };
    // Every change of a user record moves the identity epoch: cached facts go (cache.ts).
    const op = bumpIdentityEpoch(kv.atomic().check(cur).set(userKey(userSeq), next))
      .mutate(...termMutations(cur.value, next));
    if (patch.email !== undefined && patch.email.toLowerCase() !== cur.value.email.toLowerCase()) {
      const taken = await kv.get(userByEmailKey(patch.email));
      if (taken.value !== null) {
        fail("USER_003", `email "${patch.email}" is already taken`, "email");
      }
      op.check(taken).delete(userByEmailKey(cur.value.email)).set(
        userByEmailKey(patch.email),
        userSeq,
      );
    }
    return (await commit(op)) === true ? next : CONFLICT;
  });
}

/**
 * Disables (keeping the data) or enables a user. Idempotent: disabling a disabled user keeps the
 * first disabledAt.
 */
export function setUserDisabled(kv: Deno.Kv, userSeq: number, disabled: boolean): Promise<User> {
  return commitWithRetry(async () => {
    const cur = await kv.get<User>(userKey(userSeq));
    if (!cur.value) fail("USER_001", `No user with seq ${userSeq}`, "userSeq");
    const next: User = {
      ...cur.value,
      disabledAt: disabled ? (cur.value.disabledAt ?? new Date().toISOString()) : null,
      // Disabling ends every session for good: enabling again does not bring them back.
      signedOutAt: disabled ? Date.now() : cur.value.signedOutAt ?? null,
    };
    const op = bumpIdentityEpoch(kv.atomic().check(cur).set(userKey(userSeq), next));
    return (await commit(op)) === true ? next : CONFLICT;
  });
}

/**
 * Why `user` may not act right now: "user 7 is disabled" or "tenant 2 is disabled"; null when
 * both are enabled. Every credential of a user (API key, adapter, share link) asks this.
 */
export async function accountDisabledReason(kv: Deno.Kv, user: User): Promise<string | null> {
  if (user.disabledAt) return `user ${user.userSeq} is disabled`;
  const tenant = await getTenant(kv, user.tenantId);
  if (tenant?.disabledAt) return `tenant ${user.tenantId} is disabled`;
  return null;
}

/** A user and why they may not act right now (`accountDisabledReason`; null: they may). */
interface UserStanding {
  user: Readonly<User>;
  disabled: string | null;
}

/**
 * The standing of `userSeq` (null: no such user). With `cached` (the process's FactCache and the
 * epoch a request read with its first record), from memory when it was loaded at that epoch or
 * later (kv/identity/cache.ts): every user and tenant change moves the epoch, so the answer is
 * the one a fresh read in the request's snapshot would give. Without, two reads.
 */
export function userStanding(
  kv: Deno.Kv,
  userSeq: number,
  cached?: { cache: FactCache; epoch: bigint },
): Promise<UserStanding | null> {
  const load = async (): Promise<UserStanding | null> => {
    const user = await getUser(kv, userSeq);
    // Frozen: one cached object answers many requests.
    return user && { user: Object.freeze(user), disabled: await accountDisabledReason(kv, user) };
  };
  return cached ? cached.cache.fact(cached.epoch, "user", userSeq, load) : load();
}

/**
 * Adds to `op` removing a user's record and its index keys (the last step of deleting a user,
 * kv/lifecycle/delete_account.ts), checked against `entry` so a concurrent change retries.
 */
export function dropUserRecords(op: Deno.AtomicOperation, entry: Deno.KvEntry<User>) {
  const u = entry.value;
  bumpIdentityEpoch(op);
  op.check(entry)
    .delete(userKey(u.userSeq))
    .delete(userByAccountKey(u.accountId))
    .delete(userByEmailKey(u.email))
    .delete(userByTenantKey(u.tenantId, u.userSeq))
    .delete(userAdminKey(u.userSeq))
    .mutate(...termMutations(u, null));
}

/**
 * Adds to `op` (checked against `entry`) voiding every session of the user started until now
 * (a password set, changed or reset). The epoch moves, so every process sees it at once.
 */
export function signOutEverywhere(op: Deno.AtomicOperation, entry: Deno.KvEntry<User>): User {
  const next: User = { ...entry.value, signedOutAt: Date.now() };
  bumpIdentityEpoch(op.check(entry).set(userKey(next.userSeq), next));
  return next;
}

export const isAdmin = (user: Pick<User, "roles">): boolean =>
  user.roles?.includes("admin") ?? false;

/** The user seqs holding the admin role. */
export async function adminUserSeqs(kv: Deno.Kv): Promise<number[]> {
  const out: number[] = [];
  for await (const e of kv.list({ prefix: userAdminKey() })) out.push(e.key[1] as number);
  return out;
}

/**
 * Grants or removes the admin role. `by` is the signed-in admin doing it (null: the admin token
 * or the CLI): the last administrator cannot remove their own role (USER_006), so a service
 * always keeps someone who can sign in to its console by name once it had one.
 */
export function setUserAdmin(
  kv: Deno.Kv,
  userSeq: number,
  admin: boolean,
  by: number | null,
): Promise<User> {
  return commitWithRetry(async () => {
    const cur = await kv.get<User>(userKey(userSeq));
    if (!cur.value) fail("USER_001", `No user with seq ${userSeq}`, "userSeq");
    if (isAdmin(cur.value) === admin) return cur.value;
    const op = kv.atomic().check(cur);
    if (!admin && by === userSeq) {
      const others = (await adminUserSeqs(kv)).filter((s) => s !== userSeq);
      if (others.length === 0) {
        fail("USER_006", "You are the last administrator: grant the role to someone else first");
      }
      // Checked, so two last admins removing their roles at once cannot both succeed.
      const entries = await kv.getMany(others.map((s) => userAdminKey(s)));
      op.check(...entries);
    }
    const roles = (cur.value.roles ?? []).filter((r) => r !== "admin");
    const next: User = { ...cur.value, roles: admin ? [...roles, "admin"] : roles };
    bumpIdentityEpoch(op.set(userKey(userSeq), next));
    if (admin) op.set(userAdminKey(userSeq), true);
    else op.delete(userAdminKey(userSeq));
    return (await commit(op)) === true ? next : CONFLICT;
  });
}

/** The user's entry (for a versionstamp check), or null. */
export function getUserEntry(kv: Deno.Kv, userSeq: number) {
  return kv.get<User>(userKey(userSeq));
}

// ---------------------------------------------------------------- search terms (user_term)

/** Words of a display name indexed beyond the whole name; the rest are found by the name. */
const MAX_NAME_WORDS = 8;

/**
 * The lowercase texts the admin search finds a user by, as prefixes: the accountId, the e-mail,
 * the display name (its spaces collapsed) and each word of it ("ana" and "lima" find "Ana Lima").
 */
export function searchTermsOf(user: Pick<User, "accountId" | "email" | "name">): string[] {
  const words = user.name.toLowerCase().split(/\s+/).filter(Boolean);
  const name = words.join(" ");
  const firstWords = words.slice(0, MAX_NAME_WORDS);
  return [...new Set([user.accountId.toLowerCase(), user.email.toLowerCase(), name, ...firstWords])]
    .filter((t) => t !== "");
}

/** The user_term keys to delete and set when a user goes from `before` to `after` (null: none). */
function termMutations(before: User | null, after: User | null): Deno.KvMutation[] {
  const old = new Set(before ? searchTermsOf(before) : []);
  const now = new Set(after ? searchTermsOf(after) : []);
  const seq = (after ?? before)!.userSeq;
  return [
    ...[...old].filter((t) => !now.has(t)).map((t): Deno.KvMutation => ({
      type: "delete",
      key: userTermKey(t, seq),
    })),
    ...[...now].filter((t) => !old.has(t)).map((t): Deno.KvMutation => ({
      type: "set",
      key: userTermKey(t, seq),
      value: true,
    })),
  ];
}

/**
 * Migration: users written before the admin search get their user_term keys. Each user in its
 * own commit checked against the record, so a concurrent change (which writes its own terms)
 * retries; setting a term that exists already changes nothing, so it is idempotent.
 */
export async function indexUserTerms(kv: Deno.Kv): Promise<void> {
  for await (const e of kv.list<User>({ prefix: userKey() })) {
    await commitWithRetry(async () => {
      const cur = await kv.get<User>(e.key);
      if (!cur.value) return;
      const op = kv.atomic().check(cur).mutate(...termMutations(null, cur.value));
      return (await commit(op)) === true ? undefined : CONFLICT;
    });
  }
}
