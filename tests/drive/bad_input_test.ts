/**
 * Every documented external operation, fed malformed path parameters, queries and bodies, answers
 * with an error code — never a 5xx, never a stack trace — and a malformed seq in a path is always
 * refused.
 */
import assert from "node:assert/strict";
import { withServer } from "../helpers/server.ts";
import { newApiUser } from "../helpers/api.ts";

const BAD_SEQS = ["abc", "-1", "0", "1.5", "99999999999999999999", "%00", "1e3"];
const BAD_BODIES: { type: string; body: string }[] = [
  { type: "application/json", body: "{not json" },
  { type: "application/json", body: "[]" },
  {
    type: "application/json",
    body: '{"fn": 1, "rn": [], "rs": "x", "ts": {}, "st": 5, "pfs": -3}',
  },
  {
    type: "application/json",
    body: JSON.stringify({ deep: JSON.parse("[".repeat(500) + "]".repeat(500)) }),
  },
  { type: "text/plain", body: "hello" },
  { type: "multipart/form-data; boundary=zzz", body: "--zzz\r\nbroken" },
];

Deno.test("malformed input to every documented operation never answers 5xx or a stack trace", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const doc = await (await fetch(`${server.url}/api/external/v1/openapi.json`)).json();
    let requests = 0;
    for (
      const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)
    ) {
      for (const method of Object.keys(ops)) {
        for (const seq of BAD_SEQS) {
          const concrete = path.replace(/\{[^}]+\}/g, seq);
          const url =
            `${concrete}?ss=${seq}&pfs=${seq}&ps=${seq}&cursor=${seq}&docId=${seq}&size=${seq}`;
          // fetch cannot send a body with GET or HEAD.
          for (const bad of method === "get" || method === "head" ? [null] : BAD_BODIES) {
            const res = await alice.fetch(url, {
              method: method.toUpperCase(),
              headers: bad ? { "content-type": bad.type } : {},
              body: bad?.body,
            });
            requests++;
            const text = await res.text();
            const where = `${method.toUpperCase()} ${url} ${bad?.body.slice(0, 30) ?? ""}`;
            assert.ok(res.status < 500, `${where}: ${res.status} ${text.slice(0, 200)}`);
            // An invalid seq in the path can never name a resource.
            if (path.includes("{")) {
              assert.ok(res.status >= 400, `${where}: ${res.status} ${text.slice(0, 200)}`);
            }
            // A HEAD answer has no body to carry a code.
            if (res.status >= 400 && method !== "head") {
              assert.match(
                text,
                /[A-Z]+_\d{3}/,
                `${where}: no error code in ${text.slice(0, 200)}`,
              );
            }
            assert.doesNotMatch(text, /\bat (file|ext):|\.ts:\d+:\d+/, `${where}: stack trace`);
          }
        }
      }
    }
    assert.ok(requests > 500, `sent ${requests} requests`);
  });
});
