/**
 * Users: create them in a tenant (with an invitation link at once, if wanted), edit name, e-mail
 * and quota, see storage used per user; make invitation and password-reset links (shown once,
 * with a copy button) and grant or remove the admin role.
 */
import { type Signal, useSignal } from "@preact/signals";
import { api, type Tenant, type User } from "../api.ts";
import { Items, UsageBar, useAction, useLoaded } from "../components/data.tsx";
import { type NewSecret, SecretSide } from "../components/secret.tsx";
import { ColumnsPage, FilterSelect, Panel } from "../components/panel.tsx";
import { PagedTable, usePagedList } from "../components/paged_table.tsx";
import { DisabledBadge, LifecycleActions } from "../components/lifecycle.tsx";
import { Form, SelectField, SubmitRow, TextField, Toggle } from "../../shared/fields.tsx";
import { type FormState, useForm, validName } from "../../shared/form.ts";
import { parseQuota, QUOTA_UNITS, quotaParts } from "../quota.ts";

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

/** The checks the create and the edit form share; `quota` is what parseQuota made of it. */
function profileErrors(email: string, name: string, quota: number | string | undefined) {
  return {
    email: validEmail(email),
    name: validName(name, "display name"),
    quotaBytes: typeof quota === "string" && quota,
  };
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

/** Makes a one-time link for `user` and shows it once. */
async function showLink(user: User, kind: "invitation" | "reset", shown: Signal<NewSecret | null>) {
  const made = await api.createInvitation(user.userSeq, kind);
  shown.value = {
    title:
      `${kind === "invitation" ? "Invitation" : "Password-reset"} link for ${user.accountId} ` +
      `(once, until ${new Date(made.expiresAt).toLocaleString()})`,
    secret: made.url,
  };
}

/** A row's sign-in controls: invitation and reset links, the admin role. */
function AccountActions(
  { user, shown, reload }: { user: User; shown: Signal<NewSecret | null>; reload: () => void },
) {
  const action = useAction();
  const admin = user.roles.includes("admin");
  const button = (label: string, accessible: string, run: () => Promise<unknown>) => (
    <button
      type="button"
      aria-label={accessible}
      disabled={action.busy.value}
      onClick={() => action.run(async () => void await run())}
    >
      {label}
    </button>
  );
  return (
    <span class="row-actions">
      {button(
        "Invitation link",
        `Invitation link for ${user.accountId}`,
        () => showLink(user, "invitation", shown),
      )}
      {button("Reset link", `Password-reset link for ${user.accountId}`, () =>
        showLink(user, "reset", shown))}
      {button(
        admin ? "Remove admin" : "Make admin",
        `${admin ? "Remove the admin role of" : "Make admin"} ${user.accountId}`,
        async () => {
          await api.setAdminRole(user.userSeq, !admin);
          reload();
        },
      )}
      {action.error.value && <span class="field-error" role="alert">{action.error.value}</span>}
    </span>
  );
}

function CreateUserForm(
  { tenants, onCreated, shown }: {
    tenants: Tenant[];
    onCreated: () => void;
    shown: Signal<NewSecret | null>;
  },
) {
  const form = useForm(["tenantId", "accountId", "email", "name", "quotaBytes"]);
  const withInvitation = useSignal(true);
  const tenantId = useSignal(tenants.length === 1 ? String(tenants[0].id) : "");
  const accountId = useSignal("");
  const email = useSignal("");
  const name = useSignal("");
  const amount = useSignal("");
  const unit = useSignal("GiB");

  const quota = () => amount.value.trim() === "" ? undefined : parseQuota(amount.value, unit.value);
  const checks = () => ({
    tenantId: !tenantId.value && "Choose the user's tenant.",
    accountId: validAccountId(accountId.value),
    ...profileErrors(email.value, name.value, quota()),
  });
  return (
    <Form
      form={form}
      label="Create a user"
      titled
      checks={checks}
      send={async () => {
        const q = quota();
        const user = await api.createUser({
          tenantId: Number(tenantId.value),
          accountId: accountId.value.trim(),
          email: email.value.trim(),
          name: name.value.trim(),
          ...(typeof q === "number" ? { quotaBytes: q } : {}),
        });
        form.notice.value = `User “${user.accountId}” created (seq ${user.userSeq}).`;
        if (withInvitation.value) await showLink(user, "invitation", shown);
        accountId.value =
          email.value =
          name.value =
          amount.value =
            "";
        onCreated();
      }}
    >
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
      <Toggle
        id="user-invitation"
        label="Make an invitation link at once"
        checked={withInvitation}
        hint="The user opens it to set a password; it is shown once, works once, for 7 days."
      />
      <SubmitRow form={form} busyLabel="Creating…">Create user</SubmitRow>
      <p class="status" role="status">{form.notice.value}</p>
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
  const checks = () => profileErrors(email.value, name.value, parseQuota(amount.value, unit.value));
  return (
    <Form
      form={form}
      label={`Edit user ${user.accountId}`}
      checks={checks}
      send={async () => {
        await api.updateUser(user.userSeq, {
          email: email.value.trim(),
          name: name.value.trim(),
          quotaBytes: parseQuota(amount.value, unit.value) as number,
        });
        form.notice.value = `Saved at ${new Date().toLocaleTimeString()}.`;
        onSaved();
      }}
    >
      <h2>User “{user.accountId}”</h2>
      <p class="hint">
        WebDAV (docs/webdav.md): <code>{davUrl(user.accountId)}</code>, signed in with{" "}
        {user.accountId} or the e-mail and one of the user's API keys
      </p>
      <TextField form={form} name="name" label="Display name" required value={name} />
      <TextField form={form} name="email" label="E-mail" type="email" required value={email} />
      <QuotaFields form={form} amount={amount} unit={unit} />
      <SubmitRow form={form} busyLabel="Saving…">Save user</SubmitRow>
      <p class="status" role="status">{form.notice.value}</p>
    </Form>
  );
}

/** The user's own drive over WebDAV, on the server serving this console. */
const davUrl = (accountId: string) =>
  `${location.origin}/dav/files/${encodeURIComponent(accountId)}/`;

export function UsersPage() {
  const tenants = useLoaded(api.listTenants);
  const filter = useSignal("");
  const users = usePagedList(
    (page) => api.listUsersPage({ ...page, tenantId: Number(filter.value) || undefined }),
    [filter.value],
  );
  const editing = useSignal<number | null>(null);
  const shown = useSignal<NewSecret | null>(null);
  const tenantName = (id: number) => tenants.data.value?.find((t) => t.id === id)?.name ?? id;
  const current = users.data.value?.find((u) => u.userSeq === editing.value) ?? null;
  return (
    <ColumnsPage
      title="Users"
      side={
        <>
          {current && (
            <section class="panel">
              <EditUserForm key={current.userSeq} user={current} onSaved={users.reload} />
            </section>
          )}
          <SecretSide shown={shown} label="One-time link" storage="hashed">
            <Items
              items={tenants.data.value}
              empty="Create a tenant first: every user belongs to one."
            >
              {(items) => <CreateUserForm tenants={items} onCreated={users.reload} shown={shown} />}
            </Items>
          </SecretSide>
        </>
      }
    >
      <Panel
        id="user-list-title"
        title="Storage per user"
        tools={
          <FilterSelect
            id="user-filter"
            label="Tenant"
            all="All tenants"
            value={filter}
            options={(tenants.data.value ?? []).map((t) => ({
              value: String(t.id),
              label: t.name,
            }))}
          />
        }
      >
        <PagedTable
          list={users}
          name="users"
          searchHint="Start of an account id, e-mail, name or a word of the name."
          empty="No users yet."
          columns={[
            {
              label: "Account",
              cell: (u) => (
                <>
                  <strong>{u.accountId}</strong> <DisabledBadge disabledAt={u.disabledAt} />
                  {u.roles.includes("admin") && <span class="badge">admin</span>}
                  <span class="sub">{u.name} · {u.email} · seq {u.userSeq}</span>
                </>
              ),
            },
            { label: "Tenant", cell: (u) => tenantName(u.tenantId) },
            {
              label: "Storage used",
              cell: (u) => (
                <UsageBar
                  used={u.usedBytes}
                  quota={u.quotaBytes}
                  label={`Storage used by ${u.accountId}`}
                />
              ),
            },
          ]}
          rowKey={(u) => u.userSeq}
          rowClass={(u) => u.userSeq === editing.value ? "selected" : undefined}
          actions={(u) => (
            <>
              <AccountActions user={u} shown={shown} reload={users.reload} />
              <LifecycleActions
                what={`user ${u.accountId}`}
                id={u.userSeq}
                selected={editing}
                disabled={Boolean(u.disabledAt)}
                setDisabled={(off) => api.setUserDisabled(u.userSeq, off)}
                consequence="Their files, versions, trash, shares, links and keys go with them."
                remove={() => api.deleteUser(u.userSeq, u.accountId)}
                reload={users.reload}
              />
            </>
          )}
        />
      </Panel>
    </ColumnsPage>
  );
}
