/**
 * The admin API's shapes of deleting a user or a tenant for good and of transferring a drive
 * (api/admin/lifecycle.ts; kv/lifecycle/). Like api/admin/schemas/identity.ts, the routes validate with
 * them and the console imports their types.
 */
import { z } from "@hono/zod-openapi";

/** ?confirm= of a deletion: the user's accountId (any case) or the tenant's exact name. */
export const ConfirmQuery = z.object({
  confirm: z.string({ error: "confirm is required: repeat the accountId or tenant name" })
    .min(1, "confirm is required: repeat the accountId or tenant name").max(254)
    .describe(
      "Repeats what is deleted, so a mistyped id deletes nothing: the user's accountId " +
        "(case-insensitive) or the tenant's name (exact)",
    ).openapi({ param: { name: "confirm", in: "query" }, example: "alice" }),
});

/** DELETE /users/{userSeq}'s answer. */
export const UserDeletionSchema = z.object({
  userSeq: z.number().int().describe("The deleted user's seq (never reused)"),
  accountId: z.string().describe("The deleted user's accountId (now free again)"),
  resources: z.number().int().describe("Files and folders deleted, trash included"),
  freedBytes: z.number().int().describe("Bytes of stored versions freed (their usage before)"),
  sharesRemoved: z.number().int().describe("Shares they had made (links stop resolving)"),
  keysDeleted: z.number().int().describe("API keys deleted"),
  adaptersDeleted: z.number().int().describe("Storage provider adapters bound to them, deleted"),
}).openapi("UserDeletion", { description: "What deleting a user removed" });
export type UserDeletion = z.infer<typeof UserDeletionSchema>;

/** DELETE /tenants/{id}'s answer. */
export const TenantDeletionSchema = z.object({
  tenantId: z.number().int().describe("The deleted tenant's id"),
  name: z.string().describe("The deleted tenant's name"),
  users: z.array(UserDeletionSchema).describe("Each user deleted with it"),
}).openapi("TenantDeletion", { description: "What deleting a tenant removed, user by user" });
export type TenantDeletion = z.infer<typeof TenantDeletionSchema>;

export const TransferBody = z.object({
  toUserSeq: z.number({ error: "toUserSeq must be a user seq" }).int().positive()
    .describe("The user receiving the drive: another user of the same tenant")
    .openapi({ example: 2 }),
}).strict();

/** POST /users/{userSeq}/transfer's answer. */
export const DriveTransferSchema = z.object({
  fromUserSeq: z.number().int().describe("Whose drive was transferred (kept, now empty)"),
  toUserSeq: z.number().int().describe("Who received it"),
  folderRs: z.number().int().describe("The folder in the receiver's root holding the drive"),
  folderName: z.string().describe(
    'Its name: the old user\'s accountId, or "accountId (n)" when that was taken',
  ),
  resources: z.number().int().describe("Files and folders moved, trash included"),
  movedBytes: z.number().int().describe("Bytes of stored versions moved between the usages"),
  sharesRemoved: z.number().int().describe("Shares the old user had made (removed)"),
}).openapi("DriveTransfer", { description: "What a drive transfer moved" });
export type DriveTransfer = z.infer<typeof DriveTransferSchema>;
