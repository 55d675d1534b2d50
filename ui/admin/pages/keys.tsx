/** API keys: issue (the key is shown once), list per user, revoke. */
import { useSignal } from "@preact/signals";
import { formatDate } from "../../shared/format.ts";
import { api, type ApiKey, type User } from "../api.ts";
import { ConfirmButton } from "../components/confirm.tsx";
import { ListState, useLoaded } from "../components/data.tsx";
import { Form, SelectField, SubmitButton, TextField, Toggle } from "../../shared/fields.tsx";
import { SecretReveal } from "../components/secret.tsx";
import { errorsOf, useForm } from "../../shared/form.ts";

export function userOptions(users: User[]) {
  return users.map((u) => ({
    value: String(u.userSeq),
    label: `${u.accountId} (seq ${u.userSeq})`,
  }));
}

function IssueKeyForm(
  { users, onIssued }: { users: User[]; onIssued: (key: ApiKey & { apiKey: string }) => void },
) {
  const form = useForm(["userSeq", "scopes", "label"]);
  const userSeq = useSignal(users.length === 1 ? String(users[0].userSeq) : "");
  const write = useSignal(true);
  const label = useSignal("");
  const readAlways = useSignal(true);
  return (
    <Form
      form={form}
      label="Issue an API key"
      onSubmit={(e) =>
        form.submit(
          e,
          () =>
            errorsOf({
              userSeq: !userSeq.value && "Choose the user the key acts for.",
              label: label.value.length > 200 && "The label must be at most 200 characters.",
            }),
          async () => {
            const issued = await api.issueKey({
              userSeq: Number(userSeq.value),
              scopes: write.value ? ["api:read", "api:write"] : ["api:read"],
              label: label.value.trim() || null,
            });
            label.value = "";
            onIssued(issued);
          },
        )}
    >
      <h2>Issue an API key</h2>
      <SelectField
        form={form}
        name="userSeq"
        label="User"
        placeholder="Choose a user"
        value={userSeq}
        options={userOptions(users)}
      />
      <TextField
        form={form}
        name="label"
        label="Label (optional)"
        hint="What the key is for, e.g. “CI backup job”."
        value={label}
      />
      <fieldset>
        <legend>Scopes</legend>
        <Toggle id={`${form.id}-read`} label="api:read (always)" checked={readAlways} disabled />
        <Toggle
          id={`${form.id}-write`}
          label="api:write"
          hint="Create, change and delete files and shares."
          checked={write}
        />
      </fieldset>
      <div class="actions">
        <SubmitButton form={form} busyLabel="Issuing…">Issue key</SubmitButton>
      </div>
    </Form>
  );
}

export function KeysPage() {
  const users = useLoaded(() => api.listUsers());
  const filter = useSignal("");
  const keys = useLoaded(() => api.listKeys(Number(filter.value) || undefined), [filter.value]);
  const issued = useSignal<(ApiKey & { apiKey: string }) | null>(null);
  const accountOf = (seq: number) =>
    users.data.value?.find((u) => u.userSeq === seq)?.accountId ?? `seq ${seq}`;
  return (
    <>
      <h1>API keys</h1>
      <div class="columns">
        <section class="panel" aria-labelledby="key-list-title">
          <div class="panel-head">
            <h2 id="key-list-title">Keys</h2>
            <div class="field inline">
              <label for="key-filter">User</label>
              <select
                id="key-filter"
                value={filter.value}
                onChange={(e) => (filter.value = e.currentTarget.value)}
              >
                <option value="">All users</option>
                {userOptions(users.data.value ?? []).map((o) => (
                  <option key={o.value} value={o.value}>{o.label}</option>
                ))}
              </select>
            </div>
          </div>
          <ListState loaded={keys} empty="No API keys.">
            {(items) => (
              <table>
                <thead>
                  <tr>
                    <th scope="col">Key id</th>
                    <th scope="col">User</th>
                    <th scope="col">Scopes</th>
                    <th scope="col">Status</th>
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {items.map((k) => (
                    <tr key={k.keyId} class={k.revokedAt ? "revoked" : undefined}>
                      <td data-label="Key id">
                        <code>{k.keyId}</code>
                        {k.label && <span class="sub">{k.label}</span>}
                      </td>
                      <td data-label="User">{accountOf(k.userSeq)}</td>
                      <td data-label="Scopes">{k.scopes.join(", ")}</td>
                      <td data-label="Status">
                        {k.revokedAt
                          ? <span class="badge bad">revoked {formatDate(k.revokedAt)}</span>
                          : <span class="badge good">active</span>}
                        <span class="sub">created {formatDate(k.createdAt)}</span>
                      </td>
                      <td>
                        {!k.revokedAt && (
                          <ConfirmButton
                            label="Revoke"
                            accessibleLabel={`Revoke key ${k.keyId}`}
                            question={`Revoke key ${k.keyId}? Clients using it stop working.`}
                            confirmLabel="Revoke key"
                            onConfirm={async () => {
                              await api.revokeKey(k.keyId);
                              await keys.reload();
                            }}
                          />
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </ListState>
        </section>
        <div class="stack">
          {issued.value && (
            <section class="panel">
              <SecretReveal
                title={`New API key for ${accountOf(issued.value.userSeq)}`}
                label="API key"
                secret={issued.value.apiKey}
                onDone={() => (issued.value = null)}
              />
            </section>
          )}
          <section class="panel">
            {users.data.value
              ? users.data.value.length
                ? (
                  <IssueKeyForm
                    users={users.data.value}
                    onIssued={(k) => {
                      issued.value = k;
                      keys.reload();
                    }}
                  />
                )
                : <p class="muted">Create a user first: a key acts for one user.</p>
              : <p class="muted" role="status">Loading…</p>}
          </section>
        </div>
      </div>
    </>
  );
}
