/**
 * The signed-in session of the console, one of two kinds:
 * - the admin token, kept in sessionStorage (gone when the tab closes) and sent as a bearer
 *   header;
 * - an administrator by name: a user with the admin role signed in through the account API
 *   (/api/account/v1/sign-in). The browser keeps the HttpOnly session cookie; the console keeps
 *   only the session's CSRF token, which every change sends as X-CSRF-Token.
 * Both live in signals the whole console reacts to.
 */
import { signal } from "@preact/signals";

const STORAGE_KEY = "drive.adminToken";
const ACCOUNT = "/api/account/v1";

function stored(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

export const adminToken = signal<string | null>(stored());

/** An administrator signed in by name: who, and the session's CSRF token. */
export interface AdminSession {
  accountId: string;
  csrfToken: string;
}

export const adminSession = signal<AdminSession | null>(null);

/** Why the last session ended, shown on the sign-in page. */
export const signOutReason = signal<string | null>(null);

export function signIn(token: string): void {
  sessionStorage.setItem(STORAGE_KEY, token);
  signOutReason.value = null;
  adminToken.value = token;
}

/** What the account API answers on sign-in and GET /me (api/account/schemas/account.ts). */
interface SignedIn {
  user: { accountId: string; roles: string[] };
  csrfToken: string;
}

/** Takes a signed-in account as the console's session when it holds the admin role. */
function useAccount(signedIn: SignedIn): boolean {
  if (!signedIn.user.roles.includes("admin")) return false;
  signOutReason.value = null;
  adminSession.value = { accountId: signedIn.user.accountId, csrfToken: signedIn.csrfToken };
  return true;
}

/**
 * Signs in by account and password; answers null, or why not (the server's message: wrong
 * password, throttled, or no admin role).
 */
export async function signInByName(login: string, password: string): Promise<string | null> {
  const res = await fetch(`${ACCOUNT}/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ login, password }),
  });
  const body = await res.json().catch(() => null);
  if (!res.ok) return body?.message ?? `The server answered ${res.status}`;
  if (!useAccount(body as SignedIn)) {
    await signOutOfAccount((body as SignedIn).csrfToken);
    return "This account does not hold the admin role.";
  }
  return null;
}

/** On load: a browser already signed in as an administrator goes straight to the console. */
export async function restoreSession(): Promise<void> {
  if (adminToken.value) return;
  try {
    const res = await fetch(`${ACCOUNT}/me`);
    if (res.ok) useAccount(await res.json() as SignedIn);
  } catch {
    // Not signed in, or the server is unreachable: the sign-in page says what to do.
  }
}

async function signOutOfAccount(csrfToken: string): Promise<void> {
  await fetch(`${ACCOUNT}/sign-out`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-csrf-token": csrfToken },
    body: "{}",
  }).catch(() => {});
}

export function signOut(reason: string | null = null): void {
  const session = adminSession.value;
  if (session) void signOutOfAccount(session.csrfToken);
  sessionStorage.removeItem(STORAGE_KEY);
  signOutReason.value = reason;
  adminToken.value = null;
  adminSession.value = null;
}
