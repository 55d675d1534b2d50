/**
 * zod schemas shared by several route modules (mostly of the external API), and the views that
 * fill them.
 */
import { z } from "@hono/zod-openapi";
import { optionalSeq, queryParam, seqParam } from "./openapi.ts";
import type { Permissions } from "../../kv/sharing/authorize.ts";
import { type Resource, toIso } from "../../kv/tree/resources.ts";

/** An answer that is a list: `{ items }`. */
export const itemsOf = <T extends z.ZodTypeAny>(item: T) =>
  z.object({ items: z.array(item).describe("The items") });

/** The three kinds of share, in the order the API lists them. */
export const ShareTypeSchema = z.enum(["SPECIFIC_USERS", "ORG_LINK", "PUBLIC_LINK"]);

export const PermissionsSchema = z.object({
  canView: z.boolean().describe("May see it"),
  canEdit: z.boolean().describe("May change it (and delete it)"),
  canDownload: z.boolean().describe("May download it"),
  canUpload: z.boolean().describe("May upload into it"),
  canShare: z.boolean().describe("May share it"),
  canDelete: z.boolean().describe("May move it to the trash"),
}).openapi("Permissions", { description: "What the caller may do with the resource" });

export const ResourceItemSchema = z.object({
  resourceSeq: z.number().int().describe("The file or folder's seq"),
  name: z.string().describe("The file or folder's name"),
  type: z.enum(["FILE", "FOLDER"]).describe("FILE or FOLDER"),
  size: z.number().int().openapi({ description: "Bytes of the current content; 0 for folders" }),
  contentType: z.string().nullable().describe("The file's media type; null for folders"),
  parentSeq: z.number().int().nullable().openapi({
    description: "Parent folder seq; null at the drive root",
  }),
  ownerSeq: z.number().int().describe("The owner's user seq"),
  version: z.number().int().openapi({
    description: "Content version, increases on every content change",
  }),
  sha256: z.string().nullable().describe("SHA-256 of the content, hex"),
  createdAt: z.string().openapi({ format: "date-time" }).describe("Created, ISO 8601"),
  updatedAt: z.string().openapi({ format: "date-time" }).describe("Last change, ISO 8601"),
  permissions: PermissionsSchema.optional().describe("What the caller may do"),
}).openapi("ResourceItem", { description: "A file or folder" });

type ResourceItem = z.infer<typeof ResourceItemSchema>;

export function toResourceItem(r: Resource, permissions?: Permissions): ResourceItem {
  return {
    resourceSeq: r.rs,
    name: r.name,
    type: r.type,
    size: r.size,
    contentType: r.mime,
    parentSeq: r.parentRs,
    ownerSeq: r.ownerSeq,
    version: r.version,
    sha256: r.sha256,
    createdAt: toIso(r.createdAt),
    updatedAt: toIso(r.updatedAt),
    ...(permissions ? { permissions } : {}),
  };
}

export const NameField = (name: string) =>
  z.string({ error: `${name} is required and must be a string` }).openapi({
    // Code spans: Markdown would take a bare backslash for an escape and drop it.
    description: "1 to 255 characters; no `/`, `\\` or control characters; not `.` or `..`",
    example: "Reports",
  });

/**
 * The `{resourceSeq}` path parameter of resource endpoints, whose example names a resource of the
 * examples' world (the drive document's description; tests/drive/openapi_examples_test.ts).
 */
export const rsParams = (example: number) =>
  z.object({ resourceSeq: seqParam("resourceSeq").openapi({ example }) });
/** `{resourceSeq}` with folder 1 "Reports" as its example. */
export const RsParams = rsParams(1);
/** `{resourceSeq}` with file 2 "Q1 report.docx" as its example. */
export const FileRsParams = rsParams(2);

/** `?ss=`: the owner's user seq when the resource is shared with the caller. */
export const SsQuery = z.object({
  ss: optionalSeq("Owner's user seq when the resource is shared with the caller").openapi(
    queryParam("ss"),
  ),
});

/** `data` of create folder, upload and copy: the new resource and the name it got. */
export const CreatedResourceSchema = z.object({
  resourceSeq: z.number().int().describe("The file or folder's seq"),
  resourceName: z.string().describe("The name it got (may differ after a name clash)"),
}).openapi("CreatedResource", { description: "The new file or folder and the name it got" });

export function toCreatedResource(r: Resource): z.infer<typeof CreatedResourceSchema> {
  return { resourceSeq: r.rs, resourceName: r.name };
}

/** `data` of file and folder delete: what went to the trash, and when. */
export const TrashedResourceSchema = z.object({
  resourceSeq: z.number().int().describe("The trashed file or folder"),
  trashedAt: z.string().openapi({ format: "date-time" }).describe(
    "When it went to the trash, ISO 8601",
  ),
}).openapi("TrashedResource", { description: "What went to the trash, and when" });

/** `r` just moved to the trash. */
export function toTrashedResource(r: Resource): z.infer<typeof TrashedResourceSchema> {
  return { resourceSeq: r.rs, trashedAt: toIso(r.trashedAt!) };
}
