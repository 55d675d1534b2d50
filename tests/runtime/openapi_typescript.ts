/**
 * openapi-typescript for tests/runtime/openapi_client_types_test.ts, by full npm specifier:
 * test-only packages stay out of deno.json's import map, so a server's cold start never
 * downloads them (see tests/runtime/runtime_graph_test.ts).
 */
export { astToString, default } from "npm:openapi-typescript@7.13.0";
