/** WebDAV lock requests for the lock tests (tests/dav/locks_*_test.ts), in-process servers. */
import assert from "node:assert/strict";
import type { ApiUser } from "../helpers/api.ts";
import type { TestServer } from "../helpers/server.ts";

/** A well-formed lock token that names no lock. */
export const UUID = "00000000-0000-4000-8000-000000000000";

export const LOCKINFO = `<?xml version="1.0" encoding="utf-8"?>
<D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope>
<D:locktype><D:write/></D:locktype><D:owner><D:href>mailto:t@example.com</D:href></D:owner>
</D:lockinfo>`;

/** A WebDAV request by `user` (Basic, as mounting clients sign in) to `path` below /dav. */
export function dav(
  server: TestServer,
  user: ApiUser,
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: BodyInit } = {},
): Promise<Response> {
  const basic = btoa(`${user.accountId}:${user.apiKey}`);
  return fetch(`${server.url}/dav/files/${user.accountId}${path}`, {
    method,
    body: init.body,
    headers: { authorization: `Basic ${basic}`, ...init.headers },
  });
}

/** LOCK `path`; returns the token from the Lock-Token header. */
export async function davLock(
  server: TestServer,
  user: ApiUser,
  path: string,
  depth: "0" | "infinity" = "0",
): Promise<string> {
  const res = await dav(server, user, "LOCK", path, {
    headers: { depth, timeout: "Second-600", "content-type": "application/xml" },
    body: LOCKINFO,
  });
  const text = await res.text();
  assert.ok(res.status === 200 || res.status === 201, `LOCK ${path}: ${res.status} ${text}`);
  // The owner comes back as sent (its elements keep their namespace, under a prefix of ours).
  assert.match(
    text,
    /<D:owner><(\w+):href xmlns:\1="DAV:">mailto:t@example.com<\/\1:href><\/D:owner>/,
  );
  const token = /^<(urn:uuid:[0-9a-f-]{36})>$/.exec(res.headers.get("lock-token") ?? "")?.[1];
  assert.ok(token, `Lock-Token: ${res.headers.get("lock-token")}`);
  return token;
}

/** Asserts a 423 naming `href` in DAV:lock-token-submitted. */
export async function assertLocked(res: Response, href: string) {
  const text = await res.text();
  assert.equal(res.status, 423, text);
  assert.match(text, /<D:lock-token-submitted><D:href>([^<]+)<\/D:href>/);
  assert.ok(text.includes(`<D:href>${href}</D:href>`), text);
}

export const put = (
  server: TestServer,
  user: ApiUser,
  path: string,
  body: string,
  token?: string,
) =>
  dav(server, user, "PUT", path, {
    body,
    headers: token ? { if: `(<${token}>)` } : {},
  });
