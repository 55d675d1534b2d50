/**
 * POST /files: streamed multipart upload as a new file (st=duplicate), a new version of `rs`
 * (st=version) or a replacement of it (st=overwrite). Fields before the file part decide the
 * target, permissions and quota before any byte is stored; the bytes go straight to the blob
 * store and one KV commit makes them visible (kv/tree/content.ts).
 */
import { z } from "@hono/zod-openapi";
import type { Deps } from "../../kv/deps.ts";
import type { ApiEnv } from "../http/auth.ts";
import { ok } from "../http/envelope.ts";
import { openMultipartUpload } from "../http/multipart.ts";
import { bodyReadByHandler, newOpenApiApp } from "../http/openapi.ts";
import { created, driveRoutes } from "../http/write_routes.ts";
import { validValue } from "../http/validate.ts";
import { CreatedResourceSchema, toCreatedResource } from "../http/schemas.ts";
import {
  commitUpload,
  PLACE_UPLOAD_ERRORS,
  placeUpload,
  textSeq,
  UploadModeSchema,
} from "../http/upload_target.ts";

const { write } = driveRoutes("Files");

/** Form fields are strings; "" and "null" mean "not given" (ss is null for the own drive). */
const formSeq = (name: string) =>
  z.preprocess((v) => (v === "" || v === "null" ? undefined : v), textSeq(name));

const UploadFields = z.object({
  pfs: formSeq("pfs"),
  ss: formSeq("ss"),
  st: z.preprocess((v) => (v === "" ? undefined : v), UploadModeSchema),
  rs: formSeq("rs"),
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
}).openapi("UploadForm", {
  description: "The multipart form of an upload: fields first, then the file",
});

const uploadRoute = write("post", "/files", "uploadFile", {
  summary: "Upload a file (streamed multipart/form-data)",
  description: "Text fields must come before the `file` part. The body is streamed to storage; " +
    "quota is checked from Content-Length before reading and again when the file is committed.",
  request: {
    body: { required: true, content: { "multipart/form-data": { schema: UploadForm } } },
  },
  responses: created(
    CreatedResourceSchema,
    "Created",
    "REQUEST_003",
    "REQUEST_006",
    "RESOURCE_013",
    ...PLACE_UPLOAD_ERRORS,
  ),
});

export function filesUploadApi(d: Deps) {
  const app = newOpenApiApp<ApiEnv>();

  // The multipart body streams to storage as it is parsed (api/http/multipart.ts).
  app.openapi(bodyReadByHandler(app, uploadRoute), async (c) => {
    const caller = c.get("caller");
    const upload = await openMultipartUpload(c.req.raw);
    try {
      const fields = validValue(UploadFields, upload.fields);
      const placed = await placeUpload(
        d,
        caller,
        { ...fields, filename: upload.file.filename },
        { bytes: upload.minFileSize, what: "The file has at least" },
      );
      const file = await commitUpload(d, caller, placed, { body: upload.file.body });
      return ok(c, toCreatedResource(file), 201);
    } finally {
      await upload.close();
    }
  });

  return app;
}
