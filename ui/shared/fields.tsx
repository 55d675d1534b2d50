/** Labelled form controls that show their field's error and mark themselves invalid. */
import type { Signal } from "@preact/signals";
import type { ComponentChildren } from "preact";
import type { FormState } from "./form.ts";

interface FieldProps {
  form: FormState;
  name: string;
  label: string;
  hint?: string;
}

function describedBy(form: FormState, name: string, hint?: string): string | undefined {
  const ids = [];
  if (hint) ids.push(`${form.fieldId(name)}-hint`);
  if (form.errors.value[name]) ids.push(`${form.fieldId(name)}-error`);
  return ids.length ? ids.join(" ") : undefined;
}

function FieldFrame(
  { form, name, label, hint, children }: FieldProps & { children: ComponentChildren },
) {
  const error = form.errors.value[name];
  return (
    <div class={`field${error ? " invalid" : ""}`}>
      <label for={form.fieldId(name)}>{label}</label>
      {children}
      {hint && <p id={`${form.fieldId(name)}-hint`} class="hint">{hint}</p>}
      {error && (
        <p id={`${form.fieldId(name)}-error`} class="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

export function TextField(
  props: FieldProps & {
    value: Signal<string>;
    type?: "text" | "email" | "password" | "url";
    autoComplete?: string;
    inputMode?: "numeric" | "text" | "url" | "email";
    placeholder?: string;
    required?: boolean;
  },
) {
  const { form, name, value } = props;
  return (
    <FieldFrame {...props}>
      <input
        id={form.fieldId(name)}
        name={name}
        type={props.type ?? "text"}
        value={value.value}
        onInput={(e) => (value.value = e.currentTarget.value)}
        autoComplete={props.autoComplete ?? "off"}
        inputMode={props.inputMode}
        placeholder={props.placeholder}
        aria-required={props.required ? "true" : undefined}
        aria-invalid={form.errors.value[name] ? "true" : undefined}
        aria-describedby={describedBy(form, name, props.hint)}
        spellcheck={false}
      />
    </FieldFrame>
  );
}

export interface Option {
  value: string;
  label: string;
}

export function SelectField(
  props: FieldProps & { value: Signal<string>; options: Option[]; placeholder?: string },
) {
  const { form, name, value } = props;
  return (
    <FieldFrame {...props}>
      <select
        id={form.fieldId(name)}
        name={name}
        value={value.value}
        onChange={(e) => (value.value = e.currentTarget.value)}
        aria-invalid={form.errors.value[name] ? "true" : undefined}
        aria-describedby={describedBy(form, name, props.hint)}
      >
        {props.placeholder !== undefined && <option value="">{props.placeholder}</option>}
        {props.options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
      </select>
    </FieldFrame>
  );
}

/** A checkbox, or an on/off switch when `asSwitch` (same control, switch role and look). */
export function Toggle(
  { id, label, checked, disabled, asSwitch, hint }: {
    id: string;
    label: string;
    checked: Signal<boolean>;
    disabled?: boolean;
    asSwitch?: boolean;
    hint?: string;
  },
) {
  return (
    <div class={asSwitch ? "toggle switch" : "toggle"}>
      <input
        id={id}
        type="checkbox"
        role={asSwitch ? "switch" : undefined}
        checked={checked.value}
        disabled={disabled}
        onChange={(e) => (checked.value = e.currentTarget.checked)}
        aria-describedby={hint ? `${id}-hint` : undefined}
      />
      <label for={id}>{label}</label>
      {hint && <span id={`${id}-hint`} class="hint">{hint}</span>}
    </div>
  );
}

/** Error of the form as a whole (the API named no field of this form). */
export function FormError({ form }: { form: FormState }) {
  const message = form.formError.value;
  return (
    <p class="form-error" role="alert" hidden={!message}>
      {message}
    </p>
  );
}

export function Form(
  { form, onSubmit, label, children }: {
    form: FormState;
    onSubmit: (e: Event) => void;
    label: string;
    children: ComponentChildren;
  },
) {
  return (
    <form
      class="form"
      data-form={form.id}
      aria-label={label}
      noValidate
      onSubmit={onSubmit}
      aria-busy={form.busy.value ? "true" : undefined}
    >
      {children}
      <FormError form={form} />
    </form>
  );
}

export function SubmitButton(
  { form, children, busyLabel }: {
    form: FormState;
    children: ComponentChildren;
    busyLabel: string;
  },
) {
  return (
    <button type="submit" class="primary" disabled={form.busy.value}>
      {form.busy.value ? busyLabel : children}
    </button>
  );
}
