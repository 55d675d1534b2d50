/**
 * POST /files: streamed multipart upload as a new file (st=duplicate), a new version of `rs`
 * (st=version) or a replacement of it (st=overwrite). Fields before the file part decide the
 * target, permissions and quota before any byte is stored; the bytes go straight to the blob
 * store and one KV commit makes them visible (kv/tree/content.ts).
 */
import { z } from "@hono/zod-openapi";
import { authorizeFolderTarget, authorizeResourceAccess } from "../../kv/sharing/authorize.ts";
import type { Deps } from "../../kv/deps.ts";
import { freeQuota, putContent, storeNewFile } from "../../kv/tree/content.ts";
import { fail } from "../../kv/errors.ts";
import { validateName } from "../../kv/tree/resources.ts";
import { type ApiEnv, requireWrite } from "../http/auth.ts";
import { ok } from "../http/envelope.ts";
import { openMultipartUpload } from "../http/multipart.ts";
import { errorResponses, jsonOk, newOpenApiApp } from "../http/openapi.ts";
import { validValue } from "../http/validate.ts";
import { CreatedResourceSchema, toCreatedResource } from "../http/schemas.ts";

/** Form fields are strings; "" and "null" mean "not given" (ss is null for the own drive). */
const formSeq = (name: string, description: string) =>
  z.preprocess(
    (v) => (v === "" || v === "null" ? undefined : v),
    z.string().regex(/^[1-9]\d{0,15}$/, { error: `${name} must be a positive integer` })
      .transform(Number).optional(),
  ).openapi({ type: "integer", description });

const UploadFields = z.object({
  pfs: formSeq("pfs", "Parent folder seq; omitted = the caller's drive root"),
  ss: formSeq("ss", "Sharing user's seq when uploading into a folder shared with the caller"),
  st: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z.enum(["duplicate", "version", "overwrite"], {
      error: "st must be duplicate, version or overwrite",
    }).default("duplicate"),
  ),
  rs: formSeq("rs", "The file to add a version to or overwrite (st=version|overwrite)"),
});

const UploadForm = z.object({
  pfs: z.string().optional().openapi({ description: "Parent folder seq; omitted = drive root" }),
  ss: z.string().optional().openapi({ description: "Sharing user's seq (shared folder)" }),
  st: z.enum(["duplicate", "version", "overwrite"]).optional().openapi({
    description: "duplicate (default): new file, 'name (1).ext' on a name clash; version: new " +
      "version of rs; overwrite: replace rs's content",
  }),
  rs: z.string().optional().openapi({ description: "Target file (st=version|overwrite)" }),
  file: z.string().openapi({
    format: "binary",
    description: "The file; must be the LAST part (fields after it are refused)",
  }),
}).openapi("UploadForm");

function refuseOverQuota(minFileSize: number | null, room: number) {
  if (minFileSize !== null && minFileSize > room) {
    fail(
      "RESOURCE_015",
      `The file has at least ${minFileSize} bytes but only ${room} bytes of quota are free`,
    );
  }
}

export function filesUploadApi(d: Deps) {
  const app = newOpenApiApp<ApiEnv>();

  app.post("/files", requireWrite, async (c) => {
    const caller = c.get("caller");
    const upload = await openMultipartUpload(c.req.raw);
    try {
      const fields = validValue(UploadFields, upload.fields);
      const base = {
        body: upload.file.body,
        actorSeq: caller.userSeq,
        quotaCode: "RESOURCE_015" as const,
      };
      if (fields.st === "duplicate") {
        const name = validateName(upload.file.filename ?? "", "filename");
        const target = await authorizeFolderTarget(d.kv, caller, fields, "upload");
        refuseOverQuota(upload.minFileSize, await freeQuota(d, target.ownerSeq));
        const file = await storeNewFile(d, {
          ...base,
          ownerSeq: target.ownerSeq,
          parentRs: target.parentRs,
          name,
          onConflict: "rename",
          reason: "upload",
        });
        return ok(c, toCreatedResource(file), 201);
      }
      if (fields.rs === undefined) {
        fail("RESOURCE_016", `rs is required when st is ${fields.st}`, "rs");
      }
      const { resource } = await authorizeResourceAccess(d.kv, caller, {
        rs: fields.rs,
        ss: fields.ss,
        field: "rs",
        type: "FILE",
      }, "edit");
      const credit = fields.st === "overwrite" ? resource.size : 0;
      refuseOverQuota(upload.minFileSize, (await freeQuota(d, resource.ownerSeq)) + credit);
      const file = await putContent(d, {
        ...base,
        rs: resource.rs,
        mode: fields.st,
        reason: fields.st,
        lockOwner: null,
      });
      return ok(c, toCreatedResource(file), 201);
    } finally {
      await upload.close();
    }
  });

  app.openAPIRegistry.registerPath({
    method: "post",
    path: "/files",
    tags: ["Files"],
    summary: "Upload a file (streamed multipart/form-data)",
    description: "Text fields must come before the `file` part. The body is streamed to storage; " +
      "quota is checked from Content-Length before reading and again when the file is committed.",
    request: {
      body: { required: true, content: { "multipart/form-data": { schema: UploadForm } } },
    },
    responses: {
      ...jsonOk(CreatedResourceSchema, "Created", 201),
      ...errorResponses(
        "AUTH_003",
        "REQUEST_003",
        "REQUEST_006",
        "RESOURCE_002",
        "RESOURCE_004",
        "RESOURCE_005",
        "RESOURCE_006",
        "RESOURCE_008",
        "RESOURCE_010",
        "RESOURCE_013",
        "RESOURCE_015",
        "RESOURCE_016",
        "PERMISSION_002",
        "PERMISSION_004",
      ),
    },
  });

  return app;
}
