/**
 * The live properties (RFC 4918 15, RFC 4331 quota) of each node, as XML elements. Names are in
 * Clark notation ({ns}local). The drive's own namespace (DRIVE_NS) adds the resource seq, the
 * caller's permissions and the owner's account id.
 */
import { getUser } from "../kv/identity/users.ts";
import { getUsage } from "../kv/tree/usage.ts";
import { resourcesWithDeadProps } from "../kv/tree/dead_props.ts";
import type { Permissions } from "../kv/sharing/authorize.ts";
import type { Resource } from "../kv/tree/resources.ts";
import type { DavRequest } from "./context.ts";
import type { DavNode } from "./paths.ts";
import { clark, DAV_NS, DRIVE_NS, escText as esc } from "./xml.ts";
import { LockView, Settled, SUPPORTED_LOCK_XML } from "./lock_discovery.ts";
import { etagOf } from "./files.ts";

const D = (local: string) => clark(DAV_NS, local);
const X = (local: string) => clark(DRIVE_NS, local);

// The names in Clark notation, built once: liveProp runs for every property of every member.
const DISPLAYNAME = D("displayname");
const RESOURCETYPE = D("resourcetype");
const GETCONTENTLENGTH = D("getcontentlength");
const GETCONTENTTYPE = D("getcontenttype");
const GETETAG = D("getetag");
const GETLASTMODIFIED = D("getlastmodified");
const CREATIONDATE = D("creationdate");
const SUPPORTEDLOCK = D("supportedlock");
const LOCKDISCOVERY = D("lockdiscovery");
const QUOTA_AVAILABLE = D("quota-available-bytes");
const QUOTA_USED = D("quota-used-bytes");
const SEQ = X("seq");
const PERMISSIONS = X("permissions");
const OWNER = X("owner");

/** Every live property, in the order allprop answers them. */
export const LIVE_PROPS: string[] = [
  DISPLAYNAME,
  RESOURCETYPE,
  GETCONTENTLENGTH,
  GETCONTENTTYPE,
  GETETAG,
  GETLASTMODIFIED,
  CREATIONDATE,
  SUPPORTEDLOCK,
  LOCKDISCOVERY,
  QUOTA_AVAILABLE,
  QUOTA_USED,
  SEQ,
  PERMISSIONS,
  OWNER,
];
export const LIVE_SET = new Set(LIVE_PROPS);

/**
 * allprop answers every live property. RFC 4331 3 says the quota properties SHOULD NOT be in
 * allprop because of their cost; here they cost two reads per owner per request (PropCache), and
 * clients such as the npm webdav client read the quota from an allprop PROPFIND, so they are.
 */
export const ALLPROP = LIVE_PROPS;

interface OwnerFacts {
  used: number;
  available: number;
  accountId: string;
}

/** Per-request memo: the quota and account id of each owner seen. */
export class PropCache {
  #quota = new Map<number, Settled<OwnerFacts>>();
  /** The locks of a listing, read once per folder rather than once per member (dav/locks.ts). */
  readonly locks: LockView;
  constructor(private ctx: DavRequest) {
    this.locks = new LockView(ctx);
  }
  #marked = new Map<number, Settled<Set<number>>>();
  /** Whether `r` has dead properties (the owner's marks, read once per request). */
  hasDeadProps(r: Resource): boolean | Promise<boolean> {
    let marks = this.#marked.get(r.ownerSeq);
    if (!marks) {
      marks = new Settled(resourcesWithDeadProps(this.ctx.d.kv, r.ownerSeq));
      this.#marked.set(r.ownerSeq, marks);
    }
    const got = marks.now();
    return got instanceof Promise ? got.then((m) => m.has(r.rs)) : got.has(r.rs);
  }
  owner(userSeq: number): OwnerFacts | Promise<OwnerFacts> {
    let q = this.#quota.get(userSeq);
    if (!q) {
      q = new Settled((async () => {
        const [user, used] = await Promise.all([
          getUser(this.ctx.d.kv, userSeq),
          getUsage(this.ctx.d.kv, userSeq),
        ]);
        const quota = user?.quotaBytes ?? 0;
        return { used, available: Math.max(quota - used, 0), accountId: user?.accountId ?? "" };
      })());
      this.#quota.set(userSeq, q);
    }
    return q.now();
  }
}

const el = (local: string, value: string) => `<D:${local}>${value}</D:${local}>`;
const xel = (local: string, value: string) => `<x:${local}>${value}</x:${local}>`;

const PERMISSION_WORDS: [keyof Permissions, string][] = [
  ["canView", "view"],
  ["canDownload", "download"],
  ["canEdit", "edit"],
  ["canUpload", "upload"],
  ["canShare", "share"],
  ["canDelete", "delete"],
];

/** The owner whose quota a node reports, or null (the fixed collections but the drive). */
function ownerOf(ctx: DavRequest, node: DavNode): number | null {
  if (node.kind === "drive") return ctx.caller.userSeq;
  if (node.kind === "resource") return node.resource.ownerSeq;
  return null;
}

/** `value` mapped by `f`, without a promise when `value` is none. */
const then = <T, U>(value: T | Promise<T>, f: (v: T) => U): U | Promise<U> =>
  value instanceof Promise ? value.then(f) : f(value);

/**
 * The value element of live property `name` on `node`, or null when the node has no such
 * property (a collection's getcontentlength, say). A promise only while a per-request read
 * (PropCache) is still on its way: the members after the first take the values as they are.
 */
export function liveProp(
  ctx: DavRequest,
  cache: PropCache,
  node: DavNode,
  href: string,
  displayName: string,
  name: string,
): string | null | Promise<string | null> {
  const r: Resource | null = node.kind === "resource" ? node.resource : null;
  const folder = !r || r.type === "FOLDER";
  switch (name) {
    case DISPLAYNAME:
      return el("displayname", esc(displayName));
    case RESOURCETYPE:
      return folder ? "<D:resourcetype><D:collection/></D:resourcetype>" : "<D:resourcetype/>";
    case GETCONTENTLENGTH:
      return r && !folder ? el("getcontentlength", String(r.size)) : null;
    case GETCONTENTTYPE:
      return r && !folder ? el("getcontenttype", esc(r.mime ?? "application/octet-stream")) : null;
    case GETETAG: {
      const etag = r ? etagOf(r) : null;
      return etag ? el("getetag", esc(etag)) : null;
    }
    case GETLASTMODIFIED:
      return r ? el("getlastmodified", new Date(r.updatedAt).toUTCString()) : null;
    case CREATIONDATE:
      return r ? el("creationdate", new Date(r.createdAt).toISOString()) : null;
    case SUPPORTEDLOCK:
      return r ? SUPPORTED_LOCK_XML : null;
    case LOCKDISCOVERY:
      return r ? cache.locks.discovery(r, href) : null;
    case QUOTA_AVAILABLE:
    case QUOTA_USED: {
      const owner = ownerOf(ctx, node);
      if (owner === null || !folder) return null;
      // Plain integers: Windows reads exponent notation as a tiny quota ("file too big").
      return then(
        cache.owner(owner),
        (q) =>
          name === QUOTA_USED
            ? el("quota-used-bytes", q.used.toFixed(0))
            : el("quota-available-bytes", q.available.toFixed(0)),
      );
    }
    case SEQ:
      return r ? xel("seq", String(r.rs)) : null;
    case PERMISSIONS: {
      if (node.kind !== "resource") return node.kind === "drive" ? xel("permissions", "all") : null;
      const words = PERMISSION_WORDS.filter(([k]) => node.access.permissions[k]).map(([, w]) => w);
      return xel("permissions", words.join(" "));
    }
    case OWNER: {
      const owner = ownerOf(ctx, node);
      return owner === null
        ? null
        : then(cache.owner(owner), (q) => xel("owner", esc(q.accountId)));
    }
  }
  return null;
}
