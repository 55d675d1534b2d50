/**
 * The npm `webdav` client for tests/dav/webdav_client_test.ts, by full npm specifier: test-only
 * packages stay out of deno.json's import map (see tests/runtime/runtime_graph_test.ts).
 */
export { createClient } from "npm:webdav@5.11.0";
