/**
 * Form state shared by every console form: client-side validation before sending, then the
 * API's error shown next to the field its `field` names (or above the buttons when it names
 * none of this form's fields).
 */
import { signal } from "@preact/signals";
import { useMemo } from "preact/hooks";
import { messageOf } from "./format.ts";

type FieldErrors = Record<string, string>;

/**
 * The words a person knows for the API's field names, so no message shows "quotaBytes" or
 * "tenantId" (docs/console.md). camelCase names are replaced wherever they stand; plain words
 * ("name", "email") only as the "field: problem" prefix of a validation message, since they
 * also occur as ordinary words.
 */
const FIELD_LABELS: Record<string, string> = {
  accountId: "Account id",
  allowedDomains: "Allowed e-mail domains",
  baseUrl: "Base URL",
  claims: "Claims",
  clientId: "Client id",
  clientSecret: "Client secret",
  confirm: "Confirmation",
  dryRun: "Dry run",
  email: "E-mail",
  events: "Events",
  expireDate: "Expiry date",
  folderSeq: "Folder",
  issuer: "Issuer URL",
  keyId: "Key id",
  // The kind of a one-time link (pages/users.tsx: "Invitation link", "Reset link").
  kind: "Link kind",
  label: "Label",
  maxPermissions: "Most permissions",
  minAgeHours: "Minimum age",
  name: "Name",
  operations: "Operations",
  quotaBytes: "Quota",
  readOnly: "Read-only",
  releasedBy: "Released by",
  scopes: "Scopes",
  secret: "Secret",
  sharePolicy: "Share policy",
  shareSeq: "Share",
  ssoOnly: "SSO only",
  tenantId: "Tenant",
  toUserSeq: "Receiving user",
  // As the webhook form labels it (pages/webhooks.tsx).
  url: "Receiver URL",
  userSeq: "User",
};

/** `message` with the API's field names put in words (see FIELD_LABELS). */
export function humanizeMessage(message: string): string {
  let out = message.replace(/^([A-Za-z]+)(\.[\w.]+)?:/, (whole, key: string, rest?: string) => {
    const label = FIELD_LABELS[key];
    if (!label) return whole;
    const inner = rest ? rest.slice(1).split(".").map((p) => FIELD_LABELS[p] ?? p) : [];
    return `${[label, ...inner].join(" › ")}:`;
  });
  for (const [key, label] of Object.entries(FIELD_LABELS)) {
    if (!/[A-Z]/.test(key)) continue;
    out = out.replace(new RegExp(`\\b${key}\\b`, "g"), label.toLowerCase());
  }
  return out.charAt(0).toUpperCase() + out.slice(1);
}

let formCount = 0;

export class FormState {
  readonly id = `form${++formCount}`;
  readonly errors = signal<FieldErrors>({});
  readonly formError = signal<string | null>(null);
  readonly busy = signal(false);
  /**
   * The last success ("User created"), shown beside the buttons. Cleared whenever the form is
   * sent again, so a stale success never stands next to a new error.
   */
  readonly notice = signal<string | null>(null);

  constructor(readonly fields: readonly string[]) {}

  fieldId(name: string): string {
    return `${this.id}-${name}`;
  }

  /**
   * Validates, then sends. `validate` returns a message per invalid field; nothing is sent
   * while any is present. Returns whether `send` succeeded.
   */
  async submit(
    event: Event | null,
    validate: () => FieldErrors,
    send: () => Promise<void>,
  ): Promise<boolean> {
    event?.preventDefault();
    if (this.busy.value) return false;
    const errors = validate();
    this.errors.value = errors;
    this.formError.value = null;
    this.notice.value = null;
    if (Object.keys(errors).length > 0) {
      this.focusFirstError();
      return false;
    }
    this.busy.value = true;
    try {
      await send();
      return true;
    } catch (err) {
      this.showError(err);
      return false;
    } finally {
      this.busy.value = false;
    }
  }

  showError(err: unknown): void {
    const message = humanizeMessage(messageOf(err));
    const apiField = (err as { field?: unknown } | null)?.field;
    const field = typeof apiField === "string" ? this.ownField(apiField) : null;
    if (field) {
      this.errors.value = { [field]: message };
      this.focusFirstError();
    } else {
      this.formError.value = message;
    }
  }

  reset(): void {
    this.errors.value = {};
    this.formError.value = null;
    this.notice.value = null;
  }

  /** The API names nested fields with dots ("sharePolicy.ORG_LINK.allowed"). */
  private ownField(apiField: string): string | null {
    return this.fields.find((f) => apiField === f || apiField.startsWith(`${f}.`)) ?? null;
  }

  private focusFirstError(): void {
    setTimeout(() => {
      const el = document.querySelector<HTMLElement>(
        `[data-form="${this.id}"] [aria-invalid="true"]`,
      );
      el?.focus();
    }, 0);
  }
}

export function useForm(fields: readonly string[]): FormState {
  return useMemo(() => new FormState(fields), []);
}

/** A check per field: its message, or a falsy value when the field is valid. */
export type FieldChecks = Record<string, string | false | null | undefined>;

/** Keeps only the entries that carry a message. */
export function errorsOf(checks: FieldChecks): FieldErrors {
  const out: FieldErrors = {};
  for (const [k, v] of Object.entries(checks)) if (v) out[k] = v;
  return out;
}

/** Parses a whole non-negative number, or null. */
export function parseWhole(raw: string): number | null {
  const t = raw.trim();
  if (!/^\d{1,16}$/.test(t)) return null;
  const n = Number(t);
  return Number.isSafeInteger(n) ? n : null;
}

/** A required name of at most 200 characters; `what` names it in the message ("tenant name"). */
export function validName(name: string, what: string): string | null {
  const t = name.trim();
  if (!t) return `Enter the ${what}.`;
  if (t.length > 200) return `The ${what} must be at most 200 characters.`;
  return null;
}
