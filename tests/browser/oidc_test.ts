/**
 * Single sign-on in headless Chromium against a real OpenID provider (panva's oidc-provider on
 * 127.0.0.1, tests/helpers/oidc_provider.ts): the app's "Sign in with <provider>" button, the
 * provider's own login and consent pages, back to the app signed in as a user created just in
 * time; then a disallowed e-mail domain, refused with the app's message. The console's single
 * sign-on page configures the tenant. The refusal cases of the ID token (nonce, audience) and
 * key rotation are in tests/admin/oidc_test.ts, through the same pages with fetch.
 */
import assert from "node:assert/strict";
import type { Page } from "./playwright.ts";
import { browserTest, openSection, signIn } from "./helpers.ts";
import { startOidcProvider } from "../helpers/oidc_provider.ts";
import { findUserByEmail } from "../../kv/identity/users.ts";

const CLIENT_ID = "drive-browser";
const CLIENT_SECRET = "browser-oidc-secret-0123456789abcdef";

/** The provider's development login page (any password), then its consent page. */
async function loginAtProvider(page: Page, login: string, shot?: (n: string) => Promise<string>) {
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("whatever the provider takes");
  if (shot) await shot("oidc-provider-login");
  await page.locator('button[type="submit"]').click();
  // Consent: the provider asks once per client and user.
  await page.getByRole("button", { name: "Continue" }).click();
}

browserTest(
  "oidc: console sets up SSO; Sign in with <provider> through its login and consent pages",
  async ({ page, context, server, screenshot }) => {
    const idp = await startOidcProvider({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUris: [`${server.url}/auth/v1/oidc/callback`],
      users: [
        { sub: "erin", email: "erin@acme.test", name: "Erin Acme" },
        { sub: "oscar", email: "oscar@elsewhere.test", name: "Oscar" },
      ],
    });
    try {
      const tenant = await server.admin.createTenant("Acme");

      // The administrator configures the tenant in the console.
      await signIn(page, server);
      await openSection(page, "Single sign-on");
      await page.getByLabel("Tenant", { exact: true }).selectOption({ label: "Acme" });
      const form = page.getByRole("form", { name: "Single sign-on of Acme" });
      await form.getByLabel("Button label").fill("Acme SSO");
      await form.getByLabel("Issuer URL").fill(idp.issuer);
      await form.getByLabel("Client id").fill(CLIENT_ID);
      await form.getByLabel("Client secret").fill(CLIENT_SECRET);
      await form.getByLabel("Allowed e-mail domains").fill("acme.test");
      await form.getByRole("button", { name: "Save single sign-on" }).click();
      await page.getByText("Configured, last changed").waitFor();
      await page.getByText(`${server.url}/auth/v1/oidc/callback`).waitFor();
      await screenshot("oidc-console");
      const stored = await server.admin.call("GET", `/tenants/${tenant.id}/oidc`);
      assert.deepEqual(stored.body.allowedDomains, ["acme.test"]);

      // The user signs in through the provider.
      await page.goto(`${server.url}/signin`);
      await page.getByRole("link", { name: "Sign in with Acme SSO" }).click();
      await page.waitForURL((url) => url.origin === idp.issuer);
      await loginAtProvider(page, "erin", screenshot);
      await page.getByRole("heading", { level: 1, name: "My drive" }).waitFor();
      await page.getByText("Erin Acme", { exact: true }).waitFor();
      const erin = await findUserByEmail(server.kv, "erin@acme.test");
      assert.equal(erin?.tenantId, tenant.id);
      assert.equal(erin?.quotaBytes, server.config.defaultQuotaBytes);
      await page.getByRole("navigation", { name: "App sections" })
        .getByRole("link", { name: "My account" }).click();
      await page.getByText("single sign-on", { exact: true }).waitFor();
      await screenshot("oidc-signed-in-account");

      // A user of a domain the tenant does not allow is refused, with the app's explanation.
      await context.clearCookies();
      await page.goto(`${server.url}/signin`);
      await page.getByRole("link", { name: "Sign in with Acme SSO" }).click();
      await page.waitForURL((url) => url.origin === idp.issuer);
      await loginAtProvider(page, "oscar");
      await page.getByText("Addresses of your e-mail domain may not sign in here.").waitFor();
      assert.equal(new URL(page.url()).search, "?error=OIDC_007");
      assert.equal(await findUserByEmail(server.kv, "oscar@elsewhere.test"), null);
      await screenshot("oidc-refused-domain");
    } finally {
      await idp.close();
    }
  },
  { allowLoopback: true },
);
