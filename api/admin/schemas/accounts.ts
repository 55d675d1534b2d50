/** Shapes of the admin API's sign-in controls: invitation and reset links, the admin role. */
import { z } from "@hono/zod-openapi";
import { INVITATION_KINDS } from "../../../kv/identity/invitations.ts";

export const CreateInvitationBody = z.object({
  kind: z.enum(INVITATION_KINDS).default("invitation").describe(
    "invitation: a first password; reset: a new one (both end the user's sessions when used)",
  ).openapi({ example: "invitation" }),
}).strict();

export const CreatedInvitationSchema = z.object({
  userSeq: z.number().int().describe("The user the link is for").openapi({ example: 1 }),
  kind: z.enum(INVITATION_KINDS).describe("A first password, or a reset"),
  url: z.string().describe(
    "The one-time link to hand the user, shown this once (the token is in its fragment)",
  ),
  expiresAt: z.string().describe("Until when it works, ISO 8601 (DRIVE_INVITATION_TTL_S)"),
});
export type CreatedInvitation = z.infer<typeof CreatedInvitationSchema>;

export const AdminRoleSchema = z.object({
  userSeq: z.number().int().describe("The user").openapi({ example: 1 }),
  admin: z.boolean().describe("Whether the user now holds the admin role"),
});
export type AdminRole = z.infer<typeof AdminRoleSchema>;
