/**
 * Single sign-on settings per tenant (OpenID Connect, docs/authentication.md): the identity
 * provider's issuer URL, this service's client id and client secret there, the e-mail domains
 * allowed to sign in, which ID-token claims give a user's account id, e-mail and name, and
 * whether the tenant is SSO-only (passwords off).
 *
 * The client secret is needed again at every sign-in (the token request), so it cannot be
 * hashed: it is sealed like adapter secrets (lib/sealed.ts), bound to the tenant, and never
 * leaves this module except to the sign-in flow (kv/identity/oidc_flow.ts).
 */
import { commit } from "../db.ts";
import type { Deps } from "../deps.ts";
import { fail } from "../errors.ts";
import { oidcConfigKey } from "../keys.ts";
import { getTenant, requireTenant } from "./tenants.ts";
import { openText, type SealedText, sealingKeyId, sealText } from "../../lib/sealed.ts";

/**
 * Where the provider sends the browser back: one callback for every tenant (the state names the
 * sign-in, and so the tenant). Administrators register `<DRIVE_PUBLIC_URL>` + this path.
 */
export const OIDC_CALLBACK_PATH = "/auth/v1/oidc/callback";
export const oidcRedirectUri = (publicUrl: string) => `${publicUrl}${OIDC_CALLBACK_PATH}`;

/** Which ID-token (or userinfo) claim gives each field of a user. */
export interface ClaimMapping {
  accountId: string;
  email: string;
  name: string;
}

export const DEFAULT_CLAIMS: ClaimMapping = { accountId: "sub", email: "email", name: "name" };

/** What the admin API shows and takes (the secret only in, never out). */
export interface OidcSettings {
  tenantId: number;
  /** The name on the sign-in button: "Sign in with <label>". */
  label: string;
  issuer: string;
  clientId: string;
  /** Lowercase domains whose addresses may sign in; empty: any. */
  allowedDomains: string[];
  claims: ClaimMapping;
  /** Users of this tenant sign in through the identity provider only. */
  ssoOnly: boolean;
  updatedAt: string;
}

interface StoredOidcConfig extends OidcSettings {
  clientSecret: SealedText;
}

export interface OidcSettingsInput {
  label: string;
  issuer: string;
  clientId: string;
  /** Required the first time; absent on a change keeps the stored secret. */
  clientSecret?: string;
  allowedDomains?: string[];
  claims?: Partial<ClaimMapping>;
  ssoOnly?: boolean;
}

/** A sign-in option the sign-in page offers. */
export interface OidcProviderEntry {
  tenantId: number;
  label: string;
}

/** The tenant is the additional data: a sealed secret copied to another tenant does not open. */
const boundTo = (tenantId: number) => `oidc:${tenantId}`;

function view({ clientSecret: _, ...settings }: StoredOidcConfig): OidcSettings {
  return settings;
}

/** A domain as a user's address has it after the @: lowercase, no scheme, no leading @. */
export function normalizeDomain(domain: string): string {
  return domain.trim().toLowerCase().replace(/^@/, "");
}

export async function getOidcSettings(kv: Deno.Kv, tenantId: number): Promise<OidcSettings | null> {
  const stored = (await kv.get<StoredOidcConfig>(oidcConfigKey(tenantId))).value;
  return stored ? view(stored) : null;
}

export async function requireOidcSettings(kv: Deno.Kv, tenantId: number): Promise<OidcSettings> {
  return (await getOidcSettings(kv, tenantId)) ??
    fail("OIDC_001", `Tenant ${tenantId} has no single sign-on configured`, "tenantId");
}

/** Creates or replaces a tenant's settings; the secret is kept when none is given. */
export async function setOidcSettings(
  d: Deps,
  tenantId: number,
  input: OidcSettingsInput,
): Promise<OidcSettings> {
  await requireTenant(d.kv, tenantId);
  const entry = await d.kv.get<StoredOidcConfig>(oidcConfigKey(tenantId));
  let clientSecret = entry.value?.clientSecret;
  if (input.clientSecret !== undefined) {
    clientSecret = sealText(await d.secretsKey.get(), boundTo(tenantId), input.clientSecret);
  }
  if (!clientSecret) {
    return fail("OIDC_002", "Give the client secret the identity provider issued", "clientSecret");
  }
  const domains = [...new Set((input.allowedDomains ?? []).map(normalizeDomain))].sort();
  const stored: StoredOidcConfig = {
    tenantId,
    label: input.label.trim(),
    // As the provider spells it: discovery compares it whole (Authentik's ends in "/").
    issuer: input.issuer.trim(),
    clientId: input.clientId,
    allowedDomains: domains.filter((x) => x !== ""),
    claims: { ...DEFAULT_CLAIMS, ...input.claims },
    ssoOnly: input.ssoOnly ?? false,
    updatedAt: new Date().toISOString(),
    clientSecret,
  };
  // Last writer wins, as with any settings form; the check only keeps a concurrent delete.
  await commit(d.kv.atomic().check(entry).set(oidcConfigKey(tenantId), stored)) ||
    fail("OIDC_001", `Tenant ${tenantId}'s settings changed meanwhile; try again`, "tenantId");
  return view(stored);
}

/** Removes a tenant's single sign-on (its users keep their accounts); false when it had none. */
export async function deleteOidcSettings(kv: Deno.Kv, tenantId: number): Promise<boolean> {
  const entry = await kv.get(oidcConfigKey(tenantId));
  if (entry.value === null) return false;
  await kv.atomic().check(entry).delete(oidcConfigKey(tenantId)).commit();
  return true;
}

/** Adds to `op` removing a tenant's settings, with the tenant itself (kv/lifecycle/). */
export function dropOidcSettings(op: Deno.AtomicOperation, tenantId: number): void {
  op.delete(oidcConfigKey(tenantId));
}

/** The client secret, for the token request of a sign-in. */
export async function oidcClientSecret(d: Deps, tenantId: number): Promise<string> {
  const stored = (await d.kv.get<StoredOidcConfig>(oidcConfigKey(tenantId))).value ??
    fail("OIDC_001", `Tenant ${tenantId} has no single sign-on configured`, "tenantId");
  const key = await d.secretsKey.get();
  const plain = openText(key, boundTo(tenantId), stored.clientSecret);
  if (plain === null) {
    console.error(
      `tenant ${tenantId}: its OIDC client secret cannot be decrypted (sealed with key ` +
        `${stored.clientSecret.keyId}, current key ${sealingKeyId(key)}); was ` +
        `DRIVE_SECRETS_KEY or secrets.key changed?`,
    );
    return fail("OIDC_010");
  }
  return plain;
}

/** The sign-in buttons: every enabled tenant with single sign-on, by label. */
export async function listOidcProviders(kv: Deno.Kv): Promise<OidcProviderEntry[]> {
  const out: OidcProviderEntry[] = [];
  for await (const e of kv.list<StoredOidcConfig>({ prefix: oidcConfigKey() })) {
    const tenant = await getTenant(kv, e.value.tenantId);
    // A disabled or deleted tenant offers no button (its settings stay until deleted).
    if (!tenant || tenant.disabledAt) continue;
    out.push({ tenantId: e.value.tenantId, label: e.value.label });
  }
  return out.sort((a, b) => a.label.localeCompare(b.label) || a.tenantId - b.tenantId);
}

/**
 * Whether users of `tenantId` may sign in with a password (the password sign-in of
 * kv/identity/ asks before checking one): false for an SSO-only tenant.
 */
export async function passwordsAllowed(kv: Deno.Kv, tenantId: number): Promise<boolean> {
  const settings = await getOidcSettings(kv, tenantId);
  return !settings?.ssoOnly;
}

/** Whether `email`'s domain may sign in under `settings` (no list: every domain). */
export function emailDomainAllowed(settings: OidcSettings, email: string): boolean {
  if (settings.allowedDomains.length === 0) return true;
  const at = email.lastIndexOf("@");
  if (at < 1) return false;
  return settings.allowedDomains.includes(normalizeDomain(email.slice(at + 1)));
}
