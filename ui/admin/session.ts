/**
 * The signed-in session: the admin token lives in sessionStorage (so it is gone when the tab
 * closes) and in a signal the whole console reacts to.
 */
import { signal } from "@preact/signals";

const STORAGE_KEY = "drive.adminToken";

function stored(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

export const adminToken = signal<string | null>(stored());

/** Why the last session ended, shown on the sign-in page. */
export const signOutReason = signal<string | null>(null);

export function signIn(token: string): void {
  sessionStorage.setItem(STORAGE_KEY, token);
  signOutReason.value = null;
  adminToken.value = token;
}

export function signOut(reason: string | null = null): void {
  sessionStorage.removeItem(STORAGE_KEY);
  signOutReason.value = reason;
  adminToken.value = null;
}
