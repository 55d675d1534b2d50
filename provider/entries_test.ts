import assert from "node:assert/strict";
import { childEntriesJson, entryOf } from "./entries.ts";
import { MAX_PATH_CHARS } from "./limits.ts";
import { ProviderError } from "./responses.ts";
import type { Adapter } from "../kv/adapters/adapters.ts";
import type { Lock } from "../kv/tree/locks.ts";
import type { Resource } from "../kv/tree/resources.ts";
import { FILE_ENTRY } from "../tests/helpers/provider.ts";

const adapter: Adapter = {
  name: "a",
  userSeq: 1,
  folderSeq: null,
  operations: ["put", "mkdir"],
  readOnly: false,
  createdAt: "",
  secretUpdatedAt: "",
};
const file = (rs: number, name: string): Resource => ({
  rs,
  ownerSeq: 1,
  tenantId: 1,
  parentRs: null,
  name,
  type: "FILE",
  size: 3,
  mime: "text/plain",
  blobId: "b",
  sha256: "ab".repeat(32),
  version: 2,
  createdAt: Date.UTC(2024, 1, 29, 1, 2, 3, 4),
  updatedAt: Date.UTC(2025, 0, 1),
  createdBy: 1,
  updatedBy: 1,
  trashedAt: null,
});
const lock = (holder: string, expiresAt: number | null = null): Lock => ({
  rs: 1,
  owner: "o",
  source: "provider",
  holder,
  lockedAt: 0,
  expiresAt,
});
const rocket = "\u{1F680}"; // one character, two UTF-16 units

Deno.test("entryOf counts a path's characters, not UTF-16 units, against the limit", () => {
  const atLimit = rocket.repeat(MAX_PATH_CHARS);
  assert.equal(entryOf(adapter, file(1, "x"), atLimit, "x", null, 1e9).path, atLimit);
  assert.throws(
    () => entryOf(adapter, file(1, "x"), `${atLimit}a`, "x", null, 1e9),
    (e) => e instanceof ProviderError && e.status === 413,
  );
});

Deno.test("entryOf: locker up to 255 characters, none for longer; expired locks are no locks", () => {
  const e = (l: Lock | null) => entryOf(adapter, file(1, "x"), "x", "x", l, 1e9);
  assert.deepEqual([e(null).locked, e(null).locker], [false, null]);
  assert.deepEqual([e(lock("h")).locked, e(lock("h")).locker], [true, "h"]);
  assert.equal(e(lock(rocket.repeat(255))).locker, rocket.repeat(255));
  assert.deepEqual([e(lock("x".repeat(256))).locked, e(lock("x".repeat(256))).locker], [
    true,
    null,
  ]);
  assert.deepEqual([e(lock("h", 1)).locked, e(lock("h", 1)).locker], [false, null]);
});

Deno.test("childEntriesJson answers the spec's fields, in order, with ISO times", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const json = await childEntriesJson(kv, adapter, 1, [file(1, "a.txt")], "dir", 1e9);
    assert.equal(
      json,
      JSON.stringify({
        entries: [{
          ...FILE_ENTRY,
          path: "dir/a.txt",
          locker: null,
          createdAt: "2024-02-29T01:02:03.004Z",
          modifiedAt: "2025-01-01T00:00:00.000Z",
          revision: `2-${"ab".repeat(8)}`,
        }],
      }),
    );
  } finally {
    kv.close();
  }
});
