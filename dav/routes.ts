/**
 * The WebDAV edge, mounted by app.ts at /dav (docs/webdav.md). One handler: authenticate, check
 * the scope, then the method's handler from DAV_METHODS, the one table of what is served (OPTIONS
 * advertises exactly its keys). WebDAV's methods are no OpenAPI operations, so this table, not a
 * createRoute declaration, is where a method is declared: tests/dav/routes_test.ts holds dav/ to
 * this one handler, tests/dav/methods_test.ts holds OPTIONS's Allow to the table.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { Deps } from "../kv/deps.ts";
import { driveLogger } from "../lib/logger.ts";
import { assertScope, authenticate } from "./auth.ts";
import { DAV_BASE, DavError, type DavRequest, errorResponse, toDavError } from "./context.ts";
import { copyMove } from "./copy_move.ts";
import { get } from "./get.ts";
import { lockMethods } from "./locks.ts";
import { mkcol, remove } from "./mkcol_delete.ts";
import { propfind } from "./propfind.ts";
import { proppatch } from "./proppatch.ts";
import { put } from "./put.ts";

type Handler = (c: Context, ctx: DavRequest) => Promise<Response>;

function options(): Promise<Response> {
  return Promise.resolve(
    new Response(null, {
      status: 200,
      headers: {
        "dav": "1, 2, 3",
        "ms-author-via": "DAV",
        "allow": Object.keys(DAV_METHODS).join(", "),
        "accept-ranges": "bytes",
        "content-length": "0",
      },
    }),
  );
}

/** Every method served, and its handler. */
export const DAV_METHODS: Record<string, Handler> = {
  OPTIONS: options,
  PROPFIND: (_c, ctx) => propfind(ctx),
  PROPPATCH: (_c, ctx) => proppatch(ctx),
  GET: (_c, ctx) => get(ctx),
  HEAD: (_c, ctx) => get(ctx),
  PUT: (_c, ctx) => put(ctx),
  MKCOL: (_c, ctx) => mkcol(ctx),
  DELETE: (_c, ctx) => remove(ctx),
  COPY: (_c, ctx) => copyMove(ctx, "COPY"),
  MOVE: (_c, ctx) => copyMove(ctx, "MOVE"),
  LOCK: lockMethods.LOCK,
  UNLOCK: lockMethods.UNLOCK,
};

export function davApp(d: Deps): Hono {
  const app = new Hono();
  const serve = async (c: Context): Promise<Response> => {
    const method = c.req.method.toUpperCase();
    try {
      const caller = await authenticate(d, c);
      const handler = DAV_METHODS[method];
      if (!handler) {
        const allow = Object.keys(DAV_METHODS).join(", ");
        const err = new DavError(405, `${method} is not a WebDAV method served here`, {
          headers: { allow },
        });
        return errorResponse(err, method);
      }
      assertScope(caller, method);
      const url = new URL(c.req.url);
      // RFC 9112 3.2: a request target has no fragment; acting on "coll/#frag" as on "coll/"
      // would delete or overwrite what the client did not name.
      if (url.hash) throw new DavError(400, "The request target must not hold a fragment (#)");
      // URL parsing resolves "%2e%2e" segments: a target that climbs out of /dav names nothing here.
      if (url.pathname !== DAV_BASE && !url.pathname.startsWith(`${DAV_BASE}/`)) {
        throw new DavError(400, "The request target climbs out of the WebDAV tree");
      }
      const ctx: DavRequest = { d, c, req: c.req.raw, url, caller };
      return await handler(c, ctx);
    } catch (err) {
      let dav;
      try {
        dav = toDavError(err);
      } catch {
        driveLogger("dav").error("unexpected error", {
          error: String(err),
          stack: err instanceof Error ? err.stack : undefined,
        });
        return new Response("Internal Server Error", { status: 500 });
      }
      return errorResponse(dav, method);
    }
  };
  app.all("/", serve);
  app.all("/*", serve);
  return app;
}
