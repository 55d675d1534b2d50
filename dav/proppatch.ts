/**
 * PROPPATCH (RFC 4918 9.2): sets and removes dead properties, in order, all or nothing. Live
 * properties are protected (403 with DAV:cannot-modify-protected-property; the rest of the
 * request 424). Windows' Win32* properties (creation, access and modification times, attributes)
 * are accepted and kept like any dead property, which is what Explorer needs to copy files in.
 * Limits (kv/tree/dead_props.ts): MAX_DEAD_PROPS per resource, MAX_DEAD_PROP_BYTES each (507).
 */
import { isDriveError } from "../kv/errors.ts";
import { patchDeadProps } from "../kv/tree/dead_props.ts";
import { davFail, type DavRequest } from "./context.ts";
import { readXmlBody } from "./body.ts";
import { authorizeNode, resolvePath, writeTarget } from "./paths.ts";
import { LIVE_SET } from "./props.ts";
import { assertWritable } from "./locks.ts";
import { clark, DAV_NS, DRIVE_NS, elements, emptyElement, serialize } from "./xml.ts";

type PatchOp =
  | { op: "set"; ns: string; local: string; xml: string }
  | { op: "remove"; ns: string; local: string };

const REASON: Record<number, string> = {
  200: "OK",
  403: "Forbidden",
  424: "Failed Dependency",
  507: "Insufficient Storage",
};

export async function proppatch(ctx: DavRequest): Promise<Response> {
  const body = await readXmlBody(ctx.req);
  if (!body || body.ns !== DAV_NS || body.local !== "propertyupdate") {
    davFail(400, "A PROPPATCH body is a DAV:propertyupdate element", { code: "REQUEST_001" });
  }
  const ops: PatchOp[] = [];
  for (const action of elements(body!)) {
    if (action.ns !== DAV_NS || (action.local !== "set" && action.local !== "remove")) continue;
    for (const prop of elements(action, DAV_NS, "prop")) {
      for (const p of elements(prop)) {
        ops.push(
          action.local === "set"
            ? { op: "set", ns: p.ns, local: p.local, xml: serialize(p) }
            : { op: "remove", ns: p.ns, local: p.local },
        );
      }
    }
  }
  if (ops.length === 0) {
    davFail(400, "DAV:propertyupdate names no property", { code: "REQUEST_001" });
  }
  if (ops.length > 90) davFail(400, "A PROPPATCH may change at most 90 properties at once");
  const target = await resolvePath(ctx, ctx.url.pathname);
  if (!target.node) davFail(404, `Nothing is at ${ctx.url.pathname}`);
  if (target.node!.kind !== "resource") davFail(403, "This collection has no properties to change");
  const node = target.node as Extract<typeof target.node, { kind: "resource" }>;
  await authorizeNode(ctx, node, "edit");
  await assertWritable(ctx, [writeTarget(target, 0)]);
  const isProtected = (o: PatchOp) => LIVE_SET.has(clark(o.ns, o.local));
  let statusOf: (o: PatchOp) => number;
  if (ops.some(isProtected)) {
    statusOf = (o) => (isProtected(o) ? 403 : 424);
  } else {
    try {
      await patchDeadProps(ctx.d.kv, node.resource.rs, node.resource.ownerSeq, ops);
      statusOf = () => 200;
    } catch (err) {
      if (!isDriveError(err) || err.code !== "DAV_001") throw err;
      statusOf = (o) => (o.op === "set" ? 507 : 424);
    }
  }
  const groups = new Map<number, PatchOp[]>();
  for (const o of ops) groups.set(statusOf(o), [...(groups.get(statusOf(o)) ?? []), o]);
  const propstats = [...groups].map(([status, list]) =>
    `<D:propstat><D:prop>${list.map((o) => emptyElement(o.ns, o.local)).join("")}</D:prop>` +
    `<D:status>HTTP/1.1 ${status} ${REASON[status]}</D:status>` +
    (status === 403 ? "<D:error><D:cannot-modify-protected-property/></D:error>" : "") +
    "</D:propstat>"
  ).join("");
  const xml =
    `<?xml version="1.0" encoding="utf-8"?>\n<D:multistatus xmlns:D="DAV:" xmlns:x="${DRIVE_NS}">` +
    `<D:response><D:href>${target.href}</D:href>${propstats}</D:response></D:multistatus>`;
  return new Response(xml, {
    status: 207,
    headers: { "content-type": "application/xml; charset=utf-8" },
  });
}
