/**
 * The app's state in signals: who is signed in (undefined while GET /me runs at start, null when
 * nobody is), the session's CSRF token, and the one API client every page uses. The file
 * browser's own state (the listing, the selection) lives in drive/listing.ts per view; the
 * language is here because every page speaks it.
 */
import { signal } from "@preact/signals";
import { AccountApi, type AccountUser, type SignedIn } from "./api.ts";
import { DriveApi } from "./drive/api.ts";
import { type Locale, type MessageKey, preferredLocale, translate } from "./messages.ts";

/** The signed-in user; undefined until the first GET /me has answered. */
export const me = signal<AccountUser | null | undefined>(undefined);
/** Why the session ended, shown once on the sign-in page. */
export const signedOutReason = signal<string | null>(null);

const csrfToken = signal<string | null>(null);

const session = {
  csrf: () => csrfToken.value,
  lost: () => {
    if (me.value) signedOutReason.value = "Your session ended. Sign in again.";
    me.value = null;
    csrfToken.value = null;
  },
};
export const api = new AccountApi(session);
/** The drive API through the same session. */
export const drive = new DriveApi(session);

const LOCALE_KEY = "drive.locale";

function initialLocale(): Locale {
  const saved = localStorage.getItem(LOCALE_KEY);
  if (saved === "en" || saved === "ko") return saved;
  return preferredLocale(navigator.languages ?? [navigator.language]);
}

/** The app's language: the one chosen here before, else the browser's. */
export const locale = signal<Locale>(initialLocale());

export function setLocale(l: Locale): void {
  localStorage.setItem(LOCALE_KEY, l);
  locale.value = l;
}

/** A message in the current language (reading it subscribes the component to the language). */
export const t = (key: MessageKey, ...args: (string | number)[]) =>
  translate(locale.value, key, ...args);

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
