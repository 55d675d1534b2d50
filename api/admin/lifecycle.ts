/**
 * Admin API: deleting a user or a tenant for good, and transferring a user's drive to another
 * user (kv/lifecycle/; docs/operations.md "Lifecycle"). A deletion names what it deletes twice,
 * in the path and in `?confirm=`, so a mistyped id deletes nothing; repeating a deletion or a
 * transfer that a crash interrupted finishes it.
 */
import { z } from "@hono/zod-openapi";
import type { Deps } from "../../kv/deps.ts";
import { deleteTenant, deleteUser } from "../../kv/lifecycle/delete_account.ts";
import { transferDrive } from "../../kv/lifecycle/transfer.ts";
import { jsonBody, newOpenApiApp, seqParam } from "../http/openapi.ts";
import { adminErrors, adminJson, adminRoute, BODY_ERRORS, operation } from "./schemas/common.ts";

const userOp = operation("Users");
const tenantOp = operation("Tenants");
import {
  ConfirmQuery,
  DriveTransferSchema,
  TenantDeletionSchema,
  TransferBody,
  UserDeletionSchema,
} from "./schemas/lifecycle.ts";

const userSeqPath = z.object({ userSeq: seqParam("userSeq").describe("The user's seq") });

export function lifecycleAdminApi(d: Deps) {
  const app = newOpenApiApp();
  app.openapi(
    adminRoute(
      "delete",
      "/users/{userSeq}",
      userOp(
        "deleteUser",
        "Delete a user for good: their files, versions, trash, shares, links, pins and keys",
        { action: "user_deleted", targets: { userSeq: "userSeq" } },
      ),
      {
        description:
          "Frees every stored byte of theirs. Repeat the call to finish one a crash cut short.",
        request: { params: userSeqPath, query: ConfirmQuery },
        responses: {
          200: adminJson(UserDeletionSchema, "What was deleted"),
          ...adminErrors("ADMIN_002", "USER_001", "USER_005"),
        },
      },
    ),
    async (c) => {
      const { userSeq } = c.req.valid("param");
      return c.json(await deleteUser(d, userSeq, c.req.valid("query").confirm), 200);
    },
  );
  app.openapi(
    adminRoute(
      "delete",
      "/tenants/{id}",
      tenantOp(
        "deleteTenant",
        "Delete a tenant for good, with every user in it (each deleted as DELETE /users does)",
        { action: "tenant_deleted", targets: { id: "tenantId" } },
      ),
      {
        request: {
          params: z.object({ id: seqParam("id").describe("The tenant's id") }),
          query: ConfirmQuery,
        },
        responses: {
          200: adminJson(TenantDeletionSchema, "What was deleted"),
          ...adminErrors("ADMIN_002", "TENANT_001"),
        },
      },
    ),
    async (c) => {
      const { id } = c.req.valid("param");
      return c.json(await deleteTenant(d, id, c.req.valid("query").confirm), 200);
    },
  );
  app.openapi(
    adminRoute(
      "post",
      "/users/{userSeq}/transfer",
      userOp(
        "transferDrive",
        "Move a user's whole drive into a new folder of another user of the same tenant",
        { action: "drive_transferred", targets: { userSeq: "userSeq" } },
      ),
      {
        description:
          "The folder is named after the old user; usage moves with the bytes, exactly. " +
          "The old user's shares are removed and the old user is kept (empty).",
        request: { params: userSeqPath, body: jsonBody(TransferBody) },
        responses: {
          200: adminJson(DriveTransferSchema, "What was moved, and where"),
          ...adminErrors(...BODY_ERRORS, "USER_001", "USER_004", "USER_005"),
        },
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
