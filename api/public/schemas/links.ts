/**
 * The public share-link API's shapes (the routes: api/public/links.ts): what a link shows of a file or
 * folder, its permissions, the unlock body and grant, and a page of a shared folder.
 */
import { z } from "@hono/zod-openapi";
import type { Resource } from "../../../kv/tree/resources.ts";
import { queryParam } from "../../http/openapi.ts";
import { ShareTypeSchema, toResourceItem } from "../../http/schemas.ts";

/** What a link shows of a resource: the fields of its item an anonymous visitor needs. */
export function publicItem(r: Resource) {
  const { resourceSeq, name, type, size, contentType, updatedAt } = toResourceItem(r);
  return { resourceSeq, name, type, size, contentType, updatedAt };
}

export const PublicItemSchema = z.object({
  resourceSeq: z.number().int().describe("The file or folder's seq").openapi({ example: 12 }),
  name: z.string().describe("Its name").openapi({ example: "Q1 report.pdf" }),
  type: z.enum(["FILE", "FOLDER"]).describe("File or folder"),
  size: z.number().int().describe("Bytes of the current content; 0 for folders"),
  contentType: z.string().nullable().describe("The file's media type; null for folders"),
  updatedAt: z.string().describe("Last change, ISO 8601").openapi({ format: "date-time" }),
}).openapi("PublicItem", { description: "What a link shows of a file or folder" });

export const LinkPermissionsSchema = z.object({
  canView: z.boolean().describe("The link shows the resource"),
  canDownload: z.boolean().describe("Files may be downloaded"),
  canEdit: z.boolean().describe("The link grants editing"),
  canUpload: z.boolean().describe("The link grants uploading into the folder"),
}).openapi("LinkPermissions", { description: "What the link allows" });

export const LinkInfoSchema = z.object({
  shareType: ShareTypeSchema.describe("The share's type (PUBLIC_LINK here)"),
  passwordRequired: z.boolean().describe(
    "The link is password-protected: unlock it with POST /links/{token}/access first",
  ),
  expireDate: z.string().nullable().describe("When the link stops working; null: never"),
  fileRequest: z.boolean().describe(
    "An upload-only file request: the only thing it offers is POST /links/{token}/uploads",
  ),
  resource: PublicItemSchema.optional().describe("The shared file or folder, once unlocked"),
  permissions: LinkPermissionsSchema.optional().describe("What it allows, once unlocked"),
}).openapi("LinkInfo", { description: "A link's kind, and its resource once it is unlocked" });

export const AccessBody = z.object({
  password: z.string().max(128).describe("The link's password").openapi({ example: "s3cret" }),
}).strict();

export const AccessGrantSchema = z.object({
  accessToken: z.string().describe("Send as X-Link-Access (or ?access=) on the next requests"),
  expiresAt: z.string().describe("When the access token expires, ISO 8601"),
}).openapi("LinkAccess", { description: "An access token for a password-protected link" });

export const ItemsQuery = z.object({
  folderSeq: z.coerce.number().int().positive().optional().openapi({
    ...queryParam("folderSeq"),
    description: "A folder inside the shared folder; omitted = the shared folder itself",
    example: 12,
  }),
  cursor: z.string().max(500).optional().openapi({
    ...queryParam("cursor"),
    description: "The cursor of the previous page",
    example: "eyJuIjoiYiJ9",
  }),
});

export const ItemsPageSchema = z.object({
  folder: PublicItemSchema.describe("The folder listed"),
  path: z.array(z.object({
    resourceSeq: z.number().int().describe("A folder's seq"),
    name: z.string().describe("Its name"),
  })).describe("The folders from the shared folder down to this one"),
  items: z.array(PublicItemSchema).describe("The folder's files and folders, by name"),
  cursor: z.string().nullable().describe("Send as cursor for the next page; null: no more"),
}).openapi("LinkFolderPage", { description: "One page of a shared folder" });
