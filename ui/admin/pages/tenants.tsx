/** Tenants: create, rename, and edit each tenant's share policy. */
import { type Signal, useSignal } from "@preact/signals";
import { formatDate } from "../../shared/format.ts";
import {
  api,
  type Permission,
  PERMISSIONS,
  SHARE_TYPES,
  type SharePolicy,
  type ShareType,
  type Tenant,
} from "../api.ts";
import { useLoaded } from "../components/data.tsx";
import { ColumnsPage, Panel } from "../components/panel.tsx";
import { ListTable } from "../components/table.tsx";
import { DisabledBadge, LifecycleActions } from "../components/lifecycle.tsx";
import { FieldGroup, Form, SubmitRow, TextField } from "../../shared/fields.tsx";
import { useForm, validName } from "../../shared/form.ts";

const SHARE_TYPE_LABEL: Record<ShareType, string> = {
  SPECIFIC_USERS: "Specific users",
  ORG_LINK: "Organization link",
  PUBLIC_LINK: "Public link",
};

/** EDIT also governs upload (the spec's policy has no value of its own for it). */
const PERMISSION_LABEL: Record<Permission, string> = {
  VIEW: "View",
  EDIT: "Edit and upload",
  DOWNLOAD: "Download",
  SHARE: "Re-share",
};

/** Links cannot be re-shared (spec: ORG_LINK and PUBLIC_LINK do not offer re-share). */
const RESHARE_TYPES: ShareType[] = ["SPECIFIC_USERS"];

function policySummary(policy: SharePolicy): string {
  return SHARE_TYPES.filter((t) => policy[t].allowed).map((t) => SHARE_TYPE_LABEL[t]).join(", ") ||
    "no sharing";
}

function CreateTenantForm({ onCreated }: { onCreated: (t: Tenant) => void }) {
  const form = useForm(["name"]);
  const name = useSignal("");
  return (
    <Form
      form={form}
      label="Create a tenant"
      titled
      checks={() => ({ name: validName(name.value, "tenant name") })}
      send={async () => {
        const t = await api.createTenant(name.value.trim());
        form.notice.value = `Tenant “${t.name}” created (id ${t.id}).`;
        name.value = "";
        onCreated(t);
      }}
    >
      <TextField form={form} name="name" label="Tenant name" required value={name} />
      <SubmitRow form={form} busyLabel="Creating…">Create tenant</SubmitRow>
      <p class="status" role="status">{form.notice.value}</p>
    </Form>
  );
}

function clonePolicy(p: SharePolicy): SharePolicy {
  return JSON.parse(JSON.stringify(p));
}

function PolicyEditor({ tenant, onSaved }: { tenant: Tenant; onSaved: (t: Tenant) => void }) {
  const form = useForm(["name", "sharePolicy"]);
  const name = useSignal(tenant.name);
  const policy: Signal<SharePolicy> = useSignal(clonePolicy(tenant.sharePolicy));

  const setAllowed = (type: ShareType, allowed: boolean) => {
    const next = clonePolicy(policy.value);
    next[type].allowed = allowed;
    policy.value = next;
  };
  const setPermission = (type: ShareType, perm: Permission, on: boolean) => {
    const next = clonePolicy(policy.value);
    const set = new Set(next[type].maxPermissions);
    if (on) set.add(perm);
    else set.delete(perm);
    next[type].maxPermissions = PERMISSIONS.filter((p) => set.has(p));
    policy.value = next;
  };

  const checks = () => {
    const bad = SHARE_TYPES.find((t) => {
      const perms = policy.value[t].maxPermissions;
      return policy.value[t].allowed && perms.length > 0 && !perms.includes("VIEW");
    });
    return {
      name: validName(name.value, "tenant name"),
      sharePolicy: bad &&
        `${SHARE_TYPE_LABEL[bad]}: every other permission needs View, so allow View too.`,
    };
  };

  const policyError = form.errors.value.sharePolicy;
  return (
    <Form
      form={form}
      label={`Edit tenant ${tenant.name}`}
      checks={checks}
      send={async () => {
        const t = await api.updateTenant(tenant.id, {
          name: name.value.trim(),
          sharePolicy: policy.value,
        });
        form.notice.value = `Saved at ${new Date().toLocaleTimeString()}.`;
        onSaved(t);
      }}
    >
      <h2>Tenant “{tenant.name}”</h2>
      <TextField form={form} name="name" label="Tenant name" required value={name} />
      <FieldGroup
        form={form}
        name="sharePolicy"
        legend="Share policy"
        hint="Which kinds of share the tenant's users may create, and the most each may grant."
        class="policy"
      >
        {SHARE_TYPES.map((type) => {
          const entry = policy.value[type];
          const base = `${form.id}-${type}`;
          return (
            <div class="policy-row" key={type}>
              <div class="toggle switch">
                <input
                  id={`${base}-allowed`}
                  type="checkbox"
                  role="switch"
                  checked={entry.allowed}
                  onChange={(e) => setAllowed(type, e.currentTarget.checked)}
                  aria-invalid={policyError ? "true" : undefined}
                />
                <label for={`${base}-allowed`}>{SHARE_TYPE_LABEL[type]} allowed</label>
              </div>
              <div
                class="perm-list"
                role="group"
                aria-label={`${SHARE_TYPE_LABEL[type]}: the most it may grant`}
              >
                {PERMISSIONS.map((perm) => (
                  <div class="toggle" key={perm}>
                    <input
                      id={`${base}-${perm}`}
                      type="checkbox"
                      checked={entry.maxPermissions.includes(perm)}
                      disabled={!entry.allowed ||
                        (perm === "SHARE" && !RESHARE_TYPES.includes(type))}
                      onChange={(e) => setPermission(type, perm, e.currentTarget.checked)}
                    />
                    <label for={`${base}-${perm}`}>{PERMISSION_LABEL[perm]}</label>
                  </div>
                ))}
              </div>
            </div>
          );
        })}
      </FieldGroup>
      <SubmitRow form={form} busyLabel="Saving…">Save tenant</SubmitRow>
      <p class="status" role="status">{form.notice.value}</p>
    </Form>
  );
}

export function TenantsPage() {
  const tenants = useLoaded(api.listTenants);
  const selected = useSignal<number | null>(null);
  const current = tenants.data.value?.find((t) => t.id === selected.value) ?? null;
  return (
    <ColumnsPage
      title="Tenants"
      side={
        <>
          <section class="panel">
            <CreateTenantForm
              onCreated={(t) => {
                tenants.reload();
                selected.value = t.id;
              }}
            />
          </section>
          {current && (
            <section class="panel">
              <PolicyEditor key={current.id} tenant={current} onSaved={() => tenants.reload()} />
            </section>
          )}
        </>
      }
    >
      <Panel id="tenant-list-title" title="All tenants">
        <ListTable
          loaded={tenants}
          empty="No tenants yet: create the first one."
          columns={[
            { label: "Id", cell: (t) => t.id },
            {
              label: "Name",
              cell: (t) => (
                <>
                  {t.name} <DisabledBadge disabledAt={t.disabledAt} />
                </>
              ),
            },
            { label: "Sharing allowed", cell: (t) => policySummary(t.sharePolicy) },
            { label: "Created", cell: (t) => formatDate(t.createdAt) },
          ]}
          rowKey={(t) => t.id}
          rowClass={(t) => t.id === selected.value ? "selected" : undefined}
          actions={(t) => (
            <LifecycleActions
              what={`tenant ${t.name}`}
              id={t.id}
              selected={selected}
              disabled={t.disabledAt !== null}
              setDisabled={(off) => api.setTenantDisabled(t.id, off)}
              consequence="Every user in it is deleted, with all their files."
              remove={() => api.deleteTenant(t.id, t.name)}
              reload={tenants.reload}
            />
          )}
        />
      </Panel>
    </ColumnsPage>
  );
}
