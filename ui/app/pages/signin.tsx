/**
 * Sign-in: the password form (account id or e-mail) and one "Sign in with <provider>" button per
 * tenant with single sign-on. A failed single sign-on comes back here with ?error=<code>.
 */
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { ApiError, type SsoProvider, ssoProviders } from "../api.ts";
import { api, signedIn, signedOutReason } from "../store.ts";
import { navigate } from "../router.ts";
import { signInMessage } from "../messages.ts";
import { Form, SubmitRow } from "../../shared/fields.tsx";
import { signInChecks, SignInFields, useSignInForm } from "../../shared/sign_in_fields.tsx";

/** Only a path of this app may be returned to (never another site). */
const safePath = (p: string | null) => p && p.startsWith("/") && !p.startsWith("//") ? p : "/";

export function SignInPage({ error, returnTo }: { error: string | null; returnTo: string | null }) {
  const signIn = useSignInForm();
  const { form, login, password } = signIn;
  const providers = useSignal<SsoProvider[]>([]);
  useEffect(() => {
    ssoProviders().then((p) => (providers.value = p));
  }, []);
  const target = safePath(returnTo);
  return (
    <div class="signin app-signin">
      <h1>Sign in to Drive</h1>
      {error && <p class="notice error-notice" role="alert">{signInMessage(error)}</p>}
      {signedOutReason.value && <p class="notice" role="status">{signedOutReason.value}</p>}
      <Form
        form={form}
        label="Sign in with a password"
        checks={() => signInChecks(signIn)}
        send={async () => {
          try {
            signedIn(await api.signIn(login.value.trim(), password.value));
          } catch (err) {
            if (err instanceof ApiError && err.status === 429) {
              const wait = err.retryAfter ? ` Wait ${err.retryAfter} seconds.` : "";
              throw new ApiError(429, err.code, `Too many tries.${wait}`);
            }
            if (err instanceof ApiError && err.code.startsWith("OIDC_")) {
              throw new ApiError(err.status, err.code, signInMessage(err.code));
            }
            throw err;
          } finally {
            password.value = "";
          }
          navigate(target, true);
        }}
      >
        <SignInFields {...signIn} />
        <SubmitRow form={form} busyLabel="Signing in…">Sign in</SubmitRow>
      </Form>
      {providers.value.length > 0 && (
        <section class="sso" aria-label="Single sign-on">
          <p class="sso-or">or</p>
          {providers.value.map((p) => (
            <a
              key={p.tenantId}
              class="button sso-button"
              href={`${p.startUrl}?returnTo=${encodeURIComponent(target)}`}
            >
              Sign in with {p.label}
            </a>
          ))}
        </section>
      )}
      <p class="hint">
        New here? Open the invitation link an administrator gave you. Forgot your password? Ask an
        administrator for a reset link.
      </p>
    </div>
  );
}
