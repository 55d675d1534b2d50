/**
 * Users. accountId and email are unique across the service: their index keys are created in
 * the same commit as the user, guarded by `check(versionstamp: null)`.
 */
import { commit, commitWithRetry, CONFLICT, getManyValues, nextSeq } from "../db.ts";
import { fail } from "../errors.ts";
import { requireTenant } from "./tenants.ts";
import { userByAccountKey, userByEmailKey, userByTenantKey, userKey } from "../keys.ts";

export interface User {
  userSeq: number;
  tenantId: number;
  accountId: string;
  email: string;
  name: string;
  quotaBytes: number;
  createdAt: string;
}

/** Who a request acts as, as the domain sees it: a user and the tenant they belong to. */
export type Caller = Pick<User, "userSeq" | "tenantId">;

export async function createUser(
  kv: Deno.Kv,
  input: Omit<User, "userSeq" | "createdAt">,
): Promise<User> {
  await requireTenant(kv, input.tenantId);
  const userSeq = await nextSeq(kv, "user");
  const user: User = { userSeq, ...input, createdAt: new Date().toISOString() };
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
        .set(userByTenantKey(user.tenantId, userSeq), true),
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
    const op = kv.atomic().check(cur).set(userKey(userSeq), next);
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
