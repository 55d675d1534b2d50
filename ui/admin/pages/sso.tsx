/**
 * Single sign-on per tenant (OpenID Connect): pick a tenant, then set its identity provider's
 * issuer, the client id and secret registered there, the e-mail domains allowed, which claims
 * give account id, e-mail and name, and whether the tenant signs in with SSO only. The client
 * secret is stored sealed and never shown again; leaving it empty on a change keeps it.
 */
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { api, ApiError, type OidcSettingsAnswer, type Tenant } from "../api.ts";
import { useLoaded } from "../components/data.tsx";
import { Panel } from "../components/panel.tsx";
import { Form, SelectField, TextField, Toggle } from "../../shared/fields.tsx";
import { useForm } from "../../shared/form.ts";
import { formatDate, messageOf } from "../../shared/format.ts";

const CALLBACK_PATH = "/auth/v1/oidc/callback";

function SettingsForm(
  { tenant, current, onSaved }: {
    tenant: Tenant;
    current: OidcSettingsAnswer | null;
    onSaved: (s: OidcSettingsAnswer | null) => void;
  },
) {
  const form = useForm(["label", "issuer", "clientId", "clientSecret", "allowedDomains", "claims"]);
  const label = useSignal(current?.label ?? tenant.name);
  const issuer = useSignal(current?.issuer ?? "");
  const clientId = useSignal(current?.clientId ?? "");
  const secret = useSignal("");
  const domains = useSignal(current?.allowedDomains.join(", ") ?? "");
  const accountClaim = useSignal(current?.claims.accountId ?? "sub");
  const emailClaim = useSignal(current?.claims.email ?? "email");
  const nameClaim = useSignal(current?.claims.name ?? "name");
  const ssoOnly = useSignal(current?.ssoOnly ?? false);
  return (
    <Form
      form={form}
      label={`Single sign-on of ${tenant.name}`}
      checks={() => ({
        label: !label.value.trim() && "Name the button, e.g. the company's SSO.",
        issuer: !/^https?:\/\/\S+$/.test(issuer.value.trim()) &&
          "Enter the issuer URL, e.g. https://sso.example.com/realms/acme.",
        clientId: !clientId.value.trim() && "Enter the client id registered at the provider.",
        clientSecret: !current && !secret.value && "Enter the client secret the provider issued.",
      })}
      send={async () => {
        const saved = await api.setTenantOidc(tenant.id, {
          label: label.value.trim(),
          issuer: issuer.value.trim(),
          clientId: clientId.value.trim(),
          ...(secret.value ? { clientSecret: secret.value } : {}),
          allowedDomains: domains.value.split(/[\s,]+/).filter(Boolean),
          claims: {
            accountId: accountClaim.value.trim(),
            email: emailClaim.value.trim(),
            name: nameClaim.value.trim(),
          },
          ssoOnly: ssoOnly.value,
        });
        secret.value = "";
        onSaved(saved);
        form.notice.value = "Single sign-on saved.";
      }}
    >
      <TextField form={form} name="label" label="Button label" value={label} required />
      <TextField
        form={form}
        name="issuer"
        label="Issuer URL"
        type="url"
        hint="https (plain http only to this machine). Its discovery document must answer."
        value={issuer}
        required
      />
      <TextField form={form} name="clientId" label="Client id" value={clientId} required />
      <TextField
        form={form}
        name="clientSecret"
        label={current ? "Client secret (leave empty to keep)" : "Client secret"}
        type="password"
        autoComplete="new-password"
        hint="Stored sealed with the server's secrets key; never shown again."
        value={secret}
      />
      <TextField
        form={form}
        name="allowedDomains"
        label="Allowed e-mail domains"
        hint="Comma-separated, e.g. example.com. Empty: any domain the provider vouches for."
        value={domains}
      />
      <div class="field-row">
        <TextField form={form} name="claims" label="Account id claim" value={accountClaim} />
        <TextField form={form} name="claimEmail" label="E-mail claim" value={emailClaim} />
        <TextField form={form} name="claimName" label="Name claim" value={nameClaim} />
      </div>
      <Toggle
        id={`sso-only-${tenant.id}`}
        label="SSO only: passwords off for this tenant"
        checked={ssoOnly}
        asSwitch
      />
      <div class="actions">
        <button type="submit" class="primary" disabled={form.busy.value}>
          {form.busy.value ? "Saving…" : "Save single sign-on"}
        </button>
        {current && (
          <button
            type="button"
            class="danger-outline"
            onClick={async () => {
              try {
                await api.deleteTenantOidc(tenant.id);
                onSaved(null);
              } catch (err) {
                form.formError.value = messageOf(err);
              }
            }}
          >
            Remove single sign-on
          </button>
        )}
      </div>
      <p class="status" role="status">{form.notice.value}</p>
    </Form>
  );
}

export function SsoPage() {
  const tenants = useLoaded(() => api.listTenants());
  const chosen = useSignal("");
  const current = useSignal<OidcSettingsAnswer | null | undefined>(undefined);
  const problem = useSignal<string | null>(null);
  useEffect(() => {
    current.value = undefined;
    problem.value = null;
    if (!chosen.value) return;
    api.getTenantOidc(Number(chosen.value)).then((s) => (current.value = s)).catch((err) => {
      if (err instanceof ApiError && err.code === "OIDC_001") current.value = null;
      else problem.value = messageOf(err);
    });
  }, [chosen.value]);
  const tenant = tenants.data.value?.find((t) => String(t.id) === chosen.value);
  const selector = useForm(["tenant"]);
  return (
    <>
      <h1>Single sign-on</h1>
      <Panel id="sso-panel" title="OpenID Connect per tenant">
        <p class="sub">
          Register this service at the identity provider as a confidential web client with the
          redirect URI{" "}
          <code>{current.value?.redirectUri ?? `${location.origin}${CALLBACK_PATH}`}</code>{" "}
          (scopes openid, email, profile), then enter what it gives you. docs/authentication.md has
          the steps for Keycloak, Entra ID, Google and Authentik.
        </p>
        <SelectField
          form={selector}
          name="tenant"
          label="Tenant"
          placeholder="Choose a tenant"
          value={chosen}
          options={(tenants.data.value ?? []).map((t) => ({ value: String(t.id), label: t.name }))}
        />
        {problem.value && <p class="form-error" role="alert">{problem.value}</p>}
        {tenant && current.value !== undefined && (
          <>
            <p class="status">
              {current.value
                ? `Configured, last changed ${formatDate(current.value.updatedAt)}.`
                : "Not configured: users of this tenant sign in with passwords only."}
            </p>
            <SettingsForm
              key={`${tenant.id}-${current.value?.updatedAt ?? "new"}`}
              tenant={tenant}
              current={current.value}
              onSaved={(s) => (current.value = s)}
            />
          </>
        )}
      </Panel>
    </>
  );
}
