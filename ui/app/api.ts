/**
 * Typed client of the APIs the app shell calls: the account API (/api/account/v1: sign-in,
 * "me", passwords, sessions, app passwords) and the single sign-on list (/auth/v1). The session
 * is the HttpOnly cookie the browser sends by itself; every change also carries the session's
 * CSRF token (X-CSRF-Token), which the sign-in answer and GET /me give and the store keeps.
 * The shapes are the server's own, taken with `import type` (nothing of the server is bundled).
 * The drive API's client joins this module when the file browser comes.
 */
import type {
  AccountUser,
  AppPassword,
  CreatedAppPassword,
  Invitation,
  SessionView,
  SignedIn,
} from "../../api/account/schemas/account.ts";

import { ApiError } from "../shared/api_error.ts";

export type { AccountUser, AppPassword, CreatedAppPassword, Invitation, SessionView, SignedIn };

export const ACCOUNT_BASE = "/api/account/v1";

/** A single sign-on the sign-in page offers (GET /auth/v1/oidc/providers). */
export interface SsoProvider {
  tenantId: number;
  label: string;
  startUrl: string;
}

export { ApiError };

/** The CSRF token of the current session (set by the store after sign-in or GET /me). */
export interface CsrfSource {
  csrf(): string | null;
  /** The session ended under us (401): the store forgets the user. */
  lost(): void;
}

/**
 * A JSON request in the session: the cookie rides along, and a change carries the CSRF token.
 * The account and drive clients share it; each reads its own answer envelope.
 */
export function sessionFetch(
  session: CsrfSource,
  method: string,
  url: string,
  body?: unknown,
  extra: Record<string, string> = {},
): Promise<Response> {
  const headers: Record<string, string> = { accept: "application/json", ...extra };
  if (body !== undefined) headers["content-type"] = "application/json";
  const csrf = session.csrf();
  if (method !== "GET" && csrf) headers["x-csrf-token"] = csrf;
  return fetch(url, {
    method,
    headers,
    credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

export class AccountApi {
  constructor(private readonly session: CsrfSource) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await sessionFetch(this.session, method, `${ACCOUNT_BASE}${path}`, body);
    if (res.status === 204) return undefined as T;
    const data = await res.json().catch(() => null);
    if (!res.ok) {
      const retry = Number(res.headers.get("retry-after")) || undefined;
      const err = new ApiError(
        res.status,
        data?.error ?? `HTTP_${res.status}`,
        data?.message ?? `The server answered ${res.status}`,
        data?.field,
        retry,
      );
      // A session that ended (signed out elsewhere, revoked, timed out) is no session here.
      if (res.status === 401 && path !== "/sign-in") this.session.lost();
      throw err;
    }
    return data as T;
  }

  signIn = (login: string, password: string) =>
    this.call<SignedIn>("POST", "/sign-in", { login, password });
  signOut = () => this.call<unknown>("POST", "/sign-out");
  me = () => this.call<SignedIn>("GET", "/me");
  changePassword = (currentPassword: string, newPassword: string) =>
    this.call<SignedIn>("POST", "/password", { currentPassword, newPassword });
  lookupInvitation = (token: string) =>
    this.call<Invitation>("POST", "/invitations/lookup", { token });
  acceptInvitation = (token: string, password: string) =>
    this.call<SignedIn>("POST", "/invitations/accept", { token, password });
  sessions = () => this.call<{ items: SessionView[] }>("GET", "/sessions");
  revokeSession = (id: string) => this.call<unknown>("DELETE", `/sessions/${id}`);
  revokeOtherSessions = () => this.call<unknown>("DELETE", "/sessions");
  appPasswords = () => this.call<{ items: AppPassword[] }>("GET", "/app-passwords");
  createAppPassword = (
    input: { label: string; scope: "read" | "read-write"; expiresAt?: string },
  ) => this.call<CreatedAppPassword>("POST", "/app-passwords", input);
  revokeAppPassword = (keyId: string) =>
    this.call<unknown>("DELETE", `/app-passwords/${encodeURIComponent(keyId)}`);
}

/** The sign-in buttons of every tenant with single sign-on. */
export async function ssoProviders(): Promise<SsoProvider[]> {
  const res = await fetch("/auth/v1/oidc/providers", { headers: { accept: "application/json" } });
  if (!res.ok) return [];
  return (await res.json()).items as SsoProvider[];
}
