/**
 * GET and HEAD. A file is sent exactly as the API's download sends it (api/http/file_response.ts:
 * the same ETag, Last-Modified, single Range, 304 for If-None-Match and If-Modified-Since, the
 * blob streamed). A collection answers a small HTML index of its members.
 */
import { sendFile } from "../api/http/file_response.ts";
import { DavError, type DavRequest } from "./context.ts";
import { authorizeNode, resolvePath } from "./paths.ts";
import { esc } from "./xml.ts";
import { listChildren } from "../kv/tree/listing.ts";
import { memberHref, sharedRoots } from "./paths.ts";
import { DAV_BASE } from "./context.ts";

/** Members an HTML index shows; beyond that it says how to see the rest (PROPFIND). */
const INDEX_MAX = 1000;

export async function get(ctx: DavRequest): Promise<Response> {
  const target = await resolvePath(ctx, ctx.url.pathname);
  const node = target.node;
  if (!node) throw new DavError(404, `Nothing is at ${ctx.url.pathname}`);
  if (node.kind === "resource" && node.resource.type === "FILE") {
    await authorizeNode(ctx, node, "download");
    return await sendFile(ctx.c, ctx.d, node.resource, { disposition: "inline" });
  }
  const links: [string, string][] = [];
  if (node.kind === "service") {
    links.push([`${DAV_BASE}/files/`, "files/"], [`${DAV_BASE}/shared/`, "shared/"]);
  } else if (node.kind === "files-list") {
    const account = ctx.caller.user.accountId;
    links.push([`${DAV_BASE}/files/${encodeURIComponent(account)}/`, `${account}/`]);
  } else if (node.kind === "shared-list") {
    for (const r of await sharedRoots(ctx)) {
      links.push([`${target.href}${encodeURIComponent(r.name)}/`, r.name]);
    }
  } else {
    const ownerSeq = node.kind === "drive" ? ctx.caller.userSeq : node.resource.ownerSeq;
    const parentRs = node.kind === "drive" ? null : node.resource.rs;
    const page = await listChildren(ctx.d.kv, ownerSeq, parentRs, {
      sort: "name",
      order: "asc",
      limit: INDEX_MAX,
    });
    for (const r of page.items) {
      links.push([memberHref(target.href, r), r.name + (r.type === "FOLDER" ? "/" : "")]);
    }
    if (page.cursor) links.push(["", `… more than ${INDEX_MAX}; list them with PROPFIND`]);
  }
  const title = esc(decodeURIComponent(target.href));
  const html = `<!doctype html><meta charset="utf-8"><title>${title}</title><h1>${title}</h1><ul>` +
    links.map(([href, text]) =>
      href ? `<li><a href="${esc(href)}">${esc(text)}</a></li>` : `<li>${esc(text)}</li>`
    ).join("") + "</ul>\n";
  const bytes = new TextEncoder().encode(html);
  return new Response(ctx.req.method === "HEAD" ? null : bytes, {
    status: 200,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-length": String(bytes.byteLength),
      "content-security-policy": "default-src 'none'",
    },
  });
}
