/**
 * Admin API: deleting a user or a tenant for good, and transferring a user's drive to another
 * user (kv/lifecycle/; docs/operations.md "Lifecycle"). A deletion names what it deletes twice,
 * in the path and in `?confirm=`, so a mistyped id deletes nothing; repeating a deletion or a
 * transfer that a crash interrupted finishes it.
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { ErrorCode } from "../../kv/errors.ts";
import type { Deps } from "../../kv/deps.ts";
import { deleteTenant, deleteUser } from "../../kv/lifecycle/delete_account.ts";
import { transferDrive } from "../../kv/lifecycle/transfer.ts";
import { jsonBody, newOpenApiApp, seqParam } from "../http/openapi.ts";
import { adminAnswers, adminRoute, BODY_ERRORS, operation } from "./schemas/common.ts";
import { ON_TENANT, ON_USER, UserParams } from "./schemas/identity.ts";

const userOp = operation("Users");
const tenantOp = operation("Tenants");
import {
  ConfirmQuery,
  DriveTransferSchema,
  TenantDeletionSchema,
  TransferBody,
  UserDeletionSchema,
} from "./schemas/lifecycle.ts";

/**
 * Declares and serves DELETE `path`, a deletion that `?confirm=` names again: `remove` deletes
 * the record `params` name and tells what went (`deleted`), or fails with one of `codes`.
 */
function serveConfirmedDelete<P extends z.ZodObject, T extends z.ZodTypeAny>(
  app: OpenAPIHono,
  route: {
    path: string;
    name: ReturnType<typeof userOp>;
    description?: string;
    params: P;
    deleted: T;
    codes: ErrorCode[];
  },
  remove: (params: z.infer<P>, confirm: string) => Promise<z.infer<T>>,
) {
  const { path, name, description, params, deleted, codes } = route;
  const declared = adminRoute("delete", path, name, {
    ...(description ? { description } : {}),
    request: { params, query: ConfirmQuery },
    responses: adminAnswers(deleted, "What was deleted", "ADMIN_002", ...codes),
  });
  app.openapi(declared, async (c) => {
    const { confirm } = c.req.valid("query" as never) as z.infer<typeof ConfirmQuery>;
    return c.json(await remove(c.req.valid("param" as never) as z.infer<P>, confirm), 200);
  });
}

export function lifecycleAdminApi(d: Deps) {
  const app = newOpenApiApp();
  serveConfirmedDelete(app, {
    path: "/users/{userSeq}",
    name: userOp(
      "deleteUser",
      "Delete a user for good: their files, versions, trash, shares, links, pins and keys",
      { action: "user_deleted", ...ON_USER },
    ),
    description:
      "Frees every stored byte of theirs. Repeat the call to finish one a crash cut short.",
    params: UserParams,
    deleted: UserDeletionSchema,
    codes: ["USER_001", "USER_005"],
  }, ({ userSeq }, confirm) => deleteUser(d, userSeq, confirm));
  serveConfirmedDelete(app, {
    path: "/tenants/{id}",
    name: tenantOp(
      "deleteTenant",
      "Delete a tenant for good, with every user in it (each deleted as DELETE /users does)",
      { action: "tenant_deleted", ...ON_TENANT },
    ),
    params: z.object({ id: seqParam("id").describe("The tenant's id") }),
    deleted: TenantDeletionSchema,
    codes: ["TENANT_001"],
  }, ({ id }, confirm) => deleteTenant(d, id, confirm));
  app.openapi(
    adminRoute(
      "post",
      "/users/{userSeq}/transfer",
      userOp(
        "transferDrive",
        "Move a user's whole drive into a new folder of another user of the same tenant",
        { action: "drive_transferred", ...ON_USER },
      ),
      {
        description:
          "The folder is named after the old user; usage moves with the bytes, exactly. " +
          "The old user's shares are removed and the old user is kept (empty).",
        request: { params: UserParams, body: jsonBody(TransferBody) },
        responses: adminAnswers(
          DriveTransferSchema,
          "What was moved, and where",
          ...BODY_ERRORS,
          "USER_001",
          "USER_004",
          "USER_005",
        ),
      },
    ),
    async (c) => {
      const { userSeq } = c.req.valid("param");
      const { toUserSeq } = c.req.valid("json");
      return c.json(await transferDrive(d, { fromUserSeq: userSeq, toUserSeq }), 200);
    },
  );
  return app;
}
