import assert from "node:assert/strict";
import { withMemoryKv } from "../kv/testing.ts";
import { openReadAhead } from "./read_ahead.ts";

Deno.test("read-ahead remembers the keys a request read, per adapter, operation and path", async () => {
  await withMemoryKv(async (kv) => {
    const ahead = openReadAhead();
    assert.deepEqual(ahead.keysFor("a", "info", "/x/info"), []);
    const first = ahead.reader(kv, [], []);
    await first.reader.get(["res_name", 1, 0, "x"]);
    await first.reader.get(["lock", 7]);
    first.done("a", "info", "/x/info");
    assert.deepEqual(ahead.keysFor("a", "info", "/x/info"), [["res_name", 1, 0, "x"], ["lock", 7]]);
    assert.deepEqual(ahead.keysFor("b", "info", "/x/info"), []);
    assert.deepEqual(ahead.keysFor("a", "list", "/x/info"), []);
    assert.deepEqual(ahead.keysFor("a", "info", "/y/info"), []);
  });
});

Deno.test("read-ahead answers only the exact key, once; anything else is read from KV", async () => {
  await withMemoryKv(async (kv) => {
    await kv.set(["lock", 7], "now");
    const ahead = openReadAhead();
    const stale = { key: ["lock", 7], value: "earlier", versionstamp: "0".repeat(20) };
    const { reader } = ahead.reader(kv, [["lock", 7], ["lock", 8]], [stale, {
      key: ["lock", 8],
      value: null,
      versionstamp: null,
    }]);
    // The entry read ahead answers the key it was read for...
    assert.equal((await reader.get(["lock", 7])).value, "earlier");
    // ...once: a second read of the key sees KV as it is now.
    assert.equal((await reader.get(["lock", 7])).value, "now");
    // A key nobody read ahead (a different document) goes to KV.
    await kv.set(["lock", 9], "nine");
    assert.equal((await reader.get(["lock", 9])).value, "nine");
    // A key read ahead as missing answers missing, without a read.
    assert.equal((await reader.get(["lock", 8])).value, null);
  });
});

Deno.test("read-ahead forgets a path whose last request read nothing", async () => {
  await withMemoryKv(async (kv) => {
    const ahead = openReadAhead();
    const one = ahead.reader(kv, [], []);
    await one.reader.get(["res_name", 1, 0, "x"]);
    one.done("a", "list", "/list");
    assert.equal(ahead.keysFor("a", "list", "/list").length, 1);
    ahead.reader(kv, [], []).done("a", "list", "/list");
    assert.deepEqual(ahead.keysFor("a", "list", "/list"), []);
  });
});
