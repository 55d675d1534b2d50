/**
 * Finding other users: the recipient search behind sharing, whose rules say what a caller may
 * learn about users of other tenants, and memoized user/tenant lookups for responses that name
 * many users.
 */
import { getTenant, type Tenant } from "./tenants.ts";
import { findUserByAccountId, findUserByEmail, getUser, iterateUsers, type User } from "./users.ts";

const MAX_SEARCH_RESULTS = 20;
/** How many users of the caller's tenant one search looks at (partial matches). */
const MAX_SEARCH_SCAN = 5000;

/**
 * Users matching `query`, the caller's tenant first, then by account id; at most
 * MAX_SEARCH_RESULTS, none of `exclude`. Users of the caller's tenant match on part of their
 * e-mail or account id; users of other tenants only on the exact e-mail or account id, so
 * nobody can browse another tenant.
 */
export async function searchUsers(
  kv: Deno.Kv,
  input: { tenantId: number; query: string; exclude: Set<number> },
): Promise<User[]> {
  const { tenantId, exclude } = input;
  const needle = input.query.trim().toLowerCase();
  const found = new Map<number, User>();
  for (const u of [await findUserByEmail(kv, needle), await findUserByAccountId(kv, needle)]) {
    if (u) found.set(u.userSeq, u);
  }
  let scanned = 0;
  for await (const u of iterateUsers(kv, tenantId)) {
    if (found.size >= MAX_SEARCH_RESULTS + exclude.size || ++scanned > MAX_SEARCH_SCAN) break;
    if (u.email.toLowerCase().includes(needle) || u.accountId.toLowerCase().includes(needle)) {
      found.set(u.userSeq, u);
    }
  }
  return [...found.values()].filter((u) => !exclude.has(u.userSeq))
    .sort((a, b) =>
      Number(b.tenantId === tenantId) - Number(a.tenantId === tenantId) ||
      a.accountId.localeCompare(b.accountId)
    )
    .slice(0, MAX_SEARCH_RESULTS);
}

/** Memoized user and tenant lookups for one response, which often names the same ones. */
export function userDirectory(kv: Deno.Kv) {
  const users = new Map<number, Promise<User | null>>();
  const tenants = new Map<number, Promise<Tenant | null>>();
  return {
    user(seq: number) {
      if (!users.has(seq)) users.set(seq, getUser(kv, seq));
      return users.get(seq)!;
    },
    tenant(id: number) {
      if (!tenants.has(id)) tenants.set(id, getTenant(kv, id));
      return tenants.get(id)!;
    },
  };
}
