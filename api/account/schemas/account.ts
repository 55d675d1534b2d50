/**
 * Every request and answer shape of the account API (/api/account/v1): the routes validate with
 * them, the document shows them, and the app shell (ui/app/) may take their types with
 * `import type`. The examples form one small story that tests/account/openapi_examples_test.ts
 * replays: user 1 "alice" signs in with the password of SIGN_IN_EXAMPLE.
 */
import { z } from "@hono/zod-openapi";
import type { ErrorCode } from "../../../kv/errors.ts";
import { errorResponsesWith, plainAnswersWith, plainJson } from "../../http/openapi.ts";
import { INVITATION_KINDS } from "../../../kv/identity/invitations.ts";

export const ErrorSchema = z.object({
  error: z.string().describe("The catalog code (docs/errors.md)").openapi({ example: "AUTH_007" }),
  message: z.string().describe("What went wrong, for a person"),
  field: z.string().optional().describe("The request field at fault, when there is one"),
}).describe("An account API error: the catalog code, a message, the field if any")
  .openapi("AccountError");

/** Error answers: validation and body size always, and `codes`. */
export const accountErrors = (...codes: ErrorCode[]) =>
  errorResponsesWith(ErrorSchema, ["REQUEST_001", "REQUEST_002", ...codes]);

/** Errors of a route that needs a session: none, ended, disabled, or CSRF on a change. */
export const SESSION_ERRORS = ["AUTH_009", "AUTH_006", "AUTH_010"] as const;
/** Errors of a route with a JSON body. */
export const BODY_ERRORS = ["REQUEST_003", "REQUEST_005"] as const;

/** A JSON answer of an account route: `schema`, described. */
export const json = plainJson;

/** A route's answers: `schema` as JSON (200, `description`), or one of the errors `codes` name. */
export const answers = plainAnswersWith(accountErrors);

/** The answers of a route that needs a session (SESSION_ERRORS and `codes`). */
export const sessionAnswers = <T extends z.ZodTypeAny>(
  schema: T,
  description: string,
  ...codes: ErrorCode[]
) => answers(schema, description, ...SESSION_ERRORS, ...codes);

/** The password the examples' user has (long and uncommon enough for the policy). */
export const EXAMPLE_PASSWORD = "violet-harbour-tandem-42";

const Password = z.string().min(1, "must not be empty").max(1024, "is too long");

export const SignInBody = z.object({
  login: z.string().trim().min(1, "must not be empty").max(320).describe(
    "The accountId or the e-mail address",
  ).openapi({ example: "alice" }),
  password: Password.describe("The password").openapi({ example: EXAMPLE_PASSWORD }),
}).strict();

export const AccountUserSchema = z.object({
  userSeq: z.number().int().describe("Your user seq").openapi({ example: 1 }),
  tenantId: z.number().int().describe("Your tenant").openapi({ example: 1 }),
  accountId: z.string().describe("Your account id").openapi({ example: "alice" }),
  email: z.string().describe("Your e-mail address").openapi({ example: "alice@example.com" }),
  name: z.string().describe("Your display name").openapi({ example: "Alice Martin" }),
  roles: z.array(z.enum(["admin"])).describe("admin: may use the admin console and admin API"),
}).describe("The signed-in user").openapi("AccountUser");

export const SignedInSchema = z.object({
  user: AccountUserSchema,
  csrfToken: z.string().describe(
    "Send it as X-CSRF-Token with every request that changes something (any method but GET)",
  ),
  session: z.object({
    id: z.string().describe("The session's public id (as GET /sessions lists it)"),
    expiresAt: z.string().describe(
      "Its absolute end, ISO 8601 (the idle timeout may end it first)",
    ),
  }).describe("This browser's session"),
}).describe("Who is signed in, with the session's CSRF token").openapi("SignedIn");

/** GET /me: the signed-in answer, with the storage the quota bar shows. */
export const MeSchema = SignedInSchema.extend({
  usage: z.object({
    usedBytes: z.number().int().describe(
      "Bytes of every stored version of the user's files, trash included",
    ),
    quotaBytes: z.number().int().nullable().describe("The user's quota in bytes; null: unlimited"),
  }).describe("Storage used and allowed"),
}).openapi("Me");

export const ChangePasswordBody = z.object({
  currentPassword: Password.describe("The password now").openapi({ example: EXAMPLE_PASSWORD }),
  newPassword: Password.describe(
    "The new password: at least 12 characters, not a common one",
  ).openapi({ example: "quiet-lantern-orchard-77" }),
}).strict();

const Token = z.string().min(1, "must not be empty").max(200).describe(
  "The token of the link (after #/invitation/ or #/reset/)",
);

export const InvitationLookupBody = z.object({
  token: Token.openapi({ example: "Qm9vdHN0cmFwLXRva2VuLWZvci10aGUtZXhhbXBsZXM" }),
}).strict();

export const InvitationSchema = z.object({
  kind: z.enum(INVITATION_KINDS).describe("A first password, or a reset"),
  accountId: z.string().describe("The account the link is for").openapi({ example: "alice" }),
  name: z.string().describe("Its display name").openapi({ example: "Alice Martin" }),
  expiresAt: z.string().describe("Until when the link works, ISO 8601"),
}).describe("What an invitation or reset link is for").openapi("Invitation");

export const AcceptInvitationBody = z.object({
  token: Token,
  password: Password.describe("The password to set: at least 12 characters, not a common one")
    .openapi({ example: EXAMPLE_PASSWORD }),
}).strict();

export const SessionSchema = z.object({
  id: z.string().describe("The session's public id (not its cookie)"),
  via: z.enum(["password", "oidc"]).describe("How it signed in"),
  userAgent: z.string().describe("The browser, as it named itself"),
  address: z.string().describe("The client address it signed in from"),
  createdAt: z.string().describe("Sign-in time, ISO 8601"),
  lastSeenAt: z.string().describe("Last request (to the minute), ISO 8601"),
  expiresAt: z.string().describe("Its absolute end, ISO 8601"),
  current: z.boolean().describe("true: the session of this request"),
}).describe("One of your signed-in sessions").openapi("Session");

export const SessionParams = z.object({
  id: z.string().regex(/^[0-9a-f]{64}$/, "must be a session id (64 hex digits)").openapi({
    param: { name: "id", in: "path" },
    description: "The session's public id",
    example: "0".repeat(64),
  }),
});

export const AppPasswordSchema = z.object({
  keyId: z.string().describe("The key id (the part between drv_ and the second _)"),
  label: z.string().nullable().describe("What it is for"),
  scope: z.enum(["read", "read-write"]).describe("read, or read-write (api:write)"),
  createdBy: z.enum(["admin", "user"]).describe("user: an app password; admin: issued for you"),
  createdAt: z.string().describe("When it was made, ISO 8601"),
  expiresAt: z.string().nullable().describe("When it stops working; null: never"),
  revokedAt: z.string().nullable().describe("When it was revoked; null: not revoked"),
  disabledAt: z.string().nullable().describe("Disabled by an administrator; null: not"),
}).describe("One of your API keys (never its secret)").openapi("AppPassword");

export const CreateAppPasswordBody = z.object({
  label: z.string().trim().min(1, "must not be empty").max(200, "must be at most 200 characters")
    .describe("What it is for: a device, a sync tool").openapi({ example: "Laptop WebDAV" }),
  scope: z.enum(["read", "read-write"]).describe("read, or read-write").openapi({
    example: "read-write",
  }),
  expiresAt: z.iso.datetime({ offset: true }).optional().describe(
    "When it stops working, ISO 8601; omitted: never",
  ).openapi({ example: "2099-01-01T00:00:00Z" }),
}).strict();

export const CreatedAppPasswordSchema = AppPasswordSchema.extend({
  appPassword: z.string().describe(
    "The app password itself, shown this once: send it as Authorization: Bearer",
  ),
}).openapi("CreatedAppPassword");

export const KeyParams = z.object({
  keyId: z.string().regex(/^[A-Za-z0-9]{1,64}$/, "must be a key id").openapi({
    param: { name: "keyId", in: "path" },
    description: "The key id",
    example: "AbCdEf0123456789",
  }),
});

export const DoneSchema = z.object({
  done: z.literal(true).describe("Always true"),
  count: z.number().int().optional().describe("How many it concerned, for bulk changes"),
}).describe("Done").openapi("Done");

export type AccountUser = z.infer<typeof AccountUserSchema>;
export type SignedIn = z.infer<typeof SignedInSchema>;
export type Me = z.infer<typeof MeSchema>;
export type SessionView = z.infer<typeof SessionSchema>;
export type AppPassword = z.infer<typeof AppPasswordSchema>;
export type CreatedAppPassword = z.infer<typeof CreatedAppPasswordSchema>;
export type Invitation = z.infer<typeof InvitationSchema>;
