/**
 * The administrator's list of link shares (ORG_LINK, PUBLIC_LINK), a page at a time in share seq
 * order over `lib/kv_pages.ts`, optionally only the active ones (not expired) and searched by a
 * prefix (case-insensitive) of the resource's name or a word of it, or of the owner's accountId,
 * e-mail or name. No index serves that search: it filters the link list, at most MAX_PAGE_SCAN
 * links per page (a page may come back short, with a cursor).
 */
import { getResource } from "../tree/resources.ts";
import { MAX_PAGE_SCAN } from "../identity/admin_lists.ts";
import { searchTermsOf, type User } from "../identity/users.ts";
import { userDirectory } from "../identity/user_search.ts";
import { shareLinkListKey } from "../keys.ts";
import { kvSource, type Page, readPage } from "../../lib/kv_pages.ts";
import { getShare, isExpired, type Share } from "./shares.ts";

interface LinkShareRow {
  share: Share;
  /** null when the resource is gone. */
  resourceName: string | null;
  /** null when the owner is gone. */
  owner: User | null;
}

export function listLinkSharePage(
  kv: Deno.Kv,
  filter: { q?: string; activeOnly?: boolean },
  page: { cursor?: string; limit: number },
): Promise<Page<LinkShareRow>> {
  const needle = filter.q?.trim().toLowerCase() ?? "";
  const now = Date.now();
  const users = userDirectory(kv);
  const nameMatches = (name: string | null) => {
    const n = name?.toLowerCase() ?? "";
    return n.startsWith(needle) || n.split(/\s+/).some((w) => w.startsWith(needle));
  };
  const source = kvSource<number, LinkShareRow>(kv, { prefix: shareLinkListKey() }, async (e) => {
    const share = await getShare(kv, e.key[1] as number);
    if (!share?.linkToken || (filter.activeOnly && isExpired(share, now))) return null;
    const [resource, owner] = await Promise.all([
      getResource(kv, share.rs),
      users.user(share.ownerSeq),
    ]);
    const row = { share, resourceName: resource?.name ?? null, owner };
    if (needle === "" || nameMatches(row.resourceName)) return row;
    return owner && searchTermsOf(owner).some((t) => t.startsWith(needle)) ? row : null;
  });
  return readPage(source, page.cursor, { limit: page.limit, maxScan: MAX_PAGE_SCAN });
}
