/**
 * Admin API: what lets people sign in. One-time invitation and password-reset links (shown once:
 * the console shows them with a copy button) and the admin role (administrators by name). Both
 * are also in the activity log as `account` events naming the user concerned.
 */
import type { Deps } from "../../kv/deps.ts";
import {
  createInvitation,
  type InvitationKind,
  invitationUrl,
} from "../../kv/identity/invitations.ts";
import { setUserAdmin } from "../../kv/identity/users.ts";
import { actorOf } from "../../lib/request_facts.ts";
import { recordAccountEvent } from "../http/account_events.ts";
import { jsonBody, newOpenApiApp } from "../http/openapi.ts";
import {
  adminAnswers,
  adminErrors,
  adminJson,
  adminRoute,
  BODY_ERRORS,
  operation,
} from "./schemas/common.ts";
import {
  type AdminRole,
  AdminRoleSchema,
  CreatedInvitationSchema,
  CreateInvitationBody,
} from "./schemas/accounts.ts";
import { ON_USER, UserParams } from "./schemas/identity.ts";

const accountOp = operation("Sign-in");

export function accountsAdminApi(d: Deps) {
  const app = newOpenApiApp();

  app.openapi(
    adminRoute(
      "post",
      "/users/{userSeq}/invitations",
      accountOp(
        "createInvitation",
        "Make a one-time invitation or password-reset link for a user (shown this once)",
        { action: "invitation_created", ...ON_USER },
      ),
      {
        request: {
          params: UserParams,
          body: jsonBody(CreateInvitationBody, false, { kind: "invitation" }),
        },
        responses: {
          201: adminJson(CreatedInvitationSchema, "The link"),
          ...adminErrors(...BODY_ERRORS, "USER_001"),
        },
      },
    ),
    async (c) => {
      const { userSeq } = c.req.valid("param");
      // The body is optional: none is an invitation.
      const kind: InvitationKind = c.req.valid("json")?.kind ?? "invitation";
      const made = await createInvitation(d.kv, userSeq, kind, d.config.invitationTtlMs);
      await recordAccountEvent(d.kv, "invitation_created", made.user, { kind });
      c.header("Cache-Control", "no-store");
      return c.json({
        userSeq,
        kind,
        url: invitationUrl(d.config.publicUrl, kind, made.token),
        expiresAt: new Date(made.invitation.expiresAt).toISOString(),
      }, 201);
    },
  );

  for (const [method, admin] of [["put", true], ["delete", false]] as const) {
    app.openapi(
      adminRoute(
        method,
        "/users/{userSeq}/admin-role",
        accountOp(
          admin ? "grantAdminRole" : "removeAdminRole",
          admin
            ? "Grant a user the admin role (the console and admin API, signed in by name)"
            : "Remove a user's admin role (the last administrator cannot remove their own)",
          { action: admin ? "role_granted" : "role_removed", ...ON_USER },
        ),
        {
          request: { params: UserParams },
          responses: adminAnswers(AdminRoleSchema, "The user's role now", "USER_001", "USER_006"),
        },
      ),
      async (c) => {
        const { userSeq } = c.req.valid("param");
        const actor = actorOf(c);
        const by = actor?.kind === "admin" ? actor.userSeq ?? null : null;
        const user = await setUserAdmin(d.kv, userSeq, admin, by);
        await recordAccountEvent(d.kv, admin ? "role_granted" : "role_removed", user, {
          role: "admin",
        });
        return c.json({ userSeq, admin } satisfies AdminRole, 200);
      },
    );
  }
  return app;
}
