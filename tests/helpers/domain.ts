/**
 * Test harness shortcuts that call the kv/ domain functions of a running test server directly,
 * for setups that would take too long over HTTP (a file with a thousand versions) or that no API
 * offers (a lock the web editor holds).
 */
import { putContent } from "../../kv/tree/content.ts";
import { acquireLock } from "../../kv/tree/locks.ts";
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

/**
 * Locks file `rs` as the web editor does for `editor` (a user seq, or any id: the lock owner is
 * `office:<editor>`), shown as held by `holder`, for `ttlMs` (null: until released).
 */
export function lockAsOffice(
  kv: Deno.Kv,
  rs: number,
  editor: number | string,
  holder: string,
  ttlMs: number | null,
) {
  return acquireLock(kv, { rs, owner: `office:${editor}`, source: "office", holder, ttlMs });
}
