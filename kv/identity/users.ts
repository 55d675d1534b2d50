/**
 * Users. accountId and email are unique across the service: their index keys are created in
 * the same commit as the user, guarded by `check(versionstamp: null)`.
 */
import { commit, commitWithRetry, CONFLICT, getManyValues, nextSeq } from "../db.ts";
import { fail } from "../errors.ts";
import { requireTenant } from "./tenants.ts";

export interface User {
  userSeq: number;
  tenantId: number;
  accountId: string;
  email: string;
  name: string;
  quotaBytes: number;
  createdAt: string;
}

const userKey = (seq: number): Deno.KvKey => ["user", seq];
const byAccountKey = (
  accountId: string,
): Deno.KvKey => ["user_by_account", accountId.toLowerCase()];
const byEmailKey = (email: string): Deno.KvKey => ["user_by_email", email.toLowerCase()];
const byTenantKey = (
  tenantId: number,
  seq: number,
): Deno.KvKey => ["user_by_tenant", tenantId, seq];

export async function createUser(
  kv: Deno.Kv,
  input: Omit<User, "userSeq" | "createdAt">,
): Promise<User> {
  await requireTenant(kv, input.tenantId);
  const userSeq = await nextSeq(kv, "user");
  const user: User = { userSeq, ...input, createdAt: new Date().toISOString() };
  return commitWithRetry(async () => {
    const [acc, mail] = await kv.getMany([byAccountKey(user.accountId), byEmailKey(user.email)]);
    if (acc.value !== null) {
      fail("USER_002", `accountId "${user.accountId}" is already taken`, "accountId");
    }
    if (mail.value !== null) fail("USER_003", `email "${user.email}" is already taken`, "email");
    const ok = await commit(
      kv.atomic()
        .check(acc, mail)
        .set(userKey(userSeq), user)
        .set(byAccountKey(user.accountId), userSeq)
        .set(byEmailKey(user.email), userSeq)
        .set(byTenantKey(user.tenantId, userSeq), true),
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
  const seq = (await kv.get<number>(byAccountKey(accountId))).value;
  return seq === null ? null : getUser(kv, seq);
}

export async function findUserByEmail(kv: Deno.Kv, email: string): Promise<User | null> {
  const seq = (await kv.get<number>(byEmailKey(email))).value;
  return seq === null ? null : getUser(kv, seq);
}

export async function listUsers(kv: Deno.Kv, tenantId?: number): Promise<User[]> {
  return await Array.fromAsync(iterateUsers(kv, tenantId));
}

/** Every user (of one tenant), in userSeq order, read in getMany batches. */
export async function* iterateUsers(kv: Deno.Kv, tenantId?: number): AsyncGenerator<User> {
  if (tenantId === undefined) {
    for await (const e of kv.list<User>({ prefix: ["user"] })) yield e.value;
    return;
  }
  let seqs: number[] = [];
  const flush = async function* () {
    const users = await getManyValues<User>(kv, seqs.map(userKey));
    seqs = [];
    for (const u of users) if (u) yield u;
  };
  for await (const e of kv.list({ prefix: ["user_by_tenant", tenantId] })) {
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
    const op = kv.atomic().check(cur).set(userKey(userSeq), next);
    if (patch.email !== undefined && patch.email.toLowerCase() !== cur.value.email.toLowerCase()) {
      const taken = await kv.get(byEmailKey(patch.email));
      if (taken.value !== null) {
        fail("USER_003", `email "${patch.email}" is already taken`, "email");
      }
      op.check(taken).delete(byEmailKey(cur.value.email)).set(byEmailKey(patch.email), userSeq);
    }
    return (await commit(op)) === true ? next : CONFLICT;
  });
}
