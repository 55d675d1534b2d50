/**
 * What the app says for the error codes a person meets while signing in (docs/errors.md has
 * every code): the single sign-on callback sends them as /signin?error=<code>.
 */
const SIGN_IN_MESSAGES: Record<string, string> = {
  OIDC_001: "That single sign-on is not set up (any more). Use another way to sign in.",
  OIDC_003: "That sign-in took too long or was already used. Please try again.",
  OIDC_004: "The identity provider could not be reached. Please try again later.",
  OIDC_005: "The identity provider's answer could not be verified, so you were not signed in.",
  OIDC_006: "The identity provider did not tell us your e-mail address or name.",
  OIDC_007: "Addresses of your e-mail domain may not sign in here.",
  OIDC_008: "Your e-mail address belongs to an account elsewhere on this server. Ask an " +
    "administrator.",
  OIDC_009: "Your organization signs in with single sign-on only: use its button below.",
  OIDC_010: "Single sign-on is misconfigured on this server. Ask an administrator.",
};

export function signInMessage(code: string): string {
  return SIGN_IN_MESSAGES[code] ?? `Signing in failed (${code}). Please try again.`;
}
