/** Labelled form controls that show their field's error and mark themselves invalid. */
import type { Signal } from "@preact/signals";
import type { ComponentChildren } from "preact";
import { errorsOf, type FieldChecks, type FormState } from "./form.ts";

interface FieldProps {
  form: FormState;
  name: string;
  label: string;
  hint?: string;
}

/** What every control of a field carries: its id, and its error and hint for assistive tech. */
function controlProps({ form, name, hint }: FieldProps) {
  const ids = [];
  if (hint) ids.push(`${form.fieldId(name)}-hint`);
  if (form.errors.value[name]) ids.push(`${form.fieldId(name)}-error`);
  return {
    id: form.fieldId(name),
    name,
    "aria-invalid": form.errors.value[name] ? "true" as const : undefined,
    "aria-describedby": ids.length ? ids.join(" ") : undefined,
  };
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
      <FieldErrorText form={form} name={name} />
    </div>
  );
}

/** The field's error under it (nothing while it has none); its id links it to the control. */
function FieldErrorText({ form, name }: { form: FormState; name: string }) {
  const error = form.errors.value[name];
  if (!error) return null;
  return <p id={`${form.fieldId(name)}-error`} class="field-error">{error}</p>;
}

/**
 * Controls that are one field of the form as a group (a policy, a set of switches): a fieldset
 * with a legend and a hint, marked invalid and followed by the error when the field has one.
 */
export function FieldGroup(
  { form, name, legend, hint, class: className, children }: {
    form: FormState;
    name: string;
    legend: string;
    hint: string;
    class?: string;
    children: ComponentChildren;
  },
) {
  const error = form.errors.value[name];
  return (
    <fieldset
      class={[className, error && "invalid"].filter(Boolean).join(" ") || undefined}
      aria-describedby={error ? `${form.fieldId(name)}-error` : undefined}
    >
      <legend>{legend}</legend>
      <p class="hint">{hint}</p>
      {children}
      <FieldErrorText form={form} name={name} />
    </fieldset>
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
  const { value } = props;
  return (
    <FieldFrame {...props}>
      <input
        {...controlProps(props)}
        type={props.type ?? "text"}
        value={value.value}
        onInput={(e) => (value.value = e.currentTarget.value)}
        autoComplete={props.autoComplete ?? "off"}
        inputMode={props.inputMode}
        placeholder={props.placeholder}
        aria-required={props.required ? "true" : undefined}
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
  const { value } = props;
  return (
    <FieldFrame {...props}>
      <select
        {...controlProps(props)}
        value={value.value}
        onChange={(e) => (value.value = e.currentTarget.value)}
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

/**
 * How a form is sent: most forms give their `checks` (a message per invalid field) and `send`,
 * which FormState.submit runs in order; a form with steps of its own around that gives
 * `onSubmit`.
 */
type Submit =
  | { onSubmit: (e: Event) => void; checks?: never; send?: never }
  | { onSubmit?: never; checks: () => FieldChecks; send: () => Promise<void> };

export function Form(
  { form, onSubmit, checks, send, label, titled, children }: Submit & {
    form: FormState;
    label: string;
    /** Shows `label` as the form's heading too. */
    titled?: boolean;
    children: ComponentChildren;
  },
) {
  return (
    <form
      class="form"
      data-form={form.id}
      aria-label={label}
      noValidate
      onSubmit={onSubmit ?? ((e) => form.submit(e, () => errorsOf(checks()), send))}
      aria-busy={form.busy.value ? "true" : undefined}
    >
      {titled && <h2>{label}</h2>}
      {children}
      <FormError form={form} />
    </form>
  );
}

/** A form's submit button: `children` names the action, `busyLabel` shows while it runs. */
interface SubmitProps {
  form: FormState;
  children: ComponentChildren;
  busyLabel: string;
}

export function SubmitButton({ form, children, busyLabel }: SubmitProps) {
  return (
    <button type="submit" class="primary" disabled={form.busy.value}>
      {form.busy.value ? busyLabel : children}
    </button>
  );
}

/** The form's actions row when its submit button is all it holds. */
export function SubmitRow(props: SubmitProps) {
  return (
    <div class="actions">
      <SubmitButton {...props} />
    </div>
  );
}
