/**
 * fast-check for the fuzz tests, by full npm specifier: test-only packages stay out of
 * deno.json's import map, so a server's cold start never downloads them (see
 * tests/runtime/runtime_graph_test.ts).
 */
export { default } from "npm:fast-check@4.10.2";
