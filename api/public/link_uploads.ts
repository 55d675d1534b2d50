/**
 * Resumable (tus 1.0.0) uploads by link visitors, at /public/v1/links/{token}/uploads: a
 * PUBLIC_LINK granting cu (a folder link, or an upload-only file request) takes files into its
 * folder. The link token (and the access token of a password-protected link) authorizes every
 * request again (kv/sharing/share_links.ts, authorizeLinkUpload); the file is the owner's, in
 * their quota, committed as POST /files commits (api/http/upload_target.ts), with its events.
 * The upload sessions are kv/tree/uploads.ts's, held for the owner. A new file never replaces
 * one of the folder (a taken name gets a suffix), and no answer names a file: a file request's
 * visitor learns nothing of the folder.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Deps } from "../../kv/deps.ts";
import { fail, isDriveError } from "../../kv/errors.ts";
import { authorizeLinkUpload } from "../../kv/sharing/share_links.ts";
import { appendToUpload, UploadHashes } from "../../kv/tree/upload_append.ts";
import {
  createUpload,
  readUpload,
  terminateUpload,
  type Upload,
  uploadStatus,
} from "../../kv/tree/uploads.ts";
import {
  ErrorEnvelopeSchema,
  errorResponsesWith,
  newOpenApiApp,
  servedWithHead,
} from "../http/openapi.ts";
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
  tusBody,
  TusResumableHeader,
  tusVersion,
} from "../http/tus.ts";
import { commitUpload, PLACE_UPLOAD_ERRORS, placeUpload, textSeq } from "../http/upload_target.ts";
import { validValue } from "../http/validate.ts";
import type { ErrorCode } from "../../kv/errors.ts";

/** The link routes' path parameters and the access token (as api/public/links.ts takes it). */
const TokenParam = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/).openapi({
  param: { name: "token", in: "path" },
  description: "The link token: the last segment of the link's URL /s/{token}",
  example: "Xy7_k2Lq9mP0aBcD",
});
const UploadParams = z.object({
  token: TokenParam,
  uploadId: z.string().regex(/^[0-9a-f]{32}$/).openapi({
    param: { name: "uploadId", in: "path" },
    description: "The upload's id (the last segment of Location)",
    example: "6f1c0c1e9b8a4d3c8e2f7a6b5c4d3e2f",
  }),
});
const AccessHeader = z.string().optional().openapi({
  param: { name: "x-link-access", in: "header" },
  description: "The access token of an unlocked password-protected link",
  example: "la_3nV8q",
});

/** Upload-Metadata: the file's name, and (not for a file request) a folder inside the link. */
const LinkTargetFields = z.object({
  filename: z.string().optional(),
  folderSeq: textSeq("folderSeq"),
});

const LINK_UPLOAD_ERRORS: ErrorCode[] = [
  "REQUEST_001",
  "REQUEST_002",
  "REQUEST_003",
  "SHARE_007",
  "LINK_003",
  "LINK_004",
  "LINK_005",
  "LINK_007",
  "UPLOAD_005",
  "SERVICE_002",
  ...PLACE_UPLOAD_ERRORS,
];
const linkUploadErrors = (...more: ErrorCode[]) =>
  errorResponsesWith(ErrorEnvelopeSchema, [...LINK_UPLOAD_ERRORS, ...more]);

const binaryBody = (required: boolean, description: string) => ({
  required,
  content: { [TUS_BODY_TYPE]: { schema: z.string().openapi({ format: "binary", description }) } },
});

const createRouteDef = createRoute({
  method: "post",
  path: "/links/{token}/uploads",
  tags: ["Share links"],
  operationId: "linkTusCreateUpload",
  security: [],
  summary: "tus creation through a link that grants upload (or a file request)",
  description: "Upload-Metadata carries `filename` and, for a folder link (not a file " +
    "request), `folderSeq`: a folder inside the link (default: the link's folder). The file " +
    "goes to the owner's drive and quota; a taken name gets a suffix, nothing is replaced.",
  request: {
    params: z.object({ token: TokenParam }),
    headers: z.object({
      "tus-resumable": TusResumableHeader,
      "upload-length": LengthHeader,
      "upload-metadata": MetadataHeader.openapi({ param: { required: true } }),
      "x-link-access": AccessHeader,
    }),
    body: binaryBody(false, "The first bytes of the file (creation-with-upload)"),
  },
  responses: {
    201: {
      description: "Created; Location is the upload's URL, Upload-Offset the bytes stored",
      headers: z.object({
        Location: z.string().openapi({
          description: "The upload's URL (server-relative)",
          example: "/public/v1/links/Xy7_k2Lq9mP0aBcD/uploads/6f1c0c1e9b8a4d3c8e2f7a6b5c4d3e2f",
        }),
        "Upload-Offset": OffsetHeader,
      }),
    },
    ...linkUploadErrors(),
  },
});

/** GET of an upload through the link: where it stands (HEAD, tus, is served by the same handler). */
const statusRouteDef = createRoute({
  method: "get",
  path: "/links/{token}/uploads/{uploadId}",
  tags: ["Share links"],
  operationId: "linkUploadStatus",
  security: [],
  summary: "Where a link upload stands: bytes stored, length, state",
  request: { params: UploadParams, headers: z.object({ "x-link-access": AccessHeader }) },
  responses: {
    200: {
      description: "The upload's offset, length and state",
      content: {
        "application/json": {
          schema: z.object({
            result: z.literal(true).describe("Always true on success"),
            data: z.object({
              offset: z.number().int().describe("Bytes stored so far"),
              length: z.number().int().describe("The upload's whole length"),
              state: z.string().describe("uploading, completed, expired or failed"),
            }).describe("The upload"),
          }),
        },
      },
    },
    ...linkUploadErrors("UPLOAD_001"),
  },
});

/** HEAD of the status route's path, for tus: served by its handler (servedWithHead). */
const headOperation = {
  tags: ["Share links"],
  operationId: "linkTusUploadOffset",
  security: [],
  summary: "tus: how many bytes of a link upload are stored (where to resume)",
  request: {
    params: UploadParams,
    headers: z.object({ "tus-resumable": TusResumableHeader, "x-link-access": AccessHeader }),
  },
  responses: {
    200: {
      description: "Upload-Offset and Upload-Length; no body",
      headers: z.object({ "Upload-Offset": OffsetHeader, "Upload-Length": LengthHeader }),
    },
    404: { description: "UPLOAD_001: no such upload through this link" },
    410: { description: "UPLOAD_006: expired, or its final commit failed" },
  },
};

const patchRouteDef = createRoute({
  method: "patch",
  path: "/links/{token}/uploads/{uploadId}",
  tags: ["Share links"],
  operationId: "linkTusAppend",
  security: [],
  summary: "tus: append bytes at Upload-Offset; the last ones commit the file",
  request: {
    params: UploadParams,
    headers: z.object({
      "tus-resumable": TusResumableHeader,
      "upload-offset": OffsetHeader,
      "upload-checksum": ChecksumHeader,
      "x-link-access": AccessHeader,
    }),
    body: binaryBody(true, "The next bytes"),
  },
  responses: {
    204: {
      description: "Stored; Upload-Offset is the new offset",
      headers: z.object({ "Upload-Offset": OffsetHeader }),
    },
    ...linkUploadErrors("UPLOAD_001", "UPLOAD_002", "UPLOAD_003", "UPLOAD_004", "UPLOAD_006"),
  },
});

const deleteRouteDef = createRoute({
  method: "delete",
  path: "/links/{token}/uploads/{uploadId}",
  tags: ["Share links"],
  operationId: "linkTusTerminate",
  security: [],
  summary: "tus termination: end a link upload and remove its bytes",
  request: {
    params: UploadParams,
    headers: z.object({ "tus-resumable": TusResumableHeader, "x-link-access": AccessHeader }),
  },
  responses: { 204: { description: "Terminated" }, ...linkUploadErrors("UPLOAD_001") },
});

export function publicLinkUploadsApi(d: Deps) {
  const app = newOpenApiApp();
  const hashes = new UploadHashes();
  app.use("/links/:token/uploads", tusVersion);
  app.use("/links/:token/uploads/*", tusVersion);
  const accessOf = (c: Context) => c.req.header("x-link-access") ?? c.req.query("access");

  /** The link's upload `id`, authorized again: the link, its password state, its folder. */
  const linkUpload = async (c: Context, id: string) => {
    const token = c.req.param("token")!;
    const probe = await authorizeLinkUpload(d.kv, token, accessOf(c), undefined);
    const entry = await readUpload(d, id, probe.owner.userSeq);
    // Another upload of the owner is not told apart from none.
    const target = entry.value.target;
    const inLink = await authorizeLinkUpload(d.kv, token, accessOf(c), target.pfs)
      .catch(() => null);
    if (!inLink || target.st !== "duplicate" || inLink.folder.rs !== target.pfs) {
      fail("UPLOAD_001", `No upload ${id} through this link`);
    }
    return { upload: entry.value, owner: inLink.owner };
  };

  const append = (
    c: Context,
    upload: Upload,
    owner: { userSeq: number; tenantId: number },
    offset: number,
    body: ReadableStream<Uint8Array> | null,
  ) => {
    const declared = c.req.header("content-length");
    const token = c.req.param("token")!;
    // Re-asked before the last bytes and at the commit: the link may have changed meanwhile.
    const place = async (u: Upload, bytes: number | null) => {
      await authorizeLinkUpload(d.kv, token, accessOf(c), u.target.pfs);
      return await placeUpload(
        d,
        owner,
        u.target,
        bytes === null ? null : {
          bytes,
          what: "The upload has",
        },
      );
    };
    return appendToUpload(d, hashes, {
      id: upload.id,
      userSeq: owner.userSeq,
      offset,
      contentLength: declared !== undefined && !c.req.header("transfer-encoding")
        ? byteCount(declared, "Content-Length")
        : null,
      body,
      checksum: parseUploadChecksum(c.req.header("upload-checksum")),
      precheck: async (u) => void await place(u, u.length - u.offset),
      commitFile: async (u, blob, extendCommit) =>
        await commitUpload(d, owner, await place(u, null), {
          body: ReadableStream.from<Uint8Array>([]),
          blob,
          extendCommit,
        }),
    });
  };

  app.openapi(createRouteDef, async (c) => {
    const length = byteCount(c.req.header("upload-length"), "Upload-Length");
    if (length === null) fail("REQUEST_001", "Upload-Length is required", "Upload-Length");
    if (length > d.config.uploadMaxBytes) {
      fail("REQUEST_002", `Upload-Length is over Tus-Max-Size (${d.config.uploadMaxBytes})`);
    }
    const rawMetadata = c.req.header("upload-metadata") ?? "";
    const fields = validValue(LinkTargetFields, parseUploadMetadata(rawMetadata));
    const { folder, owner } = await authorizeLinkUpload(
      d.kv,
      c.req.param("token"),
      accessOf(c),
      fields.folderSeq,
    );
    const target = { st: "duplicate" as const, pfs: folder.rs, filename: fields.filename ?? null };
    await placeUpload(d, owner, target, { bytes: length, what: "The upload has" });
    const body = tusBody(c, false);
    let upload = await createUpload(d, {
      userSeq: owner.userSeq,
      length,
      // Kept out of HEAD's answers: the metadata names the file.
      metadata: "",
      target,
    });
    c.header("Location", `${c.req.path.replace(/\/+$/, "")}/${upload.id}`);
    if (body || length === 0) {
      try {
        upload = (await append(c, upload, owner, 0, body)).upload;
      } catch (err) {
        upload = (await readUpload(d, upload.id, owner.userSeq)).value;
        if (upload.state === "failed" || length === 0) throw err;
      }
    }
    offsetHeaders(c, upload);
    return c.body(null, 201);
  });

  app.openapi(servedWithHead(app, statusRouteDef, headOperation), async (c) => {
    const { upload } = await linkUpload(c, c.req.valid("param").uploadId);
    const status = uploadStatus(upload);
    if (c.req.method === "HEAD") {
      if (status === "expired" || status === "failed") {
        fail("UPLOAD_006", `Upload ${upload.id} is ${status}`);
      }
      c.header("Cache-Control", "no-store");
      c.header("Upload-Length", String(upload.length));
      offsetHeaders(c, upload);
      // HEAD's answer is headers only; the route's typed (JSON) answer is GET's.
      return c.body(null, 200) as never;
    }
    return c.json(
      {
        result: true as const,
        data: { offset: upload.offset, length: upload.length, state: status },
      },
      200,
    );
  });

  app.openapi(patchRouteDef, async (c) => {
    const offset = byteCount(c.req.header("upload-offset"), "Upload-Offset");
    if (offset === null) fail("REQUEST_001", "Upload-Offset is required", "Upload-Offset");
    const { upload, owner } = await linkUpload(c, c.req.valid("param").uploadId);
    const body = tusBody(c, true);
    const result = await append(c, upload, owner, offset, body).catch((err) => {
      if (isDriveError(err, "SERVICE_002")) c.header("Retry-After", "1");
      throw err;
    });
    offsetHeaders(c, result.upload);
    return c.body(null, 204);
  });

  app.openapi(deleteRouteDef, async (c) => {
    const { upload, owner } = await linkUpload(c, c.req.valid("param").uploadId);
    await terminateUpload(d, upload.id, owner.userSeq);
    return c.body(null, 204);
  });

  return app;
}
