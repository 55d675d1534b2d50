/**
 * The security properties of sign-in (issue 24): session fixation, CSRF from a foreign origin,
 * the cookie's attributes, brute force throttled while the right password still works, unknown
 * accounts answered like wrong passwords.
 */
import assert from "node:assert/strict";
import { withServer } from "../helpers/server.ts";
import { Browser, GOOD_PASSWORD, signedInUser } from "../helpers/browser_session.ts";

Deno.test("session fixation: an id held before sign-in is useless afterwards", async () => {
  await withServer(async (server) => {
    const { browser: attacker } = await signedInUser(server, "mallory");
    const { id: tenantId } = await server.admin.createTenant("Victims");
    const victimUser = await server.admin.createUser(tenantId, "victor");
    const { setPasswordByInvitation } = await import("../helpers/browser_session.ts");
    await setPasswordByInvitation(server.url, server.admin, victimUser.userSeq);

    // The attacker plants their own session id, and a made-up one, in the victim's browser.
    for (const planted of [attacker.cookieHeader(), "drive_session=" + "A".repeat(43)]) {
      const victim = new Browser(server.url);
      const [name, value] = planted.split("=");
      victim.cookies.set(name, value);
      const r = await victim.signIn("victor");
      assert.equal(r.status, 200);
      const issued = victim.cookies.get(name);
      assert.ok(issued && issued !== value, "sign-in issues a new id");
      // The planted id does not act as the victim: the attacker's own session ended with it.
      const asPlanted = new Browser(server.url);
      asPlanted.cookies.set(name, value);
      const me = await asPlanted.account("GET", "/me");
      assert.equal(me.status, 401, JSON.stringify(me.body));
      assert.equal((await victim.account("GET", "/me")).body.user.accountId, "victor");
    }
  });
});

Deno.test("CSRF: a change with the cookie needs the token and the service's Origin", async () => {
  await withServer(async (server) => {
    const { browser } = await signedInUser(server, "alice");
    const foreign = new Browser(server.url, "https://evil.example");
    for (const [k, v] of browser.cookies) foreign.cookies.set(k, v);
    foreign.csrfToken = browser.csrfToken;

    const cases: [string, Browser, { csrf?: boolean; headers?: Record<string, string> }][] = [
      ["foreign Origin, right token", foreign, {}],
      ["right Origin, no token", browser, { csrf: false }],
      ["right Origin, wrong token", browser, { headers: { "x-csrf-token": "x".repeat(43) } }],
    ];
    for (const [what, b, opts] of cases) {
      const drive = await b.call("POST", "/api/external/v1/folders", { fn: "Stolen" }, opts);
      assert.equal(drive.status, 403, `${what}: ${JSON.stringify(drive.body)}`);
      assert.equal(drive.body.errorCode, "AUTH_010", what);
      const app = await b.call(
        "POST",
        "/api/account/v1/app-passwords",
        { label: "x", scope: "read" },
        opts,
      );
      assert.equal(app.status, 403, what);
      assert.equal(app.body.error, "AUTH_010", what);
    }
    // No Origin at all is refused too.
    const noOrigin = await fetch(`${server.url}/api/external/v1/folders`, {
      method: "POST",
      headers: {
        cookie: browser.cookieHeader(),
        "x-csrf-token": browser.csrfToken!,
        "content-type": "application/json",
      },
      body: JSON.stringify({ fn: "Stolen" }),
    });
    assert.equal(noOrigin.status, 403);
    await noOrigin.body?.cancel();
    // Sign-in itself needs the service's Origin (login CSRF).
    const login = await new Browser(server.url, "https://evil.example").signIn("alice");
    assert.equal(login.status, 403);
    // Reads need no token; nothing was made.
    const list = await foreign.call("GET", "/api/external/v1/resources");
    assert.equal(list.status, 200);
    assert.ok(!JSON.stringify(list.body).includes("Stolen"));
    // The right request works.
    const ok = await browser.call("POST", "/api/external/v1/folders", { fn: "Mine" });
    assert.equal(ok.status, 201);
  });
});

Deno.test("cookie attributes: __Host-, HttpOnly, SameSite=Lax, Path=/, Secure on https", async () => {
  // The public URL is https (a TLS proxy in front); requests come from that origin.
  const publicUrl = "https://drive.example.test";
  await withServer(async (server) => {
    const { id } = await server.admin.createTenant("Acme");
    const u = await server.admin.createUser(id, "alice");
    const { invite } = await import("../helpers/browser_session.ts");
    const token = await invite(server.admin, u.userSeq);
    const b = new Browser(server.url, publicUrl);
    const r = await b.account("POST", "/invitations/accept", { token, password: GOOD_PASSWORD });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const set = b.setCookies.at(-1)!;
    const [pair, ...attrs] = set.split(";").map((s) => s.trim());
    assert.match(pair, /^__Host-drive_session=[A-Za-z0-9_-]{43}$/);
    const names = attrs.map((a) => a.split("=")[0].toLowerCase());
    for (const a of ["httponly", "secure", "path", "max-age", "samesite"]) {
      assert.ok(names.includes(a), `${a} in ${set}`);
    }
    assert.ok(attrs.includes("SameSite=Lax") && attrs.includes("Path=/"), set);
    assert.ok(!names.includes("domain"), "a __Host- cookie has no Domain");
    assert.equal((await b.account("GET", "/me")).status, 200);
  }, { env: { DRIVE_PUBLIC_URL: publicUrl } });

  await withServer(async (server) => {
    const { browser } = await signedInUser(server, "bob");
    const set = browser.setCookies.at(-1)!;
    // Browsers refuse __Host- without Secure: plain http gets the unprefixed name.
    assert.match(
      set,
      /^drive_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/,
    );
  });
});

Deno.test("brute force is throttled per client while the right password still works", async () => {
  await withServer(async (server) => {
    await signedInUser(server, "alice");
    const from = (ip: string) => ({ headers: { "x-forwarded-for": ip } });
    const attacker = new Browser(server.url);
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 8; i++) {
      const r = await attacker.call(
        "POST",
        "/api/account/v1/sign-in",
        { login: "alice", password: `guess-number-${i}-xyz` },
        from("203.0.113.9"),
      );
      statuses.push(r.status);
      retryAfter ??= r.headers.get("retry-after");
    }
    assert.deepEqual(statuses.slice(0, 5), [401, 401, 401, 401, 401]);
    assert.ok(statuses.slice(5).every((s) => s === 429), String(statuses));
    assert.ok(Number(retryAfter) >= 1, `Retry-After ${retryAfter}`);
    // Even the right password waits from the attacker's address...
    const blocked = await attacker.call(
      "POST",
      "/api/account/v1/sign-in",
      { login: "alice", password: GOOD_PASSWORD },
      from("203.0.113.9"),
    );
    assert.equal(blocked.status, 429);
    assert.equal(blocked.body.error, "AUTH_008");
    // ...but the rightful user, elsewhere, is never locked out by it.
    const owner = new Browser(server.url);
    const ok = await owner.call(
      "POST",
      "/api/account/v1/sign-in",
      { login: "alice", password: GOOD_PASSWORD },
      from("198.51.100.7"),
    );
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  }, { env: { DRIVE_TRUSTED_PROXIES: "127.0.0.1" } });
});

Deno.test("an unknown account and a wrong password get the same answer", async () => {
  await withServer(async (server) => {
    await signedInUser(server, "alice");
    const answer = async (login: string) => {
      const r = await new Browser(server.url).signIn(login, "definitely-not-it-123");
      return { status: r.status, body: r.body, cookie: r.headers.get("set-cookie") };
    };
    const wrong = await answer("alice");
    const unknown = await answer("nobody-here");
    const noPassword = await (async () => {
      const { id } = await server.admin.createTenant("X");
      await server.admin.createUser(id, "invited-only");
      return await answer("invited-only");
    })();
    assert.equal(wrong.status, 401);
    assert.deepEqual(unknown, wrong);
    assert.deepEqual(noPassword, wrong);
  });
});
