/**
 * The rows of the web app's Starred and Recent views (api/external/starred.ts): a file or folder
 * as the folder listing shows it (ownerSeq is the `ss` to send for another user's), with what
 * the caller may do and when it was starred or last changed.
 */
import { z } from "@hono/zod-openapi";
import type { Access } from "../../../kv/sharing/authorize.ts";
import { toIso } from "../../../kv/tree/resources.ts";
import { PermissionsSchema, ResourceItemSchema, toResourceItem } from "../../http/schemas.ts";

export const StarredItemSchema = ResourceItemSchema.extend({
  permissions: PermissionsSchema.describe("What the caller may do"),
  isOwner: z.boolean().describe("Whether it is the caller's own (else send ownerSeq as ss)"),
  starredAt: z.string().openapi({ format: "date-time" }).describe("When the caller starred it"),
}).openapi("StarredItem", { description: "A file or folder the caller starred" });

export const RecentItemSchema = ResourceItemSchema.extend({
  permissions: PermissionsSchema.describe("What the caller may do"),
  isOwner: z.boolean().describe("Whether it is the caller's own (else send ownerSeq as ss)"),
  changedAt: z.string().openapi({ format: "date-time" }).describe(
    "When its newest change (upload, new version, copy, rename, move, restore) happened",
  ),
}).openapi("RecentItem", { description: "A file the caller or someone else changed lately" });

/** The listing row of what `access` reaches. */
export function accessRow(access: Access) {
  return {
    ...toResourceItem(access.resource),
    permissions: access.permissions,
    isOwner: access.isOwner,
  };
}

export const starredRow = (access: Access, starredAt: number) => ({
  ...accessRow(access),
  starredAt: toIso(starredAt),
});

export const recentRow = (access: Access, changedAt: number) => ({
  ...accessRow(access),
  changedAt: toIso(changedAt),
});
