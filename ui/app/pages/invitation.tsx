/**
 * An invitation or reset link (/#/invitation/<token>, /#/reset/<token>): says whose account it
 * is, then sets the password, which also signs in. The token stays in the fragment, so it never
 * reaches a server log; only the POSTs carry it.
 */
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { type Invitation } from "../api.ts";
import { api, signedIn } from "../store.ts";
import { navigate } from "../router.ts";
import { Form, SubmitRow, TextField } from "../../shared/fields.tsx";
import { useForm } from "../../shared/form.ts";
import { formatDate, messageOf } from "../../shared/format.ts";
import { passwordChecks } from "./password_rules.ts";

export function InvitationPage({ token, kind }: { token: string; kind: "invitation" | "reset" }) {
  const invitation = useSignal<Invitation | null>(null);
  const problem = useSignal<string | null>(null);
  const form = useForm(["password", "repeat"]);
  const password = useSignal("");
  const repeat = useSignal("");
  useEffect(() => {
    api.lookupInvitation(token).then((i) => (invitation.value = i)).catch((err) => {
      problem.value = messageOf(err);
    });
  }, [token]);
  const title = kind === "reset" ? "Reset your password" : "Welcome to Drive";
  if (problem.value) {
    return (
      <div class="signin">
        <h1>{title}</h1>
        <p class="notice error-notice" role="alert">
          This link does not work: {problem.value} Ask an administrator for a new one.
        </p>
        <p>
          <a href="/signin">Go to sign-in</a>
        </p>
      </div>
    );
  }
  const inv = invitation.value;
  if (!inv) return <p class="signin" role="status">Checking the link…</p>;
  return (
    <div class="signin">
      <h1>{title}</h1>
      <p>
        {inv.kind === "reset" ? "Choose a new password" : "Choose a password"} for{" "}
        <strong>{inv.name}</strong> (account <code>{inv.accountId}</code>). The link works until
        {" "}
        {formatDate(inv.expiresAt)}, once.
      </p>
      <Form
        form={form}
        label="Set your password"
        checks={() => passwordChecks(password.value, repeat.value)}
        send={async () => {
          signedIn(await api.acceptInvitation(token, password.value));
          password.value = repeat.value = "";
          // Drops the token from the address bar and the history entry.
          navigate("/account", true);
        }}
      >
        <TextField
          form={form}
          name="password"
          label="New password"
          type="password"
          autoComplete="new-password"
          hint="At least 12 characters; common passwords are refused."
          required
          value={password}
        />
        <TextField
          form={form}
          name="repeat"
          label="Repeat the password"
          type="password"
          autoComplete="new-password"
          required
          value={repeat}
        />
        <SubmitRow form={form} busyLabel="Saving…">Set password and sign in</SubmitRow>
      </Form>
    </div>
  );
}
