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
import { LockView, SUPPORTED_LOCK_XML } from "./locks.ts";
import { etagOf } from "./files.ts";

const D = (local: string) => clark(DAV_NS, local);
const X = (local: string) => clark(DRIVE_NS, local);

/** Every live property, in the order allprop answers them. */
export const LIVE_PROPS: string[] = [
  D("displayname"),
  D("resourcetype"),
  D("getcontentlength"),
  D("getcontenttype"),
  D("getetag"),
  D("getlastmodified"),
  D("creationdate"),
  D("supportedlock"),
  D("lockdiscovery"),
  D("quota-available-bytes"),
  D("quota-used-bytes"),
  X("seq"),
  X("permissions"),
  X("owner"),
];
export const LIVE_SET = new Set(LIVE_PROPS);

/**
 * allprop answers every live property. RFC 4331 3 says the quota properties SHOULD NOT be in
 * allprop because of their cost; here they cost two reads per owner per request (PropCache), and
 * clients such as the npm webdav client read the quota from an allprop PROPFIND, so they are.
 */
export const ALLPROP = LIVE_PROPS;

/** Per-request memo: the quota and account id of each owner seen. */
export class PropCache {
  #quota = new Map<number, Promise<{ used: number; available: number; accountId: string }>>();
  /** The locks of a listing, read once per folder rather than once per member (dav/locks.ts). */
  readonly locks: LockView;
  constructor(private ctx: DavRequest) {
    this.locks = new LockView(ctx);
  }
  #marked = new Map<number, Promise<Set<number>>>();
  /** Whether `r` has dead properties (the owner's marks, read once per request). */
  async hasDeadProps(r: Resource): Promise<boolean> {
    let marks = this.#marked.get(r.ownerSeq);
    if (!marks) {
      marks = resourcesWithDeadProps(this.ctx.d.kv, r.ownerSeq);
      this.#marked.set(r.ownerSeq, marks);
    }
    return (await marks).has(r.rs);
  }
  owner(userSeq: number) {
    let q = this.#quota.get(userSeq);
    if (!q) {
      q = (async () => {
        const [user, used] = await Promise.all([
          getUser(this.ctx.d.kv, userSeq),
          getUsage(this.ctx.d.kv, userSeq),
        ]);
        const quota = user?.quotaBytes ?? 0;
        return { used, available: Math.max(quota - used, 0), accountId: user?.accountId ?? "" };
      })();
      this.#quota.set(userSeq, q);
    }
    return q;
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

/**
 * The value element of live property `name` on `node`, or null when the node has no such
 * property (a collection's getcontentlength, say).
 */
export async function liveProp(
  ctx: DavRequest,
  cache: PropCache,
  node: DavNode,
  href: string,
  displayName: string,
  name: string,
): Promise<string | null> {
  const r: Resource | null = node.kind === "resource" ? node.resource : null;
  const folder = !r || r.type === "FOLDER";
  switch (name) {
    case D("displayname"):
      return el("displayname", esc(displayName));
    case D("resourcetype"):
      return folder ? "<D:resourcetype><D:collection/></D:resourcetype>" : "<D:resourcetype/>";
    case D("getcontentlength"):
      return r && !folder ? el("getcontentlength", String(r.size)) : null;
    case D("getcontenttype"):
      return r && !folder ? el("getcontenttype", esc(r.mime ?? "application/octet-stream")) : null;
    case D("getetag"): {
      const etag = r ? etagOf(r) : null;
      return etag ? el("getetag", esc(etag)) : null;
    }
    case D("getlastmodified"):
      return r ? el("getlastmodified", new Date(r.updatedAt).toUTCString()) : null;
    case D("creationdate"):
      return r ? el("creationdate", new Date(r.createdAt).toISOString()) : null;
    case D("supportedlock"):
      return r ? SUPPORTED_LOCK_XML : null;
    case D("lockdiscovery"):
      return r ? await cache.locks.discovery(r, href) : null;
    case D("quota-available-bytes"):
    case D("quota-used-bytes"): {
      const owner = ownerOf(ctx, node);
      if (owner === null || !folder) return null;
      const q = await cache.owner(owner);
      // Plain integers: Windows reads exponent notation as a tiny quota ("file too big").
      return name === D("quota-used-bytes")
        ? el("quota-used-bytes", q.used.toFixed(0))
        : el("quota-available-bytes", q.available.toFixed(0));
    }
    case X("seq"):
      return r ? xel("seq", String(r.rs)) : null;
    case X("permissions"): {
      if (node.kind !== "resource") return node.kind === "drive" ? xel("permissions", "all") : null;
      const words = PERMISSION_WORDS.filter(([k]) => node.access.permissions[k]).map(([, w]) => w);
      return xel("permissions", words.join(" "));
    }
    case X("owner"): {
      const owner = ownerOf(ctx, node);
      return owner === null ? null : xel("owner", esc((await cache.owner(owner)).accountId));
    }
  }
  return null;
}
