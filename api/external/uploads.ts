/**
 * Resumable uploads, tus 1.0.0 with the creation, creation-with-upload, termination, checksum
 * (sha256) and expiration extensions, at /uploads (docs/api.md "Resumable uploads (tus)").
 * Upload-Metadata carries `filename` and the multipart upload's fields (pfs, ss, st, rs), checked
 * with the same rules and codes as POST /files; the final PATCH commits the file as that upload
 * does (kv/tree/content.ts), and GET /uploads/{id} then tells what it made. The sessions and the
 * concurrency rules are in kv/tree/uploads.ts, writing their bytes in kv/tree/upload_append.ts.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { BlobInfo } from "../../blobs/store.ts";
import type { Deps } from "../../kv/deps.ts";
import { fail, isDriveError } from "../../kv/errors.ts";
import { assertNotLockedByOther, getLock } from "../../kv/tree/locks.ts";
import { type Resource, toIso } from "../../kv/tree/resources.ts";
import { appendToUpload, UploadHashes } from "../../kv/tree/upload_append.ts";
import {
  createUpload,
  readUpload,
  terminateUpload,
  type Upload,
  uploadStatus,
  type UploadTarget,
} from "../../kv/tree/uploads.ts";
import { type ApiCaller, type ApiEnv, requireWrite } from "../http/auth.ts";
import { ok } from "../http/envelope.ts";
import { errorResponses, jsonAnswers, newOpenApiApp, servedWithHead } from "../http/openapi.ts";
import {
  byteCount,
  ChecksumHeader,
  LengthHeader,
  MetadataHeader,
  OffsetHeader,
  offsetHeaders,
  parseUploadChecksum,
  parseUploadMetadata,
  TUS_BODY_TYPE,
  TUS_CHECKSUM_ALGORITHMS,
  TUS_EXTENSIONS,
  TUS_VERSION,
  tusBody,
  TusHeaders,
  TusResumableHeader,
  tusVersion,
  UploadIdParams,
  UploadStatusSchema,
} from "../http/tus.ts";
import {
  commitUpload,
  PLACE_UPLOAD_ERRORS,
  placeUpload,
  textSeq,
  UploadModeSchema,
} from "../http/upload_target.ts";
import { validValue } from "../http/validate.ts";

/**
 * Seconds a client is asked to wait (Retry-After) when the final commit was deferred (503
 * SERVICE_002: it kept losing to concurrent changes, or storage was busy). The upload is kept.
 */
const RETRY_AFTER_S = 1;

/** Rethrows `err`, with Retry-After on a 503: the request is worth repeating as it was. */
function rethrow(c: Context<ApiEnv>, err: unknown): never {
  if (isDriveError(err, "SERVICE_002")) c.header("Retry-After", String(RETRY_AFTER_S));
  throw err;
}

/** The multipart upload's fields (api/external/files_upload.ts), from Upload-Metadata. */
const TargetFields = z.object({
  pfs: textSeq("pfs"),
  ss: textSeq("ss"),
  st: UploadModeSchema,
  rs: textSeq("rs"),
  filename: z.string().optional(),
});

/** Where the file goes and whether `length` more bytes fit, with POST /files's rules and codes. */
async function checkTarget(d: Deps, caller: ApiCaller, target: UploadTarget, length: number) {
  const placed = await placeUpload(d, caller, target, { bytes: length, what: "The upload has" });
  // The commit refuses a document someone else locked: say so before the bytes are sent.
  if (placed.st !== "duplicate") assertNotLockedByOther(await getLock(d.kv, placed.rs), null);
}

/** The final commit: exactly POST /files's, with the upload's completion inside it. */
async function commitFile(
  d: Deps,
  caller: ApiCaller,
  upload: Upload,
  blob: BlobInfo,
  extendCommit: (op: Deno.AtomicOperation, file: Resource) => Promise<void>,
): Promise<Resource> {
  // Authorized again: the caller's access may have changed since the upload began.
  const placed = await placeUpload(d, caller, upload.target, null);
  return await commitUpload(d, caller, placed, {
    body: ReadableStream.from<Uint8Array>([]),
    blob,
    extendCommit,
  });
}

const optionsRoute = createRoute({
  method: "options",
  path: "/uploads",
  operationId: "tusOptions",
  summary: "tus: the protocol version, extensions and limits this server offers",
  tags: ["Uploads (tus)"],
  responses: {
    204: { description: "What the server supports, in the Tus-* headers", headers: TusHeaders },
    ...errorResponses(),
  },
});

const createUploadRoute = createRoute({
  method: "post",
  path: "/uploads",
  operationId: "tusCreateUpload",
  summary: "tus creation (and creation-with-upload): start a resumable upload",
  description: "Upload-Metadata carries `filename` and the multipart upload's fields `pfs`, " +
    "`ss`, `st` (duplicate, version, overwrite) and `rs`, base64-encoded, with the rules and " +
    "error codes of POST /files. Quota is checked against Upload-Length now and charged when " +
    "the last byte arrives. A body (application/offset+octet-stream) is stored at offset 0.",
  tags: ["Uploads (tus)"],
  middleware: [requireWrite],
  request: {
    headers: z.object({
      "tus-resumable": TusResumableHeader,
      "upload-length": LengthHeader,
      // Required in the document: without a filename (or st and rs) no upload can be placed,
      // which the handler reports with POST /files's code.
      "upload-metadata": MetadataHeader.openapi({ param: { required: true } }),
      "upload-checksum": ChecksumHeader,
    }),
    body: {
      required: false,
      content: {
        [TUS_BODY_TYPE]: {
          schema: z.string().openapi({
            format: "binary",
            description: "The first bytes of the file (creation-with-upload)",
          }),
        },
      },
    },
  },
  responses: {
    201: {
      description: "Created; Location is the upload's URL, Upload-Offset the bytes stored",
      headers: z.object({
        Location: z.string().openapi({
          description: "The upload's URL (server-relative)",
          example: "/api/external/v1/uploads/6f1c0c1e9b8a4d3c8e2f7a6b5c4d3e2f",
        }),
        "Upload-Offset": z.string().openapi({ description: "Bytes stored", example: "0" }),
        "Upload-Expires": z.string().openapi({
          description: "When the unfinished upload and its bytes are removed (HTTP date)",
        }),
      }),
    },
    ...errorResponses(
      "AUTH_003",
      "REQUEST_003",
      "UPLOAD_005",
      "SERVICE_002",
      ...PLACE_UPLOAD_ERRORS,
    ),
  },
});

/** HEAD of the status route's path: served by its handler (servedWithHead). */
const headOperation = {
  operationId: "tusUploadOffset",
  summary: "tus: how many bytes of the upload are stored (where to resume)",
  tags: ["Uploads (tus)"],
  request: { params: UploadIdParams, headers: z.object({ "tus-resumable": TusResumableHeader }) },
  responses: {
    200: {
      description: "Upload-Offset, Upload-Length, Upload-Metadata and Upload-Expires; no body",
      headers: z.object({
        "Upload-Offset": OffsetHeader,
        "Upload-Length": LengthHeader,
        "Upload-Metadata": MetadataHeader,
        "Cache-Control": z.string().openapi({ description: "no-store", example: "no-store" }),
      }),
    },
    404: { description: "UPLOAD_001: no such upload of the caller" },
    410: { description: "UPLOAD_006: expired, or its final commit failed" },
    412: { description: "UPLOAD_005: Tus-Resumable missing or unsupported" },
  },
};

const patchRoute = createRoute({
  method: "patch",
  path: "/uploads/{uploadId}",
  operationId: "tusAppend",
  summary: "tus: append bytes at Upload-Offset; the last ones commit the file",
  description: "The bytes stored before a client goes away are kept (resume after them with " +
    "HEAD), unless the request carried Upload-Checksum; after a crash of the server HEAD tells " +
    "the bytes stored durably. The request that reaches Upload-Length commits the file as POST " +
    "/files does; GET /uploads/{uploadId} then gives its seq and name. When that commit keeps " +
    "losing to concurrent changes the answer is 503 (SERVICE_002) with Retry-After and the " +
    "upload is kept at its offset: sending the same last bytes again completes it.",
  tags: ["Uploads (tus)"],
  middleware: [requireWrite],
  request: {
    params: UploadIdParams,
    headers: z.object({
      "tus-resumable": TusResumableHeader,
      "upload-offset": OffsetHeader,
      "upload-checksum": ChecksumHeader,
    }),
    body: {
      required: true,
      content: {
        [TUS_BODY_TYPE]: {
          schema: z.string().openapi({ format: "binary", description: "The next bytes" }),
        },
      },
    },
  },
  responses: {
    204: {
      description: "Stored; Upload-Offset is the new offset",
      headers: z.object({ "Upload-Offset": OffsetHeader }),
    },
    ...errorResponses(
      "AUTH_003",
      "REQUEST_003",
      "REQUEST_006",
      "RESOURCE_002",
      "RESOURCE_003",
      "RESOURCE_010",
      "RESOURCE_015",
      "PERMISSION_002",
      "PERMISSION_004",
      "UPLOAD_001",
      "UPLOAD_002",
      "UPLOAD_003",
      "UPLOAD_004",
      "UPLOAD_005",
      "UPLOAD_006",
      "SERVICE_002",
    ),
  },
});

const deleteRoute = createRoute({
  method: "delete",
  path: "/uploads/{uploadId}",
  operationId: "tusTerminate",
  summary: "tus termination: end the upload and remove its bytes",
  tags: ["Uploads (tus)"],
  middleware: [requireWrite],
  request: { params: UploadIdParams, headers: z.object({ "tus-resumable": TusResumableHeader }) },
  responses: {
    204: { description: "Terminated" },
    ...errorResponses("AUTH_003", "UPLOAD_001", "UPLOAD_003", "UPLOAD_005"),
  },
});

const statusRoute = createRoute({
  method: "get",
  path: "/uploads/{uploadId}",
  operationId: "getUpload",
  summary: "The state of an upload, and the file it made once complete",
  tags: ["Uploads (tus)"],
  middleware: [requireWrite],
  request: { params: UploadIdParams },
  responses: jsonAnswers(UploadStatusSchema, "The upload", "AUTH_003", "UPLOAD_001"),
});

export function uploadsApi(d: Deps) {
  const app = newOpenApiApp<ApiEnv>();
  // This process's running SHA-256 of the uploads it serves (a cache; kv/tree/uploads.ts).
  const hashes = new UploadHashes();
  app.use("/uploads", tusVersion);
  app.use("/uploads/*", tusVersion);

  const append = (
    c: Context<ApiEnv>,
    id: string,
    offset: number,
    body: ReadableStream<Uint8Array> | null,
  ) => {
    const caller = c.get("caller");
    const declared = c.req.header("content-length");
    return appendToUpload(d, hashes, {
      id,
      userSeq: caller.userSeq,
      offset,
      contentLength: declared !== undefined && !c.req.header("transfer-encoding")
        ? byteCount(declared, "Content-Length")
        : null,
      body,
      checksum: parseUploadChecksum(c.req.header("upload-checksum")),
      precheck: (upload) => checkTarget(d, caller, upload.target, upload.length - upload.offset),
      commitFile: (upload, blob, extend) => commitFile(d, caller, upload, blob, extend),
    });
  };

  app.openapi(optionsRoute, (c) => {
    c.header("Tus-Version", TUS_VERSION);
    c.header("Tus-Extension", TUS_EXTENSIONS);
    c.header("Tus-Max-Size", String(d.config.uploadMaxBytes));
    c.header("Tus-Checksum-Algorithm", TUS_CHECKSUM_ALGORITHMS);
    return c.body(null, 204);
  });

  app.openapi(createUploadRoute, async (c) => {
    const caller = c.get("caller");
    if (c.req.header("upload-defer-length") !== undefined) {
      fail(
        "REQUEST_001",
        "Upload-Defer-Length is not supported: send Upload-Length",
        "Upload-Length",
      );
    }
    const length = byteCount(c.req.header("upload-length"), "Upload-Length");
    if (length === null) fail("REQUEST_001", "Upload-Length is required", "Upload-Length");
    if (length > d.config.uploadMaxBytes) {
      fail("REQUEST_002", `Upload-Length is over Tus-Max-Size (${d.config.uploadMaxBytes})`);
    }
    const rawMetadata = c.req.header("upload-metadata") ?? "";
    const fields = validValue(TargetFields, parseUploadMetadata(rawMetadata));
    const target: UploadTarget = { ...fields, filename: fields.filename ?? null };
    await checkTarget(d, caller, target, length);
    const body = tusBody(c, false);
    let upload = await createUpload(d, {
      userSeq: caller.userSeq,
      length,
      metadata: rawMetadata,
      target,
    });
    c.header("Location", `${c.req.path.replace(/\/+$/, "")}/${upload.id}`);
    if (body || length === 0) {
      try {
        upload = (await append(c, upload.id, 0, body)).upload;
      } catch (err) {
        // The upload exists: the client learns where to resume, unless its commit failed.
        upload = (await readUpload(d, upload.id, caller.userSeq)).value;
        if (upload.state === "failed" || length === 0) rethrow(c, err);
      }
    }
    offsetHeaders(c, upload);
    return c.body(null, 201);
  });

  app.openapi(patchRoute, async (c) => {
    const { uploadId } = c.req.valid("param");
    const offset = byteCount(c.req.header("upload-offset"), "Upload-Offset");
    if (offset === null) fail("REQUEST_001", "Upload-Offset is required", "Upload-Offset");
    const body = tusBody(c, true);
    const { upload } = await append(c, uploadId, offset, body).catch((err) => rethrow(c, err));
    offsetHeaders(c, upload);
    return c.body(null, 204);
  });

  app.openapi(deleteRoute, async (c) => {
    const { uploadId } = c.req.valid("param");
    await terminateUpload(d, uploadId, c.get("caller").userSeq);
    return c.body(null, 204);
  });

  app.openapi(servedWithHead(app, statusRoute, headOperation), async (c) => {
    const { uploadId } = c.req.valid("param");
    const upload = (await readUpload(d, uploadId, c.get("caller").userSeq)).value;
    const status = uploadStatus(upload);
    if (c.req.method === "HEAD") {
      if (status === "expired" || status === "failed") {
        fail("UPLOAD_006", `Upload ${uploadId} is ${status}`);
      }
      c.header("Cache-Control", "no-store");
      c.header("Upload-Length", String(upload.length));
      if (upload.metadata !== "") c.header("Upload-Metadata", upload.metadata);
      offsetHeaders(c, upload);
      // HEAD's answer is headers only; the route's typed (JSON) answer is GET's.
      return c.body(null, 200) as never;
    }
    return ok(c, {
      uploadId: upload.id,
      state: status,
      offset: upload.offset,
      length: upload.length,
      expiresAt: toIso(upload.expiresAt),
      file: upload.result
        ? { resourceSeq: upload.result.rs, resourceName: upload.result.name }
        : null,
      error: upload.error ? { errorCode: upload.error.code, message: upload.error.message } : null,
    }, 200);
  });

  return app;
}
