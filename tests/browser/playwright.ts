/**
 * playwright-core for the browser tests, by full npm specifier: test-only packages stay out of
 * deno.json's import map, so a server's cold start never downloads them (see
 * tests/runtime/runtime_graph_test.ts).
 */
export { type BrowserContext, chromium, type Page } from "npm:playwright-core@1.65.1";
