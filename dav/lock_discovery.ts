/**
 * The lock properties (RFC 4918 15.8, 15.10): DAV:supportedlock, and DAV:lockdiscovery listing
 * every WebDAV lock that applies to a resource, its own and those of folders above it with depth
 * infinity, each with its lock root. Editor and provider locks are not WebDAV locks (no token a
 * client could submit), so they are not listed; writes still answer 423 for them.
 *
 * A PROPFIND Depth 1 asks this for every member of a folder: LockView reads the folder's chain
 * once and the owner's lock index once per request, and then only the lock records of members
 * that index names, so a 10,000-entry listing does not read 10,000 lock keys.
 */
import { type AppliedLock, chainOf, type LockChain, locksApplying } from "../kv/tree/dav_locks.ts";
import { type DavLock, getLock } from "../kv/tree/locks.ts";
import { ownerLockKey } from "../kv/keys.ts";
import type { Resource } from "../kv/tree/resources.ts";
import type { DavRequest } from "./context.ts";
import { esc } from "./xml.ts";

export const SUPPORTED_LOCK_XML = "<D:supportedlock>" +
  ["exclusive", "shared"].map((s) =>
    `<D:lockentry><D:lockscope><D:${s}/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry>`
  ).join("") + "</D:supportedlock>";

/** The href `levels` collections above `href` (a lock held on a folder above the target). */
export function hrefAbove(href: string, levels: number): string {
  if (levels === 0) return href;
  let out = href.endsWith("/") ? href.slice(0, -1) : href;
  for (let i = 0; i < levels; i++) out = out.slice(0, out.lastIndexOf("/"));
  return `${out}/`;
}

export function activeLockXml(lock: DavLock, root: string, now = Date.now()): string {
  const left = Math.max(0, Math.ceil((lock.expiresAt - now) / 1000));
  return `<D:activelock><D:locktype><D:write/></D:locktype>` +
    `<D:lockscope><D:${lock.scope}/></D:lockscope><D:depth>${lock.depth}</D:depth>` +
    (lock.ownerXml ? `<D:owner>${lock.ownerXml}</D:owner>` : "") +
    `<D:timeout>Second-${left}</D:timeout>` +
    `<D:locktoken><D:href>${esc(lock.token)}</D:href></D:locktoken>` +
    `<D:lockroot><D:href>${esc(root)}</D:href></D:lockroot></D:activelock>`;
}

/**
 * A read made once per request: its promise, and its value once it has come, which later members
 * of a listing take without an await (a 10,000-member PROPFIND asks each read thousands of times).
 */
export class Settled<T> {
  #value: { v: T } | null = null;
  readonly promise: Promise<T>;
  constructor(p: Promise<T>) {
    this.promise = p.then((v) => {
      this.#value = { v };
      return v;
    });
  }
  /** The value when it has come, else the promise of it. */
  now(): T | Promise<T> {
    return this.#value ? this.#value.v : this.promise;
  }
}

interface Inherited {
  chain: LockChain;
  held: AppliedLock[];
}

/** Per-request memo of the lock state PROPFIND needs (see the module comment). */
export class LockView {
  #inherited = new Map<number | null, Settled<Inherited>>();
  #indexed = new Map<number, Settled<Set<number>>>();
  constructor(private ctx: DavRequest) {}

  /** The depth-infinity locks the members of folder `parentRs` inherit. */
  #inheritedBy(parentRs: number | null) {
    let got = this.#inherited.get(parentRs);
    if (!got) {
      got = new Settled((async () => {
        const above = parentRs === null
          ? { ancestors: [] }
          : await chainOf(this.ctx.d.kv, parentRs);
        const chain = {
          self: null,
          ancestors: parentRs === null ? [] : [parentRs, ...(above?.ancestors ?? [])],
        };
        return { chain, held: await locksApplying(this.ctx.d.kv, chain) };
      })());
      this.#inherited.set(parentRs, got);
    }
    return got.now();
  }

  /** The documents of `ownerSeq` that have (or had) a lock: the owner's lock index. */
  #indexedOf(ownerSeq: number) {
    let got = this.#indexed.get(ownerSeq);
    if (!got) {
      got = new Settled((async () => {
        const out = new Set<number>();
        for await (const e of this.ctx.d.kv.list({ prefix: ownerLockKey(ownerSeq) })) {
          out.add(e.key[2] as number);
        }
        return out;
      })());
      this.#indexed.set(ownerSeq, got);
    }
    return got.now();
  }

  /**
   * The DAV:lockdiscovery value of `r` at `href`; a string with no await once the folder's and
   * the owner's reads have come and `r` has no lock record of its own (nearly every member).
   */
  discovery(r: Resource, href: string): string | Promise<string> {
    const inherited = this.#inheritedBy(r.parentRs);
    const indexed = this.#indexedOf(r.ownerSeq);
    if (inherited instanceof Promise || indexed instanceof Promise || indexed.has(r.rs)) {
      return this.#discoveryRead(r, href);
    }
    return discoveryXml([], inherited, href);
  }

  async #discoveryRead(r: Resource, href: string): Promise<string> {
    const [inherited, indexed] = await Promise.all([
      this.#inheritedBy(r.parentRs),
      this.#indexedOf(r.ownerSeq),
    ]);
    const own = indexed.has(r.rs) ? await getLock(this.ctx.d.kv, r.rs) : null;
    return discoveryXml(own?.source === "webdav" ? own.dav ?? [] : [], inherited, href);
  }
}

/** The lockdiscovery element: `own` (the resource's WebDAV locks), then those inherited. */
function discoveryXml(own: DavLock[], { chain, held }: Inherited, href: string): string {
  if (own.length === 0 && held.length === 0) return "<D:lockdiscovery></D:lockdiscovery>";
  const xml = own
    .filter((l) => l.expiresAt > Date.now())
    .map((l) => activeLockXml(l, href));
  for (const h of held) {
    if (h.dav) xml.push(activeLockXml(h.dav, hrefAbove(href, chain.ancestors.indexOf(h.rs) + 1)));
  }
  return `<D:lockdiscovery>${xml.join("")}</D:lockdiscovery>`;
}

/** The DAV:lockdiscovery value of the resource `resourceSeq` at `href` (one resource). */
export async function lockDiscovery(
  ctx: DavRequest,
  resourceSeq: number,
  href: string,
): Promise<string> {
  const chain = await chainOf(ctx.d.kv, resourceSeq);
  const held = chain ? await locksApplying(ctx.d.kv, chain) : [];
  const levels = (h: AppliedLock) => h.rs === chain!.self ? 0 : chain!.ancestors.indexOf(h.rs) + 1;
  return `<D:lockdiscovery>${
    held.flatMap((h) => h.dav ? [activeLockXml(h.dav, hrefAbove(href, levels(h)))] : []).join("")
  }</D:lockdiscovery>`;
}
