/**
 * Form state shared by every console form: client-side validation before sending, then the
 * API's error shown next to the field its `field` names (or above the buttons when it names
 * none of this form's fields).
 */
import { signal } from "@preact/signals";
import { useMemo } from "preact/hooks";
import { messageOf } from "./format.ts";

export type FieldErrors = Record<string, string>;

let formCount = 0;

export class FormState {
  readonly id = `form${++formCount}`;
  readonly errors = signal<FieldErrors>({});
  readonly formError = signal<string | null>(null);
  readonly busy = signal(false);

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
    const message = messageOf(err);
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

/** Keeps only the entries that carry a message. */
export function errorsOf(checks: Record<string, string | false | null | undefined>): FieldErrors {
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
