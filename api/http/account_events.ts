/**
 * The names of sign-in and credential events in the activity log (event kind `account`,
 * `detail.action`), and the one call that records them. Facts only: never a password, a token,
 * a session id or an app password.
 */
import { recordAccountAction } from "../../kv/events/log.ts";
import type { User } from "../../kv/identity/users.ts";

export const ACCOUNT_ACTIONS = [
  "signed_in",
  "sign_in_failed",
  "signed_out",
  "password_changed",
  "password_reset",
  "invitation_created",
  "invitation_used",
  "app_password_created",
  "app_password_revoked",
  "session_revoked",
  "role_granted",
  "role_removed",
] as const;
export type AccountAction = typeof ACCOUNT_ACTIONS[number];

/** Records `action` concerning `user` (null: an account that does not exist, failures only). */
export function recordAccountEvent(
  kv: Deno.Kv,
  action: AccountAction,
  user: Pick<User, "userSeq" | "tenantId"> | null,
  detail: Record<string, string | number | boolean | null> = {},
): Promise<void> {
  return recordAccountAction(kv, action, {
    userSeq: user?.userSeq ?? null,
    tenantId: user?.tenantId ?? null,
    detail,
  });
}
