/**
 * The app's state in signals: who is signed in (undefined while GET /me runs at start, null when
 * nobody is), the session's CSRF token, and the one API client every page uses. The file
 * browser's state (folders, selection, uploads) joins it in the next issue.
 */
import { signal } from "@preact/signals";
import { AccountApi, type AccountUser, type SignedIn } from "./api.ts";

/** The signed-in user; undefined until the first GET /me has answered. */
export const me = signal<AccountUser | null | undefined>(undefined);
/** Why the session ended, shown once on the sign-in page. */
export const signedOutReason = signal<string | null>(null);

const csrfToken = signal<string | null>(null);

export const api = new AccountApi({
  csrf: () => csrfToken.value,
  lost: () => {
    if (me.value) signedOutReason.value = "Your session ended. Sign in again.";
    me.value = null;
    csrfToken.value = null;
  },
});

/** A sign-in, invitation or GET /me answered with a session. */
export function signedIn(answer: SignedIn): void {
  csrfToken.value = answer.csrfToken;
  signedOutReason.value = null;
  me.value = answer.user;
}

/** At start: is there a session already (the cookie, after a reload or single sign-on)? */
export async function loadSession(): Promise<void> {
  try {
    signedIn(await api.me());
  } catch {
    me.value = null;
  }
}

export async function signOut(): Promise<void> {
  try {
    await api.signOut();
  } finally {
    me.value = null;
    csrfToken.value = null;
  }
}
