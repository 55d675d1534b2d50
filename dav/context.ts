/**
 * What every WebDAV handler works with: the request and its caller (DavRequest), and the one
 * error type (DavError) every failure becomes, answered as an RFC 4918 `DAV:error` body.
 */
import type { Context } from "hono";
import type { Deps } from "../kv/deps.ts";
import type { Scope } from "../kv/identity/api_keys.ts";
import type { Caller, User } from "../kv/identity/users.ts";
import { type ErrorCode, isDriveError } from "../kv/errors.ts";
import { DAV_NS, DRIVE_NS, esc } from "./xml.ts";

/** Where the WebDAV tree is mounted (app.ts). */
export const DAV_BASE = "/dav";

export interface DavCaller extends Caller {
  user: User;
  keyId: string;
  scopes: Scope[];
}

export interface DavRequest {
  d: Deps;
  c: Context;
  req: Request;
  url: URL;
  caller: DavCaller;
}

export interface DavErrorOptions {
  /** A precondition or postcondition element of RFC 4918 (local name in DAV:), for the body. */
  condition?: string;
  /** hrefs inside the condition element (lock-token-submitted names the locked resources). */
  hrefs?: string[];
  /** The drive's catalog code behind it, when there is one. */
  code?: ErrorCode | string;
  headers?: Record<string, string>;
}

export class DavError extends Error {
  constructor(readonly status: number, message: string, readonly opts: DavErrorOptions = {}) {
    super(message);
  }
}

export const davFail = (status: number, message: string, opts?: DavErrorOptions): never => {
  throw new DavError(status, message, opts);
};

/** What a catalog error means over WebDAV, where RFC 4918 names a different status. */
const STATUS_OF_CODE: Record<string, number> = {
  RESOURCE_015: 507, // quota: 507 Insufficient Storage (RFC 4918 11.5)
  RESOURCE_003: 412, // a name taken where the request said it must not be
  PERMISSION_002: 403,
  PERMISSION_004: 403,
  RESOURCE_010: 423, // locked by the editor or the provider
  AUTH_005: 401,
  AUTH_006: 401,
  // Lost to concurrent writes every time it was tried: worth repeating as it was. WebDAV clients
  // (rclone, Finder, the Mini-Redirector) retry a 503; a 409 tells them the parent is missing.
  RESOURCE_012: 503,
};

/** Seconds a 503 for lost contention asks the client to wait before trying again. */
const CONTENTION_RETRY_AFTER_S = 1;

/** Any thrown error as a DavError; unknown errors are rethrown (a real fault, answered 500). */
export function toDavError(err: unknown): DavError {
  if (err instanceof DavError) return err;
  if (isDriveError(err)) {
    const status = STATUS_OF_CODE[err.code] ?? err.status;
    const headers: Record<string, string> = err.code === "RESOURCE_012"
      ? { "retry-after": String(CONTENTION_RETRY_AFTER_S) }
      : {};
    return new DavError(status, err.message, { code: err.code, headers });
  }
  throw err;
}

/** The RFC 4918 error body: the condition element, and the drive's code and message. */
export function errorXml(err: DavError): string {
  const cond = err.opts.condition
    ? err.opts.hrefs?.length
      ? `<D:${err.opts.condition}>${
        err.opts.hrefs.map((h) => `<D:href>${esc(h)}</D:href>`).join("")
      }</D:${err.opts.condition}>`
      : `<D:${err.opts.condition}/>`
    : "";
  const code = err.opts.code ? `<x:code>${esc(err.opts.code)}</x:code>` : "";
  return `<?xml version="1.0" encoding="utf-8"?>\n<D:error xmlns:D="${DAV_NS}" xmlns:x="${DRIVE_NS}">` +
    `${cond}${code}<x:message>${esc(err.message)}</x:message></D:error>`;
}

export function errorResponse(err: DavError, method: string): Response {
  const headers = new Headers(err.opts.headers);
  if (method === "HEAD" || err.status === 304) {
    return new Response(null, { status: err.status, headers });
  }
  headers.set("content-type", "application/xml; charset=utf-8");
  return new Response(errorXml(err), { status: err.status, headers });
}
