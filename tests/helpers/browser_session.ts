/**
 * Test harness, signed-in people: a browser-like client with one cookie jar that sends the
 * service's Origin and the session's CSRF token the way the app shell does, and helpers that
 * give a user a password through the real invitation flow.
 */
import assert from "node:assert/strict";
import { type JsonResponse, readJson } from "./http.ts";
import type { AdminClient } from "./admin.ts";
import { ApiUser } from "./api.ts";

export const ACCOUNT = "/api/account/v1";
/** A password the policy accepts (long, not common). */
export const GOOD_PASSWORD = "violet-harbour-tandem-42";

export class Browser {
  /** Cookie name -> value, as a browser would keep them for this origin. */
  readonly cookies = new Map<string, string>();
  csrfToken: string | null = null;
  /** Set-Cookie headers received, newest last (attribute tests read them). */
  readonly setCookies: string[] = [];

  constructor(
    readonly url: string,
    /** The Origin sent on every request (a foreign one for CSRF tests). */
    public origin: string = url,
    readonly userAgent = "TestBrowser/1.0",
  ) {}

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  /** A request as the app shell sends it; `csrf: false` leaves the token header out. */
  async call(
    method: string,
    path: string,
    body?: unknown,
    opts: { csrf?: boolean; headers?: Record<string, string> } = {},
  ): Promise<JsonResponse> {
    const headers: Record<string, string> = { origin: this.origin, "user-agent": this.userAgent };
    if (this.cookies.size > 0) headers.cookie = this.cookieHeader();
    if (body !== undefined) headers["content-type"] = "application/json";
    if (opts.csrf !== false && this.csrfToken) headers["x-csrf-token"] = this.csrfToken;
    Object.assign(headers, opts.headers);
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    for (const line of res.headers.getSetCookie()) {
      this.setCookies.push(line);
      const [pair] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (/Max-Age=0\b/i.test(line) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const out = await readJson(res);
    if (typeof out.body?.csrfToken === "string") this.csrfToken = out.body.csrfToken;
    return out;
  }

  account(method: string, path: string, body?: unknown, opts?: { csrf?: boolean }) {
    return this.call(method, `${ACCOUNT}${path}`, body, opts);
  }

  async signIn(login: string, password = GOOD_PASSWORD): Promise<JsonResponse> {
    return await this.account("POST", "/sign-in", { login, password });
  }
}

/** The token of an invitation or reset URL (`…/#/<kind>/<token>`). */
export const tokenOf = (url: string) => url.split("/").pop()!;

/** Makes an invitation for `userSeq` through the admin API and answers its token. */
export async function invite(
  admin: AdminClient,
  userSeq: number,
  kind: "invitation" | "reset" = "invitation",
): Promise<string> {
  const r = await admin.call("POST", `/users/${userSeq}/invitations`, { kind });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return tokenOf(r.body.url);
}

/** Gives `userSeq` `password` through an invitation, from a browser of its own. */
export async function setPasswordByInvitation(
  url: string,
  admin: AdminClient,
  userSeq: number,
  password = GOOD_PASSWORD,
): Promise<void> {
  const token = await invite(admin, userSeq);
  const r = await new Browser(url).account("POST", "/invitations/accept", { token, password });
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

/** A new tenant and user with a password, and a browser signed in as them. */
export async function signedInUser(
  server: { url: string; admin: AdminClient },
  accountId: string,
  opts: { tenantId?: number } = {},
): Promise<{ browser: Browser; userSeq: number; tenantId: number }> {
  const tenantId = opts.tenantId ?? (await server.admin.createTenant(`${accountId}-org`)).id;
  const user = await server.admin.createUser(tenantId, accountId);
  await setPasswordByInvitation(server.url, server.admin, user.userSeq);
  const browser = new Browser(server.url);
  const r = await browser.signIn(accountId);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return { browser, userSeq: user.userSeq, tenantId };
}

/**
 * `user` signed in through a browser session instead of their key: an ApiUser whose requests
 * carry the session cookie, the service's Origin and the CSRF token (and no Authorization), so
 * the drive API tests can run a session as one more caller.
 */
export async function sessionOf(
  server: { url: string; admin: AdminClient },
  user: ApiUser,
): Promise<ApiUser> {
  await setPasswordByInvitation(server.url, server.admin, user.userSeq);
  const browser = new Browser(server.url);
  const r = await browser.signIn(user.accountId);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return new SessionApiUser(browser, user);
}

class SessionApiUser extends ApiUser {
  constructor(readonly browser: Browser, user: ApiUser) {
    super(user.url, user.userSeq, user.tenantId, "(session)", user.accountId);
  }

  override fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set("cookie", this.browser.cookieHeader());
    headers.set("origin", this.browser.origin);
    headers.set("x-csrf-token", this.browser.csrfToken!);
    return fetch(`${this.url}/api/external/v1${path}`, { ...init, headers });
  }
}
