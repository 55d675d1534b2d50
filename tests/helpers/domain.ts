/**
 * Test harness shortcuts that call the kv/ domain functions of a running test server directly,
 * for setups that would take too long over HTTP (a file with a thousand versions).
 */
import { putContent } from "../../kv/tree/content.ts";
import type { TestServer } from "./server.ts";

/** Stores versions 2..`last` of file `rs` (contents "v2", "v3", ...) as `actorSeq`. */
export async function addVersions(
  server: TestServer,
  actorSeq: number,
  rs: number,
  last: number,
): Promise<void> {
  for (let v = 2; v <= last; v++) {
    await putContent(server.deps, {
      rs,
      body: ReadableStream.from([new TextEncoder().encode(`v${v}`)]),
      mode: "version",
      reason: "version",
      actorSeq,
      lockOwner: null,
      quotaCode: "RESOURCE_015",
    });
  }
}
