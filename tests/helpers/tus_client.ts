/**
 * tus-js-client for the resumable upload tests, by full npm specifier: test-only packages stay
 * out of deno.json's import map, so a server's cold start never downloads them (as
 * tests/browser/playwright.ts).
 */
export { Upload, type UploadOptions } from "npm:tus-js-client@4.3.1";
