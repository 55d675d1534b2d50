/**
 * Sign-in: as an administrator by name (account and password, through the account API: the
 * account must hold the admin role), or with the admin token, which is checked against the API
 * before it is kept for the session.
 */
import { useSignal } from "@preact/signals";
import { api, ApiError } from "../api.ts";
import { Form, SubmitRow } from "../../shared/fields.tsx";
import { useForm } from "../../shared/form.ts";
import {
  CurrentPasswordField,
  signInChecks,
  SignInFields,
  useSignInForm,
} from "../../shared/sign_in_fields.tsx";
import { signIn, signInByName, signOutReason } from "../session.ts";

function ByNameForm() {
  const signIn = useSignInForm();
  const { form, login, password } = signIn;
  return (
    <Form
      form={form}
      label="Sign in with your account"
      checks={() => signInChecks(signIn)}
      send={async () => {
        const problem = await signInByName(login.value.trim(), password.value);
        if (problem) throw new ApiError(401, "AUTH_007", problem, "password");
      }}
    >
      <SignInFields {...signIn} />
      <SubmitRow form={form} busyLabel="Signing in…">Sign in with password</SubmitRow>
    </Form>
  );
}

export function SignInPage() {
  const form = useForm(["token"]);
  const token = useSignal("");
  return (
    <main id="main" class="signin">
      <h1>Drive admin</h1>
      {signOutReason.value && <p class="notice" role="status">{signOutReason.value}</p>}
      <p>Sign in with the admin token (DRIVE_ADMIN_TOKEN, or the one printed on first start).</p>
      <Form
        form={form}
        label="Sign in"
        checks={() => ({ token: !token.value.trim() && "Enter the admin token." })}
        send={async () => {
          const value = token.value.trim();
          try {
            await api.verifyToken(value);
          } catch (err) {
            if (err instanceof ApiError && err.status === 401) {
              throw new ApiError(401, err.code, "This admin token is not valid.", "token");
            }
            throw err;
          }
          signIn(value);
        }}
      >
        <CurrentPasswordField form={form} name="token" label="Admin token" value={token} />
        <SubmitRow form={form} busyLabel="Checking…">Sign in</SubmitRow>
      </Form>
      <p>Or, as an administrator by name, with your own account (it needs the admin role).</p>
      <ByNameForm />
    </main>
  );
}
