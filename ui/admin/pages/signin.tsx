/**
 * Sign-in: as an administrator by name (account and password, through the account API: the
 * account must hold the admin role), or with the admin token, which is checked against the API
 * before it is kept for the session.
 */
import { useSignal } from "@preact/signals";
import { api, ApiError } from "../api.ts";
import { Form, SubmitRow, TextField } from "../../shared/fields.tsx";
import { useForm } from "../../shared/form.ts";
import { signIn, signInByName, signOutReason } from "../session.ts";

function ByNameForm() {
  const form = useForm(["login", "password"]);
  const login = useSignal("");
  const password = useSignal("");
  return (
    <Form
      form={form}
      label="Sign in with your account"
      checks={() => ({
        login: !login.value.trim() && "Enter your account id or e-mail.",
        password: !password.value && "Enter your password.",
      })}
      send={async () => {
        const problem = await signInByName(login.value.trim(), password.value);
        if (problem) throw new ApiError(401, "AUTH_007", problem, "password");
      }}
    >
      <TextField
        form={form}
        name="login"
        label="Account id or e-mail"
        autoComplete="username"
        required
        value={login}
      />
      <TextField
        form={form}
        name="password"
        label="Password"
        type="password"
        autoComplete="current-password"
        required
        value={password}
      />
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
        <TextField
          form={form}
          name="token"
          label="Admin token"
          type="password"
          autoComplete="current-password"
          required
          value={token}
        />
        <SubmitRow form={form} busyLabel="Checking…">Sign in</SubmitRow>
      </Form>
      <p>Or, as an administrator by name, with your own account (it needs the admin role).</p>
      <ByNameForm />
    </main>
  );
}
