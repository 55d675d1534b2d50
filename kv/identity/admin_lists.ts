/**
 * The administrator's lists of tenants, users and API keys, a page at a time with an optional
 * search (`q`), over `lib/kv_pages.ts` (KV-cursor positions: no item skipped or repeated while
 * others are created). Search is a prefix, case-insensitive:
 * - users: by accountId, e-mail, display name or a word of it, through the user_term index
 *   (kv/identity/users.ts), so a page reads about as many entries as it shows;
 * - API keys: by key id (exact case, as key ids are) or by their user as above;
 * - tenants: by name or a word of it, a filtered scan (tenants are few).
 */
import {
  apiKeyByUserKey,
  apiKeyKey,
  tenantKey,
  userByTenantKey,
  userKey,
  userTermKey,
} from "../keys.ts";
import {
  compareCodePoints,
  concatSources,
  kvSource,
  nestedSource,
  type Page,
  readPage,
  type Source,
  stringPrefixSelector,
} from "../../lib/kv_pages.ts";
import { type ApiKey, publicView, type StoredApiKey } from "./api_keys.ts";
import { fromStored as tenantFromStored, type StoredTenant, type Tenant } from "./tenants.ts";
import { getUser, searchTermsOf, type User } from "./users.ts";

/** Items per page when the caller names no limit, and the most one page may hold. */
export const DEFAULT_PAGE_LIMIT = 100;
export const MAX_PAGE_LIMIT = 1000;
/**
 * Entries one page reads at most. A search that matches few of them answers a shorter page
 * (still with a cursor) rather than reading a whole family in one request.
 */
export const MAX_PAGE_SCAN = 2000;

interface PageRequest {
  cursor?: string;
  limit: number;
}

const read = <T>(source: Source<T>, page: PageRequest): Promise<Page<T>> =>
  readPage(source, page.cursor, { limit: page.limit, maxScan: MAX_PAGE_SCAN });

/** The search text as the index holds it; "" searches nothing (lists everything). */
const needleOf = (q: string | undefined) => q?.trim().toLowerCase().replace(/\s+/g, " ") ?? "";

/** Users whose search terms start with `needle`, each once (at its first matching term). */
function userSearchSource(kv: Deno.Kv, needle: string, tenantId?: number): Source<User> {
  return kvSource<true, User>(
    kv,
    stringPrefixSelector(userTermKey(), needle),
    async (e) => {
      const [, term, userSeq] = e.key as [string, string, number];
      const user = await getUser(kv, userSeq);
      if (!user || (tenantId !== undefined && user.tenantId !== tenantId)) return null;
      // A user with several matching terms ("ana", "ana@x", "Ana Lima") shows at the first.
      const first = searchTermsOf(user).filter((t) => t.startsWith(needle))
        .sort(compareCodePoints)[0];
      return first === term ? user : null;
    },
  );
}

/** Users (of one tenant) in userSeq order, or by matching search term when `q` is given. */
export function listUserPage(
  kv: Deno.Kv,
  filter: { q?: string; tenantId?: number },
  page: PageRequest,
): Promise<Page<User>> {
  const needle = needleOf(filter.q);
  if (needle !== "") return read(userSearchSource(kv, needle, filter.tenantId), page);
  if (filter.tenantId === undefined) {
    return read(kvSource<User, User>(kv, { prefix: userKey() }, (e) => e.value), page);
  }
  return read(
    kvSource(
      kv,
      { prefix: userByTenantKey(filter.tenantId) },
      (e) => getUser(kv, e.key[2] as number),
    ),
    page,
  );
}

/** The keys of one user, in key id order. */
function keysOfUser(kv: Deno.Kv, userSeq: number, skip?: (key: ApiKey) => boolean): Source<ApiKey> {
  return kvSource(kv, { prefix: apiKeyByUserKey(userSeq) }, async (e) => {
    const stored = (await kv.get<StoredApiKey>(apiKeyKey(e.key[2] as string))).value;
    const key = stored && publicView(stored);
    return key && !skip?.(key) ? key : null;
  });
}

/**
 * API keys (of one user) in key id order; with `q`, first the keys whose id starts with it,
 * then the keys of the users the search finds (each key once).
 */
export function listApiKeyPage(
  kv: Deno.Kv,
  filter: { q?: string; userSeq?: number },
  page: PageRequest,
): Promise<Page<ApiKey>> {
  const raw = filter.q?.trim() ?? "";
  const { userSeq } = filter;
  if (raw === "") {
    return read(
      userSeq === undefined
        ? kvSource<StoredApiKey, ApiKey>(kv, { prefix: apiKeyKey() }, (e) => publicView(e.value))
        : keysOfUser(kv, userSeq),
      page,
    );
  }
  const byId = kvSource<StoredApiKey, ApiKey>(
    kv,
    stringPrefixSelector(apiKeyKey(), raw),
    (e) => userSeq === undefined || e.value.userSeq === userSeq ? publicView(e.value) : null,
  );
  const byUser = nestedSource(
    userSearchSource(kv, needleOf(raw)),
    (user): Source<ApiKey> =>
      userSeq !== undefined && user.userSeq !== userSeq
        ? async function* () {}
        : keysOfUser(kv, user.userSeq, (k) => k.keyId.startsWith(raw)),
    (user) => String(user.userSeq),
  );
  return read(concatSources([byId, byUser]), page);
}

/** Tenants in id order, or those whose name (or a word of it) starts with `q`. */
export function listTenantPage(
  kv: Deno.Kv,
  filter: { q?: string },
  page: PageRequest,
): Promise<Page<Tenant>> {
  const needle = needleOf(filter.q);
  const matches = (t: Tenant) => {
    const name = t.name.toLowerCase();
    return name.startsWith(needle) || name.split(/\s+/).some((w) => w.startsWith(needle));
  };
  return read(
    kvSource<StoredTenant, Tenant>(kv, { prefix: tenantKey() }, (e) => {
      const tenant = tenantFromStored(e.value);
      return needle === "" || matches(tenant) ? tenant : null;
    }),
    page,
  );
}
