/**
 * WebDAV locking (RFC 4918 sections 6, 7, 9.10, 9.11): LOCK and UNLOCK, the lockdiscovery and
 * supportedlock properties, and `assertWritable`, the check every writing method makes first. The
 * locks are the drive's one lock record per resource (kv/tree/dav_locks.ts), so an editor's or a
 * storage provider's lock refuses a WebDAV write (423) and a WebDAV lock refuses theirs.
 */
import type { Context } from "hono";
import {
  type AppliedLock,
  chainOf,
  DAV_LOCK_DEFAULT_S,
  DAV_LOCK_MAX_S,
  DAV_OWNER_XML_MAX,
  everLocked,
  findDavLock,
  type LockChain,
  locksApplying,
  locksInside,
  refreshDavLock,
  releaseDavLock,
  takeDavLock,
} from "../kv/tree/dav_locks.ts";
import { type DavLock, liveDavLocks, type Lock, type LockOwner } from "../kv/tree/locks.ts";
import { getResource } from "../kv/tree/resources.ts";
import { DavError, davFail, type DavRequest, toDavError } from "./context.ts";
import {
  evaluateIf,
  IfHeaderError,
  type IfList,
  type IfResourceState,
  parseIfHeader,
  resourcesOf,
} from "./if_header.ts";
import {
  authorizeContainer,
  authorizeNode,
  type DavNode,
  type Resolved,
  resolvePath,
} from "./paths.ts";
import { DAV_NS, elements, esc, isEl, parseXml, serialize, XmlSyntaxError } from "./xml.ts";
import { createEmptyFile, etagOf } from "./files.ts";
import { activeLockXml, hrefAbove } from "./lock_discovery.ts";

import { readCappedText } from "./body.ts";

export { lockDiscovery, LockView, SUPPORTED_LOCK_XML } from "./lock_discovery.ts";

/** LOCK bodies are small XML; anything bigger is refused before parsing (413). */
export const LOCK_BODY_MAX = 64 * 1024;

/** What a write touches. `members`: it adds or removes the resource in its folder. */
export interface WriteTarget {
  /** The target's request href (percent-encoded path), for lock-token-submitted. */
  path: string;
  /** null: nothing is mapped there yet (the write creates it). */
  resourceSeq: number | null;
  /** "infinity": a folder whose whole subtree the request changes (DELETE, MOVE, COPY over). */
  depth: 0 | "infinity";
  members?: boolean;
  /**
   * For an unmapped target: its would-be parent folder's rs (null: a drive root), when the caller
   * has resolved it already; saves resolving `path` again.
   */
  parentRs?: number | null;
  /**
   * The drive's owner, when known: a drive whose owner never had a lock (no lock stamp) is
   * checked with one read instead of a walk of the target's folders.
   */
  ownerSeq?: number;
  /** That owner's lock stamp entry, when the caller read it already (saves that read). */
  lockStamp?: Deno.KvEntryMaybe<number>;
}

/** Seconds granted for a Timeout header (RFC 4918 10.7): the first value we understand, capped. */
export function timeoutSeconds(header: string | null): number {
  for (const part of (header ?? "").split(",").map((s) => s.trim().toLowerCase())) {
    if (part === "infinite") return DAV_LOCK_MAX_S;
    const m = /^second-(\d+)$/.exec(part);
    if (m) return Math.max(1, Math.min(Number(m[1]), DAV_LOCK_MAX_S));
  }
  return DAV_LOCK_DEFAULT_S;
}

/** The chain of a resolved target: the resource, or for an unmapped URL its would-be folder. */
async function chainOfResolved(ctx: DavRequest, r: Resolved): Promise<LockChain | null> {
  if (r.node?.kind === "resource") return await chainOf(ctx.d.kv, r.node.resource.rs);
  if (r.node !== null || !r.parent) return null;
  return await chainBelow(ctx, r.parent.parentRs);
}

/** The chain of an unmapped URL in folder `parentRs` (null: a drive root). */
async function chainBelow(ctx: DavRequest, parentRs: number | null): Promise<LockChain | null> {
  if (parentRs === null) return { self: null, ancestors: [] };
  const above = await chainOf(ctx.d.kv, parentRs);
  return above && { self: null, ancestors: [parentRs, ...above.ancestors] };
}

/** The state an If header list is checked against, for a resolved URL. */
async function stateOf(ctx: DavRequest, r: Resolved): Promise<IfResourceState> {
  const chain = await chainOfResolved(ctx, r);
  const tokens = new Set<string>();
  if (chain) {
    for (const h of await locksApplying(ctx.d.kv, chain)) if (h.dav) tokens.add(h.dav.token);
  }
  const etag = r.node?.kind === "resource" ? etagOf(r.node.resource) : null;
  return { etag, tokens };
}

/** The request's If header, parsed (400 when malformed), or null. */
function ifListsOf(ctx: DavRequest): IfList[] | null {
  const header = ctx.req.headers.get("if");
  if (header === null) return null;
  try {
    return parseIfHeader(header);
  } catch (err) {
    if (err instanceof IfHeaderError) {
      davFail(400, `Malformed If header: ${err.message}`, { code: "DAV_003" });
    }
    throw err;
  }
}

/** The path of a tagged resource of this server, or null (another host never matches). */
function taggedPath(ctx: DavRequest, tag: string): string | null {
  try {
    const u = new URL(tag, ctx.url);
    return u.host === ctx.url.host ? u.pathname : null;
  } catch {
    return null;
  }
}

/**
 * Evaluates the If header (412 when no list holds) and returns the lock tokens it submits.
 * No header: nothing submitted.
 */
async function submittedTokens(ctx: DavRequest): Promise<Set<string>> {
  const lists = ifListsOf(ctx);
  if (!lists) return new Set();
  const states = new Map<string | null, IfResourceState>();
  for (const tag of resourcesOf(lists)) {
    const path = tag === null ? ctx.url.pathname : taggedPath(ctx, tag);
    const state = path === null
      ? { etag: null, tokens: new Set<string>() }
      : await stateOf(ctx, await resolvePath(ctx, path));
    states.set(tag, state);
  }
  const { ok, submitted } = evaluateIf(lists, (r) => states.get(r)!);
  if (!ok) davFail(412, "No list of the If header matches", { code: "DAV_004" });
  return submitted;
}

/**
 * Whether the submitted tokens open a lock: its own token, or for a shared lock the token of any
 * shared lock beside it on the same resource (RFC 4918 6.2: each holder of a shared lock may
 * write). Editor and provider locks have no token.
 */
const opens = (h: AppliedLock, submitted: Set<string>) =>
  h.dav !== null && liveDavLocks(h.record).some((l) => submitted.has(l.token));

/** The LockOwner a write passes to the domain ops: the WebDAV locks whose tokens it submitted. */
const ownerOf = (submitted: Set<string>): LockOwner => (lock: Lock) =>
  lock.source === "webdav" && liveDavLocks(lock).some((l) => submitted.has(l.token));

/**
 * May this request write `targets`? Checks the If header (400 malformed, 412 false), then every
 * lock applying to each target (on it, on a folder above with depth infinity, on its folder for
 * `members` changes, inside it for depth infinity): each must be a WebDAV lock whose token the
 * If header submitted, else 423 with DAV:lock-token-submitted naming the locked resources.
 * Returns the LockOwner to pass to the domain operation, so its own lock check agrees.
 */
export async function assertWritable(
  ctx: DavRequest,
  targets: WriteTarget[],
): Promise<LockOwner> {
  const submitted = await submittedTokens(ctx);
  const locked = new Set<string>();
  for (const t of targets) {
    if (t.ownerSeq !== undefined) {
      const locked = t.lockStamp
        ? t.lockStamp.value !== null
        : await everLocked(ctx.d.kv, t.ownerSeq);
      if (!locked) continue;
    }
    const chain = await chainOfTarget(ctx, t);
    if (!chain) continue;
    const held = await locksApplying(ctx.d.kv, chain, t.members ?? t.resourceSeq === null);
    for (const h of held) {
      if (!opens(h, submitted)) locked.add(lockedHref(chain, h, t.path));
    }
    if (t.depth === "infinity" && t.resourceSeq !== null) {
      const self = await getResource(ctx.d.kv, t.resourceSeq);
      if (self?.type === "FOLDER") {
        for (const h of await locksInside(ctx.d.kv, self)) {
          if (!opens(h, submitted)) locked.add(t.path);
        }
      }
    }
  }
  if (locked.size > 0) {
    davFail(423, "The resource is locked", {
      condition: "lock-token-submitted",
      hrefs: [...locked],
      code: "RESOURCE_010",
    });
  }
  return ownerOf(submitted);
}

async function chainOfTarget(ctx: DavRequest, t: WriteTarget): Promise<LockChain | null> {
  if (t.resourceSeq !== null) return await chainOf(ctx.d.kv, t.resourceSeq);
  if (t.parentRs === undefined) return await chainOfResolved(ctx, await resolvePath(ctx, t.path));
  return await chainBelow(ctx, t.parentRs);
}

/** The href to name for a lock in lock-token-submitted: its root, seen from the target. */
function lockedHref(chain: LockChain, h: AppliedLock, path: string): string {
  if (h.rs === chain.self) return path;
  // The folder i places up the ancestors is i + 1 levels above the target, mapped or not.
  return hrefAbove(path, chain.ancestors.indexOf(h.rs) + 1);
}

interface LockRequest {
  scope: DavLock["scope"];
  ownerXml: string;
}

/** The DAV:lockinfo body (RFC 4918 14.11), or a 400. */
function parseLockInfo(text: string): LockRequest {
  let root;
  try {
    root = parseXml(text);
  } catch (err) {
    if (err instanceof XmlSyntaxError) {
      davFail(400, `The LOCK body is not well-formed XML: ${err.message}`, { code: "DAV_002" });
    }
    throw err;
  }
  if (root.ns !== DAV_NS || root.local !== "lockinfo") {
    davFail(400, "Expected DAV:lockinfo", { code: "DAV_003" });
  }
  const scopeEl = elements(root, DAV_NS, "lockscope")[0];
  const scope = scopeEl && elements(scopeEl, DAV_NS)[0]?.local;
  if (scope !== "exclusive" && scope !== "shared") {
    davFail(400, "DAV:lockscope must hold DAV:exclusive or DAV:shared", { code: "DAV_003" });
  }
  const typeEl = elements(root, DAV_NS, "locktype")[0];
  if (!typeEl || elements(typeEl, DAV_NS, "write").length !== 1) {
    davFail(400, "DAV:locktype must be DAV:write", { code: "DAV_003" });
  }
  const ownerEl = elements(root, DAV_NS, "owner")[0];
  const ownerXml = ownerEl
    ? ownerEl.children.map((c) => isEl(c) ? serialize(c) : esc(c)).join("")
    : "";
  if (ownerXml.length > DAV_OWNER_XML_MAX) {
    davFail(400, `DAV:owner may have at most ${DAV_OWNER_XML_MAX} characters`, {
      code: "DAV_003",
    });
  }
  return { scope: scope as DavLock["scope"], ownerXml };
}

function depthOf(ctx: DavRequest): DavLock["depth"] {
  const depth = (ctx.req.headers.get("depth") ?? "infinity").trim().toLowerCase();
  if (depth === "0") return 0;
  if (depth === "infinity") return "infinity";
  return davFail(400, "LOCK takes Depth 0 or infinity", { code: "DAV_003" });
}

function lockResponse(lock: DavLock, root: string, status: number, created: boolean): Response {
  const body = `<?xml version="1.0" encoding="utf-8"?>\n<D:prop xmlns:D="DAV:">` +
    `<D:lockdiscovery>${activeLockXml(lock, root)}</D:lockdiscovery></D:prop>`;
  const headers = new Headers({ "content-type": "application/xml; charset=utf-8" });
  if (created) headers.set("lock-token", `<${lock.token}>`);
  return new Response(body, { status, headers });
}

async function lock(_c: Context, ctx: DavRequest): Promise<Response> {
  const text = await readCappedText(ctx.req, LOCK_BODY_MAX);
  const timeoutS = timeoutSeconds(ctx.req.headers.get("timeout"));
  const target = await resolvePath(ctx, ctx.url.pathname);
  if (text.trim() === "") return await refresh(ctx, target, timeoutS);
  const info = parseLockInfo(text);
  const depth = depthOf(ctx);
  if (target.node && target.node.kind !== "resource") {
    davFail(403, "This collection cannot be locked; lock a file or folder in it", {
      code: "PERMISSION_002",
    });
  }
  let status = 200;
  let rs: number;
  if (!target.node) {
    // RFC 4918 7.3: a LOCK on an unmapped URL creates an empty resource, locked.
    if (!target.parent) {
      davFail(409, "The parent collection does not exist", { code: "RESOURCE_002" });
    }
    await authorizeContainer(ctx, target.parent!);
    const lockOwner = await assertWritable(ctx, [{
      path: target.href,
      resourceSeq: null,
      depth: 0,
      parentRs: target.parent!.parentRs,
    }]);
    rs = (await createEmptyFile(ctx, target, lockOwner)).rs;
    status = 201;
  } else {
    await authorizeNode(ctx, target.node as Extract<DavNode, { kind: "resource" }>, "edit");
    rs = (target.node as Extract<DavNode, { kind: "resource" }>).resource.rs;
    // A new lock on a locked resource is refused by the lock itself (423), not by the If header.
    await submittedTokens(ctx);
  }
  try {
    const taken = await takeDavLock(ctx.d.kv, {
      rs,
      scope: info.scope,
      depth,
      ownerXml: info.ownerXml,
      userSeq: ctx.caller.userSeq,
      holder: ctx.caller.user.accountId,
      timeoutS,
    });
    return lockResponse(taken, target.href, status, true);
  } catch (err) {
    const e = toDavError(err);
    if (e.status === 423) {
      throw new DavError(423, e.message, {
        condition: "no-conflicting-lock",
        hrefs: [target.href],
        code: "RESOURCE_010",
      });
    }
    throw e;
  }
}

/** A LOCK without a body refreshes the lock named in its If header (RFC 4918 9.10.2). */
async function refresh(ctx: DavRequest, target: Resolved, timeoutS: number): Promise<Response> {
  const lists = ifListsOf(ctx);
  if (!lists) {
    davFail(400, "A LOCK refresh needs the lock's token in an If header", { code: "DAV_003" });
  }
  const chain = await chainOfResolved(ctx, target);
  if (!chain || chain.self === null) {
    davFail(404, "Nothing is locked at this URL", { code: "RESOURCE_002" });
  }
  for (const c of lists!.flatMap((l) => l.conditions)) {
    if (c.token === undefined || c.not) continue;
    const found = await findDavLock(ctx.d.kv, chain!, c.token);
    if (!found) continue;
    const renewed = await refreshDavLock(ctx.d.kv, chain!, c.token, timeoutS);
    if (renewed) {
      const root = hrefAbove(target.href, rootLevels(chain!, renewed.rs));
      return lockResponse(renewed.lock, root, 200, false);
    }
  }
  return davFail(412, "The If header names no lock of this resource", {
    condition: "lock-token-matches-request-uri",
    code: "DAV_005",
  });
}

const rootLevels = (chain: LockChain, rs: number) =>
  rs === chain.self ? 0 : chain.ancestors.indexOf(rs) + 1;

async function unlock(_c: Context, ctx: DavRequest): Promise<Response> {
  const header = ctx.req.headers.get("lock-token")?.trim() ?? "";
  const m = /^<([^<>\s]+)>$/.exec(header);
  if (!m) davFail(400, "UNLOCK needs a Lock-Token header: <token>", { code: "DAV_003" });
  const target = await resolvePath(ctx, ctx.url.pathname);
  if (!target.node) davFail(404, "Nothing is mapped at this URL", { code: "RESOURCE_002" });
  const chain = await chainOfResolved(ctx, target);
  const found = chain && await findDavLock(ctx.d.kv, chain, m![1]);
  if (!found) {
    davFail(409, "The token names no lock of this resource", {
      condition: "lock-token-matches-request-uri",
      code: "DAV_005",
    });
  }
  // The one who took it, or the owner of the drive it is in, may release it.
  if (found!.lock.userSeq !== ctx.caller.userSeq && found!.record.ownerSeq !== ctx.caller.userSeq) {
    davFail(403, "Only who took the lock or the drive's owner may release it", {
      code: "PERMISSION_002",
    });
  }
  if (!await releaseDavLock(ctx.d.kv, chain!, m![1])) {
    davFail(409, "The lock ended meanwhile", {
      condition: "lock-token-matches-request-uri",
      code: "DAV_005",
    });
  }
  return new Response(null, { status: 204 });
}

export const lockMethods = { LOCK: lock, UNLOCK: unlock };
