/**
 * The parts of a stored event (kv/events/log.ts) as the APIs show them: who acted, the resource,
 * where it was before, the share, small facts. The change feed (api/external/changes.ts) and the
 * activity log (api/admin/schemas.ts) build their entries from these, so the two views of one
 * event cannot disagree about a field.
 */
import { z } from "@hono/zod-openapi";

/** Who made the change or the read. */
export const EventActorSchema = z.object({
  userSeq: z.number().int().nullable().describe(
    "The user acted for; null: the admin token or an anonymous link visitor",
  ),
  keyId: z.string().optional().describe("The API key used, when one was"),
  adapter: z.string().optional().describe("The storage provider adapter, when one was used"),
  link: z.string().optional().describe("A share link's id (12 hex digits of its token's hash)"),
  admin: z.literal(true).optional().describe("Through the admin API"),
  adminSeq: z.number().int().optional().describe(
    "The administrator by name (a user with the admin role signed in); absent: the admin token",
  ),
  session: z.string().optional().describe(
    "A signed-in browser session (12 hex digits of its id), when one was used",
  ),
});

/** The file or folder an event concerns, as it was after the event (before it, for purged). */
export const EventResourceSchema = z.object({
  rs: z.number().int().describe("The resource seq"),
  type: z.enum(["FILE", "FOLDER"]).describe("File or folder"),
  name: z.string().describe("Its name after the event (before it, for purged)"),
  parentRs: z.number().int().nullable().describe("Its folder; null: the owner's drive root"),
  ownerSeq: z.number().int().describe("Whose drive it is in (send it as ss to act on it)"),
  version: z.number().int().optional().describe("Files: the content version"),
  size: z.number().int().optional().describe("Files: bytes of the current content"),
});

/** renamed and moved: where the resource was. */
export const EventBeforeSchema = z.object({
  name: z.string().describe("The name before"),
  parentRs: z.number().int().nullable().describe("The folder before"),
  ownerSeq: z.number().int().describe("The drive before"),
});

/** Share, link and access events: the share and whose access it changed. */
export const EventShareSchema = z.object({
  shareSeq: z.number().int().describe("The share"),
  type: z.string().describe("SPECIFIC_USERS, ORG_LINK or PUBLIC_LINK"),
  gained: z.array(z.number().int()).optional().describe("Users who gained access"),
  lost: z.array(z.number().int()).optional().describe("Users who lost access"),
  kept: z.array(z.number().int()).optional().describe(
    "share_changed, recipients_changed: recipients who had access and keep it",
  ),
  changed: z.array(z.number().int()).optional().describe(
    "Those of kept whose permissions or whose share's expiry changed (read the share again)",
  ),
});

/** Small facts of an event (`description` says which, per view). */
export const eventDetailSchema = (description: string) =>
  z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional()
    .describe(description);
