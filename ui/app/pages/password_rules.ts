/**
 * The checks the browser can make before sending a new password: the length and the repeat.
 * The server decides the rest (common passwords, docs/authentication.md).
 */
import type { FieldChecks } from "../../shared/form.ts";

export const MIN_PASSWORD_LENGTH = 12;

export function passwordChecks(password: string, repeat: string, field = "password"): FieldChecks {
  return {
    [field]: [...password].length < MIN_PASSWORD_LENGTH &&
      `Use at least ${MIN_PASSWORD_LENGTH} characters.`,
    repeat: password !== repeat && "The two passwords differ.",
  };
}
