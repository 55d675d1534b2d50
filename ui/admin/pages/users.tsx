/** Users: create them in a tenant, edit name, e-mail and quota, see storage used per user. */
import { type Signal, useSignal } from "@preact/signals";
import { api, type Tenant, type User } from "../api.ts";
import { ListState, UsageBar, useLoaded } from "../components/data.tsx";
import { Form, SelectField, SubmitButton, TextField } from "../../shared/fields.tsx";
import { errorsOf, type FormState, useForm } from "../../shared/form.ts";
import { parseQuota, QUOTA_UNITS, quotaParts } from "../quota.ts";
import { validName } from "./tenants.tsx";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function validEmail(email: string): string | null {
  const t = email.trim();
  if (!t) return "Enter an e-mail address.";
  if (!EMAIL.test(t) || t.length > 254) {
    return "Enter a valid e-mail address, like ana@example.com.";
  }
  return null;
}

function validAccountId(id: string): string | null {
  const t = id.trim();
  if (!t) return "Enter an account id.";
  if (t.length > 254) return "The account id must be at most 254 characters.";
  if (/[\s/\\]/.test(t)) return "The account id must not contain spaces or slashes.";
  return null;
}

function QuotaFields(
  { form, amount, unit, optional }: {
    form: FormState;
    amount: Signal<string>;
    unit: Signal<string>;
    optional?: boolean;
  },
) {
  return (
    <div class="field-row">
      <TextField
        form={form}
        name="quotaBytes"
        label={optional ? "Quota (optional)" : "Quota"}
        hint={optional ? "Leave empty for the server's default quota." : undefined}
        inputMode="text"
        value={amount}
      />
      <SelectField
        form={form}
        name="quotaUnit"
        label="Unit"
        value={unit}
        options={QUOTA_UNITS.map((u) => ({ value: u.value, label: u.label }))}
      />
    </div>
  );
}

function CreateUserForm({ tenants, onCreated }: { tenants: Tenant[]; onCreated: () => void }) {
  const form = useForm(["tenantId", "accountId", "email", "name", "quotaBytes"]);
  const tenantId = useSignal(tenants.length === 1 ? String(tenants[0].id) : "");
  const accountId = useSignal("");
  const email = useSignal("");
  const name = useSignal("");
  const amount = useSignal("");
  const unit = useSignal("GiB");
  const created = useSignal<string | null>(null);

  const quota = () => amount.value.trim() === "" ? undefined : parseQuota(amount.value, unit.value);
  return (
    <Form
      form={form}
      label="Create a user"
      onSubmit={(e) =>
        form.submit(e, () => {
          const q = quota();
          return errorsOf({
            tenantId: !tenantId.value && "Choose the user's tenant.",
            accountId: validAccountId(accountId.value),
            email: validEmail(email.value),
            name: validName(name.value, "display name"),
            quotaBytes: typeof q === "string" && q,
          });
        }, async () => {
          const q = quota();
          const user = await api.createUser({
            tenantId: Number(tenantId.value),
            accountId: accountId.value.trim(),
            email: email.value.trim(),
            name: name.value.trim(),
            ...(typeof q === "number" ? { quotaBytes: q } : {}),
          });
          created.value = `User “${user.accountId}” created (seq ${user.userSeq}).`;
          accountId.value =
            email.value =
            name.value =
            amount.value =
              "";
          onCreated();
        })}
    >
      <h2>Create a user</h2>
      <SelectField
        form={form}
        name="tenantId"
        label="Tenant"
        placeholder="Choose a tenant"
        value={tenantId}
        options={tenants.map((t) => ({ value: String(t.id), label: `${t.name} (id ${t.id})` }))}
      />
      <TextField form={form} name="accountId" label="Account id" required value={accountId} />
      <TextField form={form} name="email" label="E-mail" type="email" required value={email} />
      <TextField form={form} name="name" label="Display name" required value={name} />
      <QuotaFields form={form} amount={amount} unit={unit} optional />
      <div class="actions">
        <SubmitButton form={form} busyLabel="Creating…">Create user</SubmitButton>
      </div>
      <p class="status" role="status">{created.value}</p>
    </Form>
  );
}

function EditUserForm({ user, onSaved }: { user: User; onSaved: () => void }) {
  const form = useForm(["email", "name", "quotaBytes"]);
  const email = useSignal(user.email);
  const name = useSignal(user.name);
  const parts = quotaParts(user.quotaBytes);
  const amount = useSignal(parts.amount);
  const unit = useSignal(parts.unit);
  const saved = useSignal<string | null>(null);
  return (
    <Form
      form={form}
      label={`Edit user ${user.accountId}`}
      onSubmit={(e) =>
        form.submit(e, () => {
          const q = parseQuota(amount.value, unit.value);
          return errorsOf({
            email: validEmail(email.value),
            name: validName(name.value, "display name"),
            quotaBytes: typeof q === "string" && q,
          });
        }, async () => {
          await api.updateUser(user.userSeq, {
            email: email.value.trim(),
            name: name.value.trim(),
            quotaBytes: parseQuota(amount.value, unit.value) as number,
          });
          saved.value = `Saved at ${new Date().toLocaleTimeString()}.`;
          onSaved();
        })}
    >
      <h2>User “{user.accountId}”</h2>
      <TextField form={form} name="name" label="Display name" required value={name} />
      <TextField form={form} name="email" label="E-mail" type="email" required value={email} />
      <QuotaFields form={form} amount={amount} unit={unit} />
      <div class="actions">
        <SubmitButton form={form} busyLabel="Saving…">Save user</SubmitButton>
      </div>
      <p class="status" role="status">{saved.value}</p>
    </Form>
  );
}

export function UsersPage() {
  const tenants = useLoaded(api.listTenants);
  const filter = useSignal("");
  const users = useLoaded(() => api.listUsers(Number(filter.value) || undefined), [filter.value]);
  const editing = useSignal<number | null>(null);
  const tenantName = (id: number) => tenants.data.value?.find((t) => t.id === id)?.name ?? id;
  const current = users.data.value?.find((u) => u.userSeq === editing.value) ?? null;
  return (
    <>
      <h1>Users</h1>
      <div class="columns">
        <section class="panel" aria-labelledby="user-list-title">
          <div class="panel-head">
            <h2 id="user-list-title">Storage per user</h2>
            <div class="field inline">
              <label for="user-filter">Tenant</label>
              <select
                id="user-filter"
                value={filter.value}
                onChange={(e) => (filter.value = e.currentTarget.value)}
              >
                <option value="">All tenants</option>
                {(tenants.data.value ?? []).map((t) => (
                  <option key={t.id} value={String(t.id)}>{t.name}</option>
                ))}
              </select>
            </div>
          </div>
          <ListState loaded={users} empty="No users yet.">
            {(items) => (
              <table>
                <thead>
                  <tr>
                    <th scope="col">Account</th>
                    <th scope="col">Tenant</th>
                    <th scope="col">Storage used</th>
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {items.map((u) => (
                    <tr
                      key={u.userSeq}
                      class={u.userSeq === editing.value ? "selected" : undefined}
                    >
                      <td data-label="Account">
                        <strong>{u.accountId}</strong>
                        <span class="sub">{u.name} · {u.email} · seq {u.userSeq}</span>
                      </td>
                      <td data-label="Tenant">{tenantName(u.tenantId)}</td>
                      <td data-label="Storage used">
                        <UsageBar
                          used={u.usedBytes}
                          quota={u.quotaBytes}
                          label={`Storage used by ${u.accountId}`}
                        />
                      </td>
                      <td>
                        <button
                          type="button"
                          aria-label={`Edit user ${u.accountId}`}
                          aria-pressed={u.userSeq === editing.value}
                          onClick={() => (editing.value = u.userSeq)}
                        >
                          Edit
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </ListState>
        </section>
        <div class="stack">
          {current && (
            <section class="panel">
              <EditUserForm key={current.userSeq} user={current} onSaved={users.reload} />
            </section>
          )}
          <section class="panel">
            {tenants.data.value
              ? tenants.data.value.length
                ? <CreateUserForm tenants={tenants.data.value} onCreated={users.reload} />
                : <p class="muted">Create a tenant first: every user belongs to one.</p>
              : <p class="muted" role="status">Loading…</p>}
          </section>
        </div>
      </div>
    </>
  );
}
