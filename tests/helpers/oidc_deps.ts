/**
 * The OpenID provider the sign-in tests run (panva's certified oidc-provider) and the JOSE
 * library it is built on, by full npm specifier as tests/browser/playwright.ts does: test-only
 * packages stay out of deno.json's import map, so a server's cold start never downloads them.
 */
export { default as Provider } from "npm:oidc-provider@9.13.3";
export { decodeJwt, exportJWK, generateKeyPair, type JWK, SignJWT } from "npm:jose@6.2.18";
