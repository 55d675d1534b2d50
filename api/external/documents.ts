/**
 * Create a document from a built-in template (Word, spreadsheet, presentation or note): the
 * shipped template file (kv/tree/templates.ts) is streamed into the blob store like an upload.
 */
import { z } from "@hono/zod-openapi";
import { authorizeFolderTarget } from "../../kv/sharing/authorize.ts";
import type { Deps } from "../../kv/deps.ts";
import { storeNewFile } from "../../kv/tree/content.ts";
import { fail, isDriveError } from "../../kv/errors.ts";
import { pickTemplateLanguage, TEMPLATE_TYPES, templateFile } from "../../kv/tree/templates.ts";
import type { ApiEnv } from "../http/auth.ts";
import { ok } from "../http/envelope.ts";
import { bodySeq, jsonBody, newOpenApiApp } from "../http/openapi.ts";
import { created, driveRoutes } from "../http/write_routes.ts";

const { write } = driveRoutes("Documents");

const CreateDocumentBody = z.object({
  tt: z.enum(TEMPLATE_TYPES, { error: "tt must be word, excel, ppt or note" }).openapi({
    description: "word (.docx), excel (.xlsx), ppt (.pptx) or note (.txt)",
    example: "word",
  }),
  pfs: bodySeq("Folder to create it in; omitted = drive root. Required when ss is sent."),
  ss: bodySeq("Owner's user seq when creating inside a folder shared with the caller"),
}).openapi("CreateDocumentRequest", { description: "A new empty office document" });

const createDocumentRoute = write("post", "/documents", "createDocument", {
  summary: "Create an empty document from a built-in template (Korean or English)",
  request: {
    headers: z.object({
      "accept-language": z.string().optional().openapi({
        description: "Korean (ko, ko-KR, ...) or English; q-values are honoured; default English",
        example: "ko-KR,ko;q=0.9,en;q=0.8",
      }),
    }),
    body: jsonBody(CreateDocumentBody, true, { tt: "word", pfs: 1 }),
  },
  responses: created(
    z.object({
      resourceSeq: z.number().int().describe("The new document"),
      userSeq: z.number().int().openapi({ description: "Owner of the new document" }),
    }),
    "Created",
    "QUOTA_003",
    "RESOURCE_002",
    "RESOURCE_005",
    "PERMISSION_002",
  ),
});

export function documentsApi(d: Deps) {
  const app = newOpenApiApp<ApiEnv>();

  app.openapi(createDocumentRoute, async (c) => {
    const body = c.req.valid("json");
    const caller = c.get("caller");
    let target;
    try {
      target = await authorizeFolderTarget(d.kv, caller, body, "upload");
    } catch (err) {
      // The spec answers every lack of access to the target folder with PERMISSION_002.
      if (isDriveError(err, "PERMISSION_004")) fail("PERMISSION_002", err.message, "pfs");
      throw err;
    }
    const language = pickTemplateLanguage(c.req.header("accept-language"));
    const template = await templateFile(body.tt, language);
    const doc = await storeNewFile(d, {
      ownerSeq: target.ownerSeq,
      parentRs: target.parentRs,
      name: template.name,
      body: template.body,
      expectedSize: template.size,
      actorSeq: caller.userSeq,
      onConflict: "rename",
      quotaCode: "QUOTA_003",
      reason: "template",
    });
    return ok(c, { resourceSeq: doc.rs, userSeq: doc.ownerSeq }, 201);
  });

  return app;
}
