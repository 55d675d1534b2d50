/** "My account": who I am, my password, where I am signed in, and my app passwords. */
import { useSignal } from "@preact/signals";
import { api, me, signedIn } from "../store.ts";
import { Form, SubmitRow, TextField } from "../../shared/fields.tsx";
import { useForm } from "../../shared/form.ts";
import { passwordChecks } from "./password_rules.ts";
import { SessionsPanel } from "../components/sessions.tsx";
import { AppPasswordsPanel } from "../components/app_passwords.tsx";

function ChangePassword() {
  const form = useForm(["currentPassword", "newPassword", "repeat"]);
  const current = useSignal("");
  const next = useSignal("");
  const repeat = useSignal("");
  return (
    <section class="panel" aria-labelledby="password-title">
      <h2 id="password-title">Password</h2>
      <p class="sub">
        Changing it signs you out everywhere else. App passwords keep working.
      </p>
      <Form
        form={form}
        label="Change your password"
        checks={() => ({
          currentPassword: !current.value && "Enter your current password.",
          ...passwordChecks(next.value, repeat.value, "newPassword"),
        })}
        send={async () => {
          // The server rotates this browser's session too: keep its new CSRF token.
          signedIn(await api.changePassword(current.value, next.value));
          current.value = next.value = repeat.value = "";
          form.notice.value = "Password changed.";
        }}
      >
        <TextField
          form={form}
          name="currentPassword"
          label="Current password"
          type="password"
          autoComplete="current-password"
          value={current}
        />
        <TextField
          form={form}
          name="newPassword"
          label="New password"
          type="password"
          autoComplete="new-password"
          hint="At least 12 characters; common passwords are refused."
          value={next}
        />
        <TextField
          form={form}
          name="repeat"
          label="Repeat the new password"
          type="password"
          autoComplete="new-password"
          value={repeat}
        />
        <SubmitRow form={form} busyLabel="Changing…">Change password</SubmitRow>
        <p class="status" role="status">{form.notice.value}</p>
      </Form>
    </section>
  );
}

export function AccountPage() {
  const user = me.value!;
  return (
    <div class="stack">
      <h1>My account</h1>
      <section class="panel" aria-labelledby="profile-title">
        <h2 id="profile-title">Profile</h2>
        <dl class="facts">
          <dt>Name</dt>
          <dd>{user.name}</dd>
          <dt>Account id</dt>
          <dd>{user.accountId}</dd>
          <dt>E-mail</dt>
          <dd>{user.email}</dd>
          {user.roles.includes("admin") && (
            <>
              <dt>Role</dt>
              <dd>
                Administrator (<a href="/admin">admin console</a>)
              </dd>
            </>
          )}
        </dl>
      </section>
      <ChangePassword />
      <SessionsPanel />
      <AppPasswordsPanel />
    </div>
  );
}
