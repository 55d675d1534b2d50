/**
 * The admin API's shapes of storage provider adapters (api/admin/adapters.ts): registration,
 * the secret shown once, rotation and the connection test's verdict.
 */
import { z } from "@hono/zod-openapi";
import { ADAPTER_NAME_PATTERN } from "../../../kv/adapters/adapters.ts";
import { OPTIONAL_OPERATIONS } from "../../../kv/adapters/operations.ts";

// ---------------------------------------------------------------- adapters

const AdapterOperationSchema = z.enum(OPTIONAL_OPERATIONS);
export type AdapterOperation = z.infer<typeof AdapterOperationSchema>;

export const AdapterSchema = z.object({
  name: z.string().describe("The adapter's name, sent by the host as X-Doc-Storage-Adapter")
    .openapi({ example: "office" }),
  userSeq: z.number().int().describe("The user whose drive the adapter serves").openapi({
    example: 1,
  }),
  /** null: the whole drive of userSeq is the root. */
  folderSeq: z.number().int().nullable().describe(
    "The folder that is the adapter's root; null: the whole drive of userSeq",
  ),
  operations: z.array(AdapterOperationSchema).describe(
    "The optional operations the adapter offers",
  ),
  readOnly: z.boolean().describe("Whether every write is refused"),
  createdAt: z.string().describe("When it was registered, ISO 8601"),
  secretUpdatedAt: z.string().describe("When its secret was last set, ISO 8601"),
});
export type Adapter = z.infer<typeof AdapterSchema>;

/** The answer to registering an adapter: its record and, this once, its secret. */
export const CreatedAdapterSchema = AdapterSchema.extend({
  secret: z.string().describe("The shared secret, shown this once: configure it in the host"),
});
export type CreatedAdapter = z.infer<typeof CreatedAdapterSchema>;

export const RotatedSecretSchema = z.object({
  name: z.string().describe("The adapter's name"),
  secret: z.string().describe("The new secret, shown this once"),
});
export type RotatedSecret = z.infer<typeof RotatedSecretSchema>;

const Secret = z.string().min(1, "must not be empty");

/** What ADAPTER_NAME_PATTERN allows, for messages (the body field and the path parameter). */
export const ADAPTER_NAME_RULE =
  "1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit";

export const CreateAdapterBody = z.object({
  name: z.string().regex(ADAPTER_NAME_PATTERN, ADAPTER_NAME_RULE).describe(
    `The adapter's name: ${ADAPTER_NAME_RULE}`,
  ).openapi({ example: "office" }),
  secret: Secret.optional().describe(
    "The shared secret, at least 32 bytes; omitted: one is generated",
  ),
  userSeq: z.number().int().positive().describe("The user whose drive the adapter serves").openapi({
    example: 1,
  }),
  folderSeq: z.number().int().positive().nullish().describe(
    "A folder of that user as the root; omitted or null: the whole drive",
  ),
  operations: z.array(AdapterOperationSchema).optional().describe(
    "Optional operations to offer; omitted: all",
  ),
  readOnly: z.boolean().optional().describe("Refuse every write; default false"),
}).strict();
export type NewAdapter = z.input<typeof CreateAdapterBody>;

export const RotateSecretBody = z.object({
  secret: Secret.optional().describe("The new secret, at least 32 bytes; omitted: one is generated")
    .openapi({ example: "a-long-random-secret-of-at-least-32-bytes" }),
}).strict();

export const ConnectionTestBody = z.object({
  baseUrl: z.string().optional().describe("The provider's base URL; omitted: DRIVE_PUBLIC_URL")
    .openapi({ example: "https://drive.example.com" }),
}).strict();

/** The connection test's verdict: a signed list of the adapter's root, checked as a host would. */
export const ConnectionTestSchema = z.object({
  ok: z.boolean().describe("Whether the provider answered as the protocol asks"),
  /** null: no HTTP answer at all (network error, timeout). */
  status: z.number().int().nullable().describe(
    "The HTTP status; null: no answer at all (network error, timeout)",
  ),
  durationMs: z.number().describe("How long the request took"),
  /** The entries the provider listed, when it did. */
  entries: z.array(z.unknown()).optional().describe("The entries the provider listed, when it did"),
  /** Each rule of the protocol the answer broke, in words. */
  problems: z.array(z.string()).describe("Each rule of the protocol the answer broke, in words"),
  /** Set when the provider validly answered that it does not support list. */
  unsupported: z.boolean().optional().describe(
    "Set when the provider validly answered that it does not support list",
  ),
  notice: z.string().optional().describe("A remark on a working connection"),
});
export type ConnectionTest = z.infer<typeof ConnectionTestSchema>;
