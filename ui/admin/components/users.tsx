/**
 * The users, for pages that show whose drive or key a row is (by account id) or let the
 * administrator choose a user.
 */
import { type Signal, useSignal } from "@preact/signals";
import { api, type User } from "../api.ts";
import { type Loaded, useLoaded } from "./data.tsx";
import { SelectField } from "../../shared/fields.tsx";
import type { FormState } from "../../shared/form.ts";

export interface Users extends Loaded<User[]> {
  /** The account id of user `seq`; `unknown` until the users are loaded or when it is gone. */
  accountOf: (seq: number, unknown?: string) => string;
}

/** Loads every user once, when the page opens. */
export function useUsers(): Users {
  const users = useLoaded(() => api.listUsers());
  const accountOf = (seq: number, unknown = `user ${seq}`) =>
    users.data.value?.find((u) => u.userSeq === seq)?.accountId ?? unknown;
  return { ...users, accountOf };
}

/** Select options naming each user by account id and seq. */
export function userOptions(users: User[]) {
  return users.map((u) => ({
    value: String(u.userSeq),
    label: `${u.accountId} (seq ${u.userSeq})`,
  }));
}

/** The chosen user's seq as text: the only user when there is one, else none yet. */
export function useUserChoice(users: User[]): Signal<string> {
  return useSignal(users.length === 1 ? String(users[0].userSeq) : "");
}

/** The form's `userSeq` field: whom a key acts for, whose drive an adapter serves. */
export function UserField(
  { form, label, users, value }: {
    form: FormState;
    label: string;
    users: User[];
    value: Signal<string>;
  },
) {
  return (
    <SelectField
      form={form}
      name="userSeq"
      label={label}
      placeholder="Choose a user"
      value={value}
      options={userOptions(users)}
    />
  );
}
