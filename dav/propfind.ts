/**
 * PROPFIND (RFC 4918 9.1): allprop (with include), propname and prop; Depth 0 and 1 (infinity is
 * refused with DAV:propfind-finite-depth). The 207 body is streamed: members are read a page at a
 * time from the folder's name index and written as they come, so a large collection never sits
 * whole in memory.
 */
import { OWNER_PERMISSIONS } from "../kv/sharing/authorize.ts";
import { listChildren } from "../kv/tree/listing.ts";
import { listDeadProps } from "../kv/tree/dead_props.ts";
import type { Resource } from "../kv/tree/resources.ts";
import { DAV_BASE, DavError, type DavRequest } from "./context.ts";
import { readXmlBody } from "./body.ts";
import {
  type DavNode,
  driveHref,
  encodeSegment,
  memberHref,
  resolvePath,
  sharedRoots,
} from "./paths.ts";
import { ALLPROP, LIVE_SET, liveProp, PropCache } from "./props.ts";
import { clark, DAV_NS, DRIVE_NS, elements, emptyElement, type XmlElement } from "./xml.ts";

type PropRequest =
  | { kind: "allprop"; include: string[] }
  | { kind: "propname" }
  | { kind: "prop"; names: string[] };

/** Members listed per KV read. */
const PAGE = 250;

const MULTISTATUS_OPEN = `<?xml version="1.0" encoding="utf-8"?>\n` +
  `<D:multistatus xmlns:D="${DAV_NS}" xmlns:x="${DRIVE_NS}">`;

const bad = (message: string) => new DavError(400, message, { code: "REQUEST_001" });

function parsePropfind(body: XmlElement | null): PropRequest {
  if (!body) return { kind: "allprop", include: [] };
  if (body.ns !== DAV_NS || body.local !== "propfind") {
    throw bad("A PROPFIND body is a DAV:propfind element");
  }
  const names = (el: XmlElement) => elements(el).map((p) => clark(p.ns, p.local));
  const kids = elements(body);
  const prop = kids.find((k) => k.ns === DAV_NS && k.local === "prop");
  const allprop = kids.find((k) => k.ns === DAV_NS && k.local === "allprop");
  const propname = kids.find((k) => k.ns === DAV_NS && k.local === "propname");
  if ([prop, allprop, propname].filter(Boolean).length !== 1) {
    throw bad("DAV:propfind holds exactly one of DAV:prop, DAV:allprop and DAV:propname");
  }
  if (prop) return { kind: "prop", names: names(prop) };
  if (propname) return { kind: "propname" };
  const include = kids.find((k) => k.ns === DAV_NS && k.local === "include");
  return { kind: "allprop", include: include ? names(include) : [] };
}

function depthOf(req: Request): 0 | 1 {
  const depth = (req.headers.get("depth") ?? "infinity").trim().toLowerCase();
  if (depth === "0") return 0;
  if (depth === "1") return 1;
  if (depth === "infinity") {
    throw new DavError(403, "PROPFIND with Depth: infinity is not served; use Depth 0 or 1", {
      condition: "propfind-finite-depth",
    });
  }
  throw bad("Depth must be 0, 1 or infinity");
}

interface Member {
  node: DavNode;
  href: string;
  name: string;
}

/** The members of a collection node, a page at a time. */
async function* membersOf(ctx: DavRequest, self: Member): AsyncGenerator<Member> {
  const node = self.node;
  const account = ctx.caller.user.accountId;
  if (node.kind === "service") {
    yield { node: { kind: "files-list" }, href: `${DAV_BASE}/files/`, name: "files" };
    yield { node: { kind: "shared-list" }, href: `${DAV_BASE}/shared/`, name: "shared" };
  } else if (node.kind === "files-list") {
    yield { node: { kind: "drive" }, href: driveHref(account), name: account };
  } else if (node.kind === "shared-list") {
    for (const root of await sharedRoots(ctx)) {
      const r = root.access.resource;
      const href = `${DAV_BASE}/shared/${encodeSegment(root.name)}` +
        (r.type === "FOLDER" ? "/" : "");
      yield { node: { kind: "resource", resource: r, access: root.access }, href, name: root.name };
    }
  } else if (node.kind === "drive" || node.resource.type === "FOLDER") {
    const ownerSeq = node.kind === "drive" ? ctx.caller.userSeq : node.resource.ownerSeq;
    const parentRs = node.kind === "drive" ? null : node.resource.rs;
    const parentAccess = node.kind === "drive" ? null : node.access;
    type Page = Awaited<ReturnType<typeof listChildren>>;
    const pageAt = (cursor?: string): Promise<Page> =>
      listChildren(ctx.d.kv, ownerSeq, parentRs, {
        sort: "name",
        order: "asc",
        limit: PAGE,
        cursor,
      });
    // The next page is read while this one is written out: the KV read and the XML overlap.
    let next: Promise<Page> | null = pageAt();
    while (next) {
      const page: Page = await next;
      next = page.cursor ? pageAt(page.cursor) : null;
      // A failed prefetch is thrown by the await above on the next round, not left unhandled.
      next?.catch(() => {});
      for (const child of page.items) yield memberOf(self.href, child, parentAccess);
    }
  }
}

function memberOf(
  parentHref: string,
  child: Resource,
  parentAccess: Extract<DavNode, { kind: "resource" }>["access"] | null,
): Member {
  // A member's access is its folder's: the shares on the path above it grant the same to it.
  const access = parentAccess
    ? { ...parentAccess, resource: child, path: [child, ...parentAccess.path] }
    : { resource: child, path: [child], permissions: OWNER_PERMISSIONS, isOwner: true };
  return {
    node: { kind: "resource", resource: child, access },
    href: memberHref(parentHref, child),
    name: child.name,
  };
}

const STATUS_LINE: Record<number, string> = {
  200: "HTTP/1.1 200 OK",
  404: "HTTP/1.1 404 Not Found",
};

function propstat(status: number, props: string[]): string {
  return props.length === 0
    ? ""
    : `<D:propstat><D:prop>${props.join("")}</D:prop><D:status>${
      STATUS_LINE[status]
    }</D:status></D:propstat>`;
}

/**
 * One DAV:response for a member. `names`: the properties asked, in order, each once (not for
 * propname).
 */
async function responseOf(
  ctx: DavRequest,
  cache: PropCache,
  want: PropRequest,
  names: readonly string[],
  m: Member,
): Promise<string> {
  const needDead = want.kind !== "prop" || want.names.some((n) => !LIVE_SET.has(n));
  let hasDead = m.node.kind === "resource" && needDead && cache.hasDeadProps(m.node.resource);
  if (hasDead instanceof Promise) hasDead = await hasDead;
  const dead = hasDead && m.node.kind === "resource"
    ? await listDeadProps(ctx.d.kv, m.node.resource.rs)
    : [];
  const found: string[] = [];
  const missing: string[] = [];
  // Awaited only while a per-request read is on its way (dav/props.ts): most members need none.
  const live = async (name: string) => {
    const v = liveProp(ctx, cache, m.node, m.href, m.name, name);
    return v instanceof Promise ? await v : v;
  };
  const href = `<D:href>${m.href}</D:href>`;
  if (want.kind === "propname") {
    for (const name of ALLPROP) {
      if ((await live(name)) !== null) found.push(emptyOf(name));
    }
    for (const p of dead) found.push(emptyElement(p.ns, p.local));
    return `<D:response>${href}${propstat(200, found)}</D:response>`;
  }
  const deadByName = dead.length > 0
    ? new Map(dead.map((p) => [clark(p.ns, p.local), p.xml]))
    : null;
  for (const name of names) {
    let value = LIVE_SET.has(name)
      ? liveProp(ctx, cache, m.node, m.href, m.name, name)
      : deadByName?.get(name) ?? null;
    if (value instanceof Promise) value = await value;
    if (value !== null) found.push(value);
    else if (want.kind === "prop") missing.push(emptyOf(name));
  }
  if (want.kind === "allprop") {
    for (const p of dead) if (!names.includes(clark(p.ns, p.local))) found.push(p.xml);
  }
  return `<D:response>${href}${propstat(200, found)}${propstat(404, missing)}</D:response>`;
}

function emptyOf(name: string): string {
  const close = name.indexOf("}");
  return emptyElement(name.slice(1, close), name.slice(close + 1));
}

export async function propfind(ctx: DavRequest): Promise<Response> {
  const depth = depthOf(ctx.req);
  const want = parsePropfind(await readXmlBody(ctx.req));
  const target = await resolvePath(ctx, ctx.url.pathname);
  if (!target.node) throw new DavError(404, `Nothing is at ${ctx.url.pathname}`);
  const self: Member = {
    node: target.node,
    href: target.href,
    name: target.name ?? displayNameOf(ctx, target.node),
  };
  const cache = new PropCache(ctx);
  const encoder = new TextEncoder();
  // Each name once, in the order asked (a name repeated in the request is answered once).
  const names = [
    ...new Set(
      want.kind === "prop"
        ? want.names
        : want.kind === "allprop"
        ? [...ALLPROP, ...want.include]
        : [],
    ),
  ];
  // The target's own answer before the status line: a failure there is still an error answer.
  const first = MULTISTATUS_OPEN + await responseOf(ctx, cache, want, names, self);
  async function* parts(): AsyncGenerator<Uint8Array> {
    yield encoder.encode(first);
    if (depth === 1) {
      let batch = "";
      for await (const m of membersOf(ctx, self)) {
        batch += await responseOf(ctx, cache, want, names, m);
        if (batch.length > 32 * 1024) {
          yield encoder.encode(batch);
          batch = "";
        }
      }
      if (batch) yield encoder.encode(batch);
    }
    yield encoder.encode("</D:multistatus>\n");
  }
  const body = ReadableStream.from(parts());
  return new Response(body, {
    status: 207,
    headers: { "content-type": "application/xml; charset=utf-8" },
  });
}

function displayNameOf(ctx: DavRequest, node: DavNode): string {
  if (node.kind === "drive") return ctx.caller.user.accountId;
  if (node.kind === "files-list") return "files";
  if (node.kind === "shared-list") return "shared";
  if (node.kind === "resource") return node.resource.name;
  return "dav";
}
