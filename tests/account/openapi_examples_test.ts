/**
 * Every example of the account API's document works against a fresh server, as "try it" sends
 * it from the browser it runs in (the session cookie, the service's Origin, the CSRF token):
 * path parameters, and the body (the media type's example, else one composed from every
 * property's example). Values the server mints (tokens, ids) cannot be fixed examples: MINTED
 * says what stands in for each. The world: tenant 1, user 1 "alice" with the example password.
 */
import assert from "node:assert/strict";
import { withServer } from "../helpers/server.ts";
import { composeExample, deref } from "../helpers/openapi_examples.ts";
import { ACCOUNT, Browser, invite, setPasswordByInvitation } from "../helpers/browser_session.ts";
import { EXAMPLE_PASSWORD } from "../../api/account/schemas/account.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** The operations, in the order they run (sign-in first, sign-out last). */
const ORDER = [
  "signIn",
  "getMe",
  "listSessions",
  "revokeSession",
  "revokeOtherSessions",
  "listAppPasswords",
  "createAppPassword",
  "revokeAppPassword",
  "changePassword",
  "lookupInvitation",
  "acceptInvitation",
  "signOut",
];

interface World {
  /** A second session of alice's (revokeSession ends it). */
  otherSession?: string;
  keyId?: string;
  resetToken?: string;
}

const MINTED: Record<string, (w: World) => string> = {
  id: (w) => w.otherSession!,
  keyId: (w) => w.keyId!,
  token: (w) => w.resetToken!,
};

Deno.test("every example of the account API works as documented", async () => {
  await withServer(async (server) => {
    const { id } = await server.admin.createTenant("Acme");
    const alice = await server.admin.createUser(id, "alice");
    assert.deepEqual([id, alice.userSeq], [1, 1]);
    await setPasswordByInvitation(server.url, server.admin, 1, EXAMPLE_PASSWORD);

    const doc = await (await fetch(`${server.url}${ACCOUNT}/openapi.json`)).json();
    const ops = new Map<string, { path: string; method: string; op: Json }>();
    for (const [path, byMethod] of Object.entries<Json>(doc.paths)) {
      for (const [method, op] of Object.entries<Json>(byMethod)) {
        ops.set(op.operationId, { path, method, op });
      }
    }
    assert.deepEqual([...ops.keys()].sort(), [...ORDER].sort(), "ORDER names every operation");

    const browser = new Browser(server.url);
    const world: World = {};
    for (const name of ORDER) {
      const { path, method, op } = ops.get(name)!;
      // What the operations need that the server mints, made just before.
      if (name === "revokeSession") {
        const other = new Browser(server.url);
        await other.signIn("alice", EXAMPLE_PASSWORD);
        world.otherSession = (await other.account("GET", "/me")).body.session.id;
      }
      if (name === "lookupInvitation") world.resetToken = await invite(server.admin, 1, "reset");
      let url = path;
      for (const p of op.parameters ?? []) {
        if (p.in !== "path") continue;
        const value = p.name in MINTED
          ? MINTED[p.name](world)
          : String(p.example ?? p.schema?.example);
        url = url.replace(`{${p.name}}`, encodeURIComponent(value));
      }
      const media = op.requestBody?.content?.["application/json"];
      let body = media ? media.example ?? composeExample(doc, media.schema) : undefined;
      if (body && "token" in (deref(doc, media.schema).properties ?? {})) {
        body = { ...body, token: MINTED.token(world) };
      }
      const res = await browser.account(method.toUpperCase(), url, body);
      assert.ok(
        res.status >= 200 && res.status < 300,
        `${name} ${method.toUpperCase()} ${url}: ${res.status} ${JSON.stringify(res.body)}`,
      );
      if (name === "createAppPassword") world.keyId = res.body.keyId;
    }
  });
});
