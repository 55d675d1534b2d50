/**
 * axe-core for the accessibility checks (axe.ts), by full npm specifier like playwright.ts: a
 * test-only package stays out of deno.json's import map (tests/runtime/runtime_graph_test.ts).
 */
export { default as axeCore } from "npm:axe-core@4.14.1";
