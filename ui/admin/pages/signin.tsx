/** Sign-in: the admin token is checked against the API before it is kept for the session. */
import { useSignal } from "@preact/signals";
import { api, ApiError } from "../api.ts";
import { Form, SubmitRow, TextField } from "../../shared/fields.tsx";
import { useForm } from "../../shared/form.ts";
import { signIn, signOutReason } from "../session.ts";

export function SignInPage() {
  const form = useForm(["token"]);
  const token = useSignal("");
  return (
    <main id="main" class="signin">
      <h1>Drive admin</h1>
      <p>Sign in with the admin token (DRIVE_ADMIN_TOKEN, or the one printed on first start).</p>
      {signOutReason.value && <p class="notice" role="status">{signOutReason.value}</p>}
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
    </main>
  );
}
