/**
 * App passwords: the credentials for WebDAV, sync tools and scripts (the user's own API keys).
 * Create one (label, read or read-write, optional expiry; shown once), list them, revoke one.
 */
import { type Signal, useSignal } from "@preact/signals";
import type { AppPassword, CreatedAppPassword } from "../api.ts";
import { api, me } from "../store.ts";
import { Form, SelectField, SubmitRow, TextField } from "../../shared/fields.tsx";
import { useForm } from "../../shared/form.ts";
import { formatDate, isPast } from "../../shared/format.ts";
import { useListPanel } from "../../shared/list_panel.ts";
import { type Column, DataTable } from "../../shared/table.tsx";
import { SecretReveal } from "../../admin/components/secret.tsx";

const SCOPES = [
  { value: "read-write", label: "Read and write" },
  { value: "read", label: "Read only" },
];

/** yyyy-mm-dd (the date field) as the end of that day, local time, ISO 8601; or a problem. */
function expiryOf(date: string): { iso?: string; problem?: string } {
  if (!date) return {};
  const end = new Date(`${date}T23:59:59`);
  if (Number.isNaN(end.getTime())) return { problem: "Use a date such as 2030-12-31." };
  if (end.getTime() <= Date.now()) return { problem: "Choose a date in the future." };
  return { iso: end.toISOString() };
}

function CreateForm(
  { created, reload }: { created: Signal<CreatedAppPassword | null>; reload: () => void },
) {
  const form = useForm(["label", "scope", "expiresAt"]);
  const label = useSignal("");
  const scope = useSignal("read-write");
  const expires = useSignal("");
  return (
    <Form
      form={form}
      label="Create an app password"
      titled
      checks={() => ({
        label: !label.value.trim() && "Name what it is for, e.g. “Laptop sync”.",
        expiresAt: expiryOf(expires.value).problem,
      })}
      send={async () => {
        created.value = await api.createAppPassword({
          label: label.value.trim(),
          scope: scope.value as "read" | "read-write",
          expiresAt: expiryOf(expires.value).iso,
        });
        label.value = expires.value = "";
        reload();
      }}
    >
      <div class="field-row">
        <TextField form={form} name="label" label="Label" value={label} required />
        <SelectField form={form} name="scope" label="Access" value={scope} options={SCOPES} />
        <TextField
          form={form}
          name="expiresAt"
          label="Expires (optional)"
          placeholder="yyyy-mm-dd"
          hint="Empty: until you revoke it."
          value={expires}
        />
      </div>
      <SubmitRow form={form} busyLabel="Creating…">Create app password</SubmitRow>
    </Form>
  );
}

function stateOf(p: AppPassword): string {
  if (p.revokedAt) return `Revoked ${formatDate(p.revokedAt)}`;
  if (p.disabledAt) return "Disabled by an administrator";
  if (p.expiresAt && isPast(p.expiresAt)) return `Expired ${formatDate(p.expiresAt)}`;
  return p.expiresAt ? `Until ${formatDate(p.expiresAt)}` : "Active";
}

const APP_PASSWORD_COLUMNS: Column<AppPassword>[] = [
  { label: "Label", cell: (p) => p.label ?? <em>issued by an administrator</em> },
  { label: "Access", cell: (p) => p.scope === "read" ? "Read only" : "Read and write" },
  { label: "Created", cell: (p) => formatDate(p.createdAt) },
  { label: "State", cell: stateOf },
];

export function AppPasswordsPanel() {
  const { items, status, load, act } = useListPanel(() => api.appPasswords());
  const created = useSignal<CreatedAppPassword | null>(null);
  const revoke = (p: AppPassword) =>
    act(() => api.revokeAppPassword(p.keyId), `App password “${p.label ?? p.keyId}” revoked.`);
  const list = items.value;
  const accountId = me.value?.accountId ?? "";
  const davUrl = `${location.origin}/dav/files/${encodeURIComponent(accountId)}/`;
  return (
    <section class="panel" aria-labelledby="app-passwords-title">
      <h2 id="app-passwords-title">App passwords</h2>
      <p class="sub">
        For WebDAV, sync tools and scripts. To mount your drive (Finder, Explorer, rclone), use{" "}
        <code>{davUrl}</code> with the user name {accountId}{" "}
        (or your e-mail) and an app password as the password; a script sends one as{" "}
        <code>Authorization: Bearer</code>{" "}
        to the drive API. Each works until it expires or you revoke it.
      </p>
      {created.value && (
        <SecretReveal
          title={`App password “${created.value.label}”`}
          label="The new app password"
          secret={created.value.appPassword}
          storage="hashed"
          onDone={() => (created.value = null)}
        />
      )}
      <CreateForm created={created} reload={load} />
      {list === null
        ? <p role="status">Loading…</p>
        : list.length === 0
        ? <p>You have no app passwords yet.</p>
        : (
          <DataTable
            label="Your app passwords"
            items={list}
            rowKey={(p) => p.keyId}
            rowClass={(p) => p.revokedAt ? "revoked" : undefined}
            columns={APP_PASSWORD_COLUMNS}
            actionsClass="actions-cell"
            actions={(p) =>
              !p.revokedAt && p.createdBy === "user" && (
                <button
                  type="button"
                  class="danger-outline"
                  aria-label={`Revoke ${p.label ?? p.keyId}`}
                  onClick={() => revoke(p)}
                >
                  Revoke
                </button>
              )}
          />
        )}
      <p class="status" role="status">{status.value}</p>
    </section>
  );
}
