/**
 * Editor-session (web-office) endpoints under /web-office/{loginUserSeq}/: info, get, put, lock,
 * unlock. A thin edge over the drive operations: authorization is authorizeResourceAccess for
 * the user loginUserSeq names, saves are putContent, and locks are the kv/tree/locks.ts records
 * the storage provider protocol uses too. Editor locks are leases, so a crashed editor frees the
 * document. Per the spec these endpoints skip the api:write scope check, and every failure is
 * answered as plain text (no JSON envelope); clients go by the status code.
 */
import { createRoute, type RouteConfig, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { type Access, type Action, authorizeResourceAccess } from "../../kv/sharing/authorize.ts";
import type { Deps } from "../../kv/deps.ts";
import { putContent } from "../../kv/tree/content.ts";
import { ERROR_CATALOG, type ErrorCode, fail, isDriveError } from "../../kv/errors.ts";
import { acquireLock, getLock, releaseLock, renewLock } from "../../kv/tree/locks.ts";
import { getUser, type User } from "../../kv/identity/users.ts";
import type { ApiEnv } from "../http/auth.ts";
import { toDriveError } from "../http/errors.ts";
import { sendFile } from "../http/file_response.ts";
import { ErrorEnvelopeSchema, markdownText, newOpenApiApp } from "../http/openapi.ts";
import { seqFromPath } from "../http/validate.ts";
import { infoXml } from "../http/web_office_xml.ts";

const APPLICATIONS = ["WORD", "CELL", "SHOW", "HWP", "PDF"] as const;
const MODES = ["EDITOR", "VIEWER", "WATCHER"] as const;
const EDITOR_APPS = APPLICATIONS.flatMap((a) => MODES.map((m) => `${a}_${m}`));
const SAVE_TYPES = ["save", "saveAs", "autoSave", "autoPut", "close"] as const;

const DocId = z.string({ error: "docId is required" })
  .regex(/^[1-9]\d{0,14}-[1-9]\d{0,14}$/, "docId must be <sharing user seq>-<resource seq>")
  .openapi({
    description: "Sharing (owner) user seq and resource seq joined by '-'",
    example: "1-2",
  });
const App = z.enum(EDITOR_APPS as [string, ...string[]], {
  error: `app must be one of ${EDITOR_APPS.join(", ")}`,
}).openapi({
  description: "Editor surface: <WORD|CELL|SHOW|HWP|PDF>_<EDITOR|VIEWER|WATCHER>",
  example: "WORD_EDITOR",
});
const UserId = z.string({ error: "user_id is required" }).min(1, "user_id must not be empty")
  .max(254, "user_id is at most 254 characters")
  .openapi({
    description: "Signed-in account name; with DRIVE_OFFICE_STRICT_USER=true it must be the " +
      "accountId or e-mail of the API key's user (see docs/api.md)",
    example: "alice",
  });
const Lang = z.string().regex(
  /^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8}){0,3}$/,
  "lang must look like ko_KR",
)
  .optional().openapi({ description: "Session language, e.g. ko_KR", example: "ko_KR" });
const OpenTimestamp = z.string().max(64, "openTimestamp is at most 64 characters").optional()
  .openapi({ description: "Accepted, currently unused", example: "1767225600000" });

const ReadQuery = z.object({
  docId: DocId,
  app: App,
  user_id: UserId,
  lang: Lang,
  openTimestamp: OpenTimestamp,
});
const PutQuery = ReadQuery.extend({
  size: z.string({ error: "size is required" })
    .regex(/^\d{1,15}$/, "size must be a non-negative integer (bytes)")
    .openapi({ description: "Size of the uploaded document in bytes", example: "48213" }),
  type: z.enum(SAVE_TYPES, { error: `type must be one of ${SAVE_TYPES.join(", ")}` }).optional()
    .openapi({ description: "Save reason, kept with the new version", example: SAVE_TYPES[0] }),
});
const LockQuery = ReadQuery.extend({ app: App.optional(), user_id: UserId.optional() });

/** The lock owner string of a user's editor sessions (all of one user's editors share it). */
const officeLockOwner = (userSeq: number) => `office:${userSeq}`;

function leaseMs(d: Deps): number {
  return Math.max(1, d.config.officeLockTtlSeconds) * 1000;
}

/**
 * The user loginUserSeq names. The spec checks only that the user is in the key's tenant, which
 * makes a key tenant-wide, and user_id ("signed-in account name") only for its shape: the session
 * acts as loginUserSeq whatever user_id says. DRIVE_OFFICE_STRICT_USER=true requires the key's
 * own user in both: loginUserSeq must be it and user_id its accountId or e-mail.
 */
async function loginUser(d: Deps, c: Context<ApiEnv>, userId: string | undefined): Promise<User> {
  const seq = seqFromPath(c, "loginUserSeq");
  const key = c.get("caller");
  const strict = d.config.officeStrictUser;
  if (strict && seq !== key.userSeq) {
    fail("OFFICE_002", `loginUserSeq ${seq} is not the API key's user`, "loginUserSeq");
  }
  const user = await getUser(d.kv, seq);
  if (!user || user.tenantId !== key.tenantId) {
    fail("OFFICE_001", `loginUserSeq ${seq} is not a user of the API key's tenant`, "loginUserSeq");
  }
  if (strict && userId !== undefined) {
    // Here user is the key's own user (checked above).
    const id = userId.toLowerCase();
    if (id !== user.accountId.toLowerCase() && id !== user.email.toLowerCase()) {
      fail("OFFICE_002", `user_id "${userId}" is not the API key's own account`, "user_id");
    }
  }
  return user;
}

/** The document docId names, checked for `action` by the sharing rules for `user`. */
async function authorizeDocument(
  d: Deps,
  user: User,
  docId: string,
  action: Action,
): Promise<Access> {
  const [ss, rs] = docId.split("-").map(Number);
  let access: Access;
  try {
    access = await authorizeResourceAccess(
      d.kv,
      { userSeq: user.userSeq, tenantId: user.tenantId },
      { rs, ss, field: "docId", type: "FILE" },
      action,
    );
  } catch (err) {
    if (isDriveError(err, "PERMISSION_002")) {
      fail("SHARE_001", `Document ${docId} is not shared with user ${user.userSeq}`, "docId");
    }
    throw err;
  }
  return access;
}

const isEditorSurface = (app: string | undefined) => app === undefined || app.endsWith("_EDITOR");

function requireEditorSurface(app: string | undefined) {
  if (!isEditorSurface(app)) fail("OFFICE_003", `${app} cannot lock or save documents`, "app");
}

/** Every failure of these endpoints: plain text, the status of its catalog code. */
function plainTextError(err: unknown, c: Context) {
  const e = toDriveError(err);
  return c.text(`${e.code}: ${e.message}`, e.status as 400);
}

/** Plain-text error responses by status; 401 comes from the shared API-key check as JSON. */
function plainTextErrors(...codes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of ["REQUEST_001", "OFFICE_001", "OFFICE_002", ...codes] as ErrorCode[]) {
    const status = ERROR_CATALOG[code].status;
    byStatus.set(status, [...new Set([...(byStatus.get(status) ?? []), code])]);
  }
  const out: Record<number, unknown> = {
    401: {
      description: "AUTH_001, AUTH_002: missing or unknown API key (JSON envelope)",
      content: { "application/json": { schema: ErrorEnvelopeSchema } },
    },
  };
  for (const [status, list] of byStatus) {
    out[status] = {
      description: `Plain text "<CODE>: <message>". ${
        markdownText(list.map((code) => `${code}: ${ERROR_CATALOG[code].meaning}`).join("; "))
      }`,
      content: { "text/plain": { schema: z.string() } },
    };
  }
  return out as Record<number, { description: string }>;
}

const LoginParams = z.object({
  loginUserSeq: z.string().openapi({
    param: { name: "loginUserSeq", in: "path" },
    description: "The signed-in user; must be in the API key's tenant (see docs/api.md)",
    example: "1",
  }),
});

const BINARY = z.string().openapi({ format: "binary", description: "The document's bytes" });

/** A route of /{loginUserSeq}/<op>; the handlers answer every failure as plain text. */
const officeRoute = <R extends Omit<RouteConfig, "path" | "tags">>(op: string, route: R) =>
  createRoute({ ...route, path: `/{loginUserSeq}/${op}`, tags: ["Editor session"] });

/** A read of the document (info, get): its success is `description`, `schema` in `media`. */
const readRoute = <S extends z.ZodTypeAny>(
  op: string,
  operationId: string,
  summary: string,
  answer: { description: string; media: "application/xml" | "application/octet-stream"; schema: S },
) =>
  officeRoute(op, {
    method: "get",
    operationId,
    summary,
    request: { params: LoginParams, query: ReadQuery },
    responses: {
      200: {
        description: answer.description,
        content: { [answer.media]: { schema: answer.schema } },
      },
      ...plainTextErrors("SHARE_001", "RESOURCE_002", "RESOURCE_006"),
    },
  });

const infoRoute = readRoute(
  "info",
  "getWebOfficeInfo",
  "Document metadata for an editor, as XML (element names in docs/api.md)",
  { description: "The info document", media: "application/xml", schema: z.string() },
);

const getRoute = readRoute("get", "getWebOfficeContent", "The document's bytes", {
  description: "File stream",
  media: "application/octet-stream",
  schema: BINARY,
});

const putRoute = officeRoute("put", {
  method: "put",
  operationId: "putWebOfficeContent",
  summary: "Save the document as a new version (streamed; the save reason is kept)",
  request: {
    params: LoginParams,
    query: PutQuery,
    body: { required: true, content: { "application/octet-stream": { schema: BINARY } } },
  },
  responses: {
    200: { description: "The docId", content: { "text/plain": { schema: z.string() } } },
    ...plainTextErrors(
      "SHARE_001",
      "PERMISSION_004",
      "OFFICE_003",
      "RESOURCE_002",
      "RESOURCE_006",
      "RESOURCE_010",
      "RESOURCE_015",
    ),
  },
});

const lockRoute = (op: "lock" | "unlock") =>
  officeRoute(op, {
    method: "post",
    operationId: op === "lock" ? "lockWebOfficeDocument" : "unlockWebOfficeDocument",
    summary: op === "lock"
      ? "Lock the document (a lease of DRIVE_OFFICE_LOCK_TTL_S; repeat to renew)"
      : "Release the caller's lock",
    request: { params: LoginParams, query: LockQuery },
    responses: {
      200: { description: "Done; no body" },
      ...plainTextErrors(
        "SHARE_001",
        "RESOURCE_002",
        "RESOURCE_006",
        "RESOURCE_010",
        ...(op === "lock" ? ["PERMISSION_004", "OFFICE_003"] as const : []),
      ),
    },
  });

export function webOfficeApi(d: Deps) {
  const app = newOpenApiApp<ApiEnv>();
  app.onError(plainTextError);

  app.openapi(infoRoute, async (c) => {
    const q = c.req.valid("query");
    const user = await loginUser(d, c, q.user_id);
    const access = await authorizeDocument(d, user, q.docId, "view");
    const r = access.resource;
    const [lock, owner] = await Promise.all([
      getLock(d.kv, r.rs),
      r.ownerSeq === user.userSeq ? user : getUser(d.kv, r.ownerSeq),
    ]);
    const xml = infoXml({
      docId: q.docId,
      app: q.app,
      lang: q.lang ?? null,
      resource: r,
      owner,
      user,
      permissions: access.permissions,
      editable: access.permissions.canEdit && isEditorSurface(q.app),
      lock,
      lockOwner: officeLockOwner(user.userSeq),
    });
    return c.body(xml, 200, { "content-type": "application/xml; charset=utf-8" });
  });

  app.openapi(getRoute, async (c) => {
    const q = c.req.valid("query");
    const user = await loginUser(d, c, q.user_id);
    const { resource: r } = await authorizeDocument(d, user, q.docId, "view");
    return await sendFile(c, d, r, {
      disposition: "attachment",
      contentType: "application/octet-stream",
    });
  });

  app.openapi(putRoute, async (c) => {
    const q = c.req.valid("query");
    const user = await loginUser(d, c, q.user_id);
    requireEditorSurface(q.app);
    const { resource: r } = await authorizeDocument(d, user, q.docId, "edit");
    const owner = officeLockOwner(user.userSeq);
    await putContent(d, {
      rs: r.rs,
      body: c.req.raw.body ?? ReadableStream.from<Uint8Array>([]),
      expectedSize: Number(q.size),
      mode: "version",
      reason: q.type ?? "put",
      actorSeq: user.userSeq,
      lockOwner: owner,
      quotaCode: "RESOURCE_015",
    });
    // A save by the lock holder proves the editor is alive: extend its lease.
    await renewLock(d.kv, r.rs, owner, leaseMs(d));
    return c.text(q.docId, 200);
  });

  app.openapi(lockRoute("lock"), async (c) => {
    const q = c.req.valid("query");
    const user = await loginUser(d, c, q.user_id);
    requireEditorSurface(q.app);
    const { resource: r } = await authorizeDocument(d, user, q.docId, "edit");
    await acquireLock(d.kv, {
      rs: r.rs,
      owner: officeLockOwner(user.userSeq),
      source: "office",
      holder: user.accountId,
      ttlMs: leaseMs(d),
    });
    return c.body(null, 200);
  });

  app.openapi(lockRoute("unlock"), async (c) => {
    const q = c.req.valid("query");
    const user = await loginUser(d, c, q.user_id);
    // Unlocking only ever releases the user's own lock, so view access is enough.
    const { resource: r } = await authorizeDocument(d, user, q.docId, "view");
    await releaseLock(d.kv, r.rs, officeLockOwner(user.userSeq));
    return c.body(null, 200);
  });

  return app;
}
