/**
 * Configuration rows (config.ts): people's sign-in — browser sessions and invitation links
 * (docs/authentication.md).
 */
import { seconds } from "../lib/env_parsers.ts";
import type { Variable } from "./variable.ts";

export const ACCOUNT_VARIABLES = {
  sessionIdleMs: {
    name: "DRIVE_SESSION_IDLE_S",
    default: "7200",
    parse: seconds(60),
    about: "seconds a signed-in browser session lives without a request before it ends " +
      "([docs/authentication.md](docs/authentication.md))",
  },
  sessionLifetimeMs: {
    name: "DRIVE_SESSION_LIFETIME_S",
    default: "604800",
    parse: seconds(60),
    about: "seconds a session lives at most from sign-in, however active",
  },
  invitationTtlMs: {
    name: "DRIVE_INVITATION_TTL_S",
    default: "604800",
    parse: seconds(60),
    about: "seconds an invitation or password-reset link stays valid (single use)",
  },
} satisfies Record<string, Variable>;
