/** How the drive's catalog codes answer over WebDAV (toDavError). */
import assert from "node:assert/strict";
import { DriveError } from "../kv/errors.ts";
import { toDavError } from "./context.ts";

Deno.test("lost contention is 503 with Retry-After (clients retry it), quota 507, locks 423", () => {
  const lost = toDavError(new DriveError("RESOURCE_012", "changed concurrently"));
  assert.equal(lost.status, 503);
  assert.equal(lost.opts.headers?.["retry-after"], "1");
  assert.equal(toDavError(new DriveError("RESOURCE_015", "quota")).status, 507);
  const locked = toDavError(new DriveError("RESOURCE_010", "locked"));
  assert.equal(locked.status, 423);
  assert.equal(locked.opts.headers?.["retry-after"], undefined);
});
