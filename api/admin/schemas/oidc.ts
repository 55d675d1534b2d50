/**
 * Shapes of the admin API's single sign-on settings (api/admin/oidc.ts): what an administrator
 * sends, and what is shown back (never the client secret). The console takes the types.
 */
import { z } from "@hono/zod-openapi";

const ClaimName = z.string().trim().min(1, "must not be empty").max(100);

export const ClaimMappingSchema = z.object({
  accountId: ClaimName.describe("Claim giving a new user's account id").openapi({
    example: "preferred_username",
  }),
  email: ClaimName.describe("Claim giving the e-mail address (users are matched by it)").openapi({
    example: "email",
  }),
  name: ClaimName.describe("Claim giving the display name").openapi({ example: "name" }),
}).openapi("OidcClaimMapping", { description: "Which ID-token claim gives which user field" });

const Domain = z.string().trim().toLowerCase().regex(
  /^@?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/,
  "must be a domain name such as example.com",
);

export const OidcSettingsBody = z.object({
  label: z.string().trim().min(1, "must not be empty").max(80)
    .describe('The sign-in button says "Sign in with <label>"').openapi({ example: "Acme SSO" }),
  issuer: z.string().trim().max(2048)
    .describe("The provider's issuer URL (its discovery document is <issuer>/.well-known/...)")
    .openapi({ example: "https://sso.example.com/realms/acme" }),
  clientId: z.string().trim().min(1, "must not be empty").max(512)
    .describe("This service's client id at the provider").openapi({ example: "drive" }),
  clientSecret: z.string().min(1, "must not be empty").max(2048).optional()
    .describe("The client secret; required the first time, omitted to keep the stored one")
    .openapi({ example: "s3cr3t-from-the-provider" }),
  allowedDomains: z.array(Domain).max(100).optional()
    .describe("E-mail domains allowed to sign in; empty or omitted: any")
    .openapi({ example: ["example.com"] }),
  claims: ClaimMappingSchema.partial().optional()
    .describe("Claim names; omitted ones default to sub, email and name"),
  ssoOnly: z.boolean().optional()
    .describe("Users of the tenant sign in through the provider only (passwords off)")
    .openapi({ example: false }),
}).strict();
export type OidcSettingsRequest = z.input<typeof OidcSettingsBody>;

export const OidcSettingsSchema = z.object({
  tenantId: z.number().int().describe("The tenant").openapi({ example: 1 }),
  label: z.string().describe("The sign-in button's name").openapi({ example: "Acme SSO" }),
  issuer: z.string().describe("The issuer URL").openapi({ example: "https://sso.example.com" }),
  clientId: z.string().describe("The client id").openapi({ example: "drive" }),
  allowedDomains: z.array(z.string()).describe("Allowed e-mail domains (empty: any)")
    .openapi({ example: ["example.com"] }),
  claims: ClaimMappingSchema,
  ssoOnly: z.boolean().describe("Passwords off for the tenant").openapi({ example: false }),
  updatedAt: z.string().describe("Last change, ISO 8601").openapi({ format: "date-time" }),
  redirectUri: z.string().describe("The redirect URI to register at the provider")
    .openapi({ example: "https://drive.example.com/auth/v1/oidc/callback" }),
}).openapi("OidcSettings", {
  description: "A tenant's single sign-on (the client secret is never shown)",
});
export type OidcSettingsAnswer = z.infer<typeof OidcSettingsSchema>;
