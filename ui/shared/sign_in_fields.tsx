/**
 * The fields of signing in, alike in the app, the console and the share-link page: the account
 * (id or e-mail) and the current password, which browsers and password managers fill in.
 */
import { type Signal, useSignal } from "@preact/signals";
import { TextField } from "./fields.tsx";
import { type FieldChecks, type FormState, useForm } from "./form.ts";

/** A secret the user already holds (password, admin token), marked for the browser to fill. */
export function CurrentPasswordField(
  { form, value, name = "password", label = "Password" }: {
    form: FormState;
    value: Signal<string>;
    name?: string;
    label?: string;
  },
) {
  return (
    <TextField
      form={form}
      name={name}
      label={label}
      type="password"
      autoComplete="current-password"
      required
      value={value}
    />
  );
}

export interface SignInForm {
  form: FormState;
  login: Signal<string>;
  password: Signal<string>;
}

/** The form state and the two values of a sign-in by account and password. */
export function useSignInForm(): SignInForm {
  return { form: useForm(["login", "password"]), login: useSignal(""), password: useSignal("") };
}

/** What the sign-in form asks for before it is sent. */
export function signInChecks({ login, password }: SignInForm): FieldChecks {
  return {
    login: !login.value.trim() && "Enter your account id or e-mail address.",
    password: !password.value && "Enter your password.",
  };
}

/** The account and password fields of a sign-in form. */
export function SignInFields({ form, login, password }: SignInForm) {
  return (
    <>
      <TextField
        form={form}
        name="login"
        label="Account id or e-mail"
        autoComplete="username"
        required
        value={login}
      />
      <CurrentPasswordField form={form} value={password} />
    </>
  );
}
