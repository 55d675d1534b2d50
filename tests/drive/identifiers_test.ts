/**
 * Identifiers and names from the URL are checked for shape and length at the edge (issue 11,
 * item 4), and validation messages name the real problem (item 7): a static asset name too long
 * for the file system is a 404, not a 500, and an over-long or out-of-range value is never
 * reported as missing.
 */
import assert from "node:assert/strict";
import { withServer } from "../helpers/server.ts";
import { newApiUser } from "../helpers/api.ts";
import { readJson } from "../helpers/http.ts";

Deno.test("static: asset names too long for the file system are 404, never 500", async () => {
  await withServer(async (server) => {
    const long = "a".repeat(256);
    for (
      const path of [
        `/static/${long}`,
        `/static/${long}.js`,
        `/static/build/${long}`,
        `/static/${long}/${long}`,
        `/static/${"b".repeat(2100)}`,
        `/static/${Array(300).fill("d").join("/")}`,
      ]
    ) {
      const res = await fetch(`${server.url}${path}`);
      const text = await res.text();
      assert.equal(res.status, 404, `${path.slice(0, 60)}: ${res.status} ${text.slice(0, 100)}`);
    }
    // Real assets are still served.
    const css = await fetch(`${server.url}/static/build/styles.css`);
    assert.equal(css.status, 200);
    await css.body?.cancel();
  });
});

Deno.test("public link: over-long or malformed tokens are SHARE_007, never 500", async () => {
  await withServer(async (server) => {
    for (const token of ["x".repeat(2100), encodeURIComponent("é".repeat(1100)), "a.b"]) {
      for (const [method, sub] of [["GET", ""], ["GET", "/items"], ["POST", "/access"]]) {
        const res = await readJson(
          await fetch(`${server.url}/public/v1/links/${token}${sub}`, {
            method,
            headers: method === "POST" ? { "content-type": "application/json" } : {},
            body: method === "POST" ? '{"password":"x"}' : undefined,
          }),
        );
        const where = `${method} .../${token.slice(0, 10)}${sub}`;
        assert.equal(res.status, 404, `${where}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.errorCode, "SHARE_007", where);
      }
    }
  });
});

Deno.test("validation messages name the real problem: too long, out of range, missing", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    // [method, path, body, expected message, whether the value was really missing]
    const cases: [string, string, unknown, RegExp, boolean][] = [
      ["GET", `/shares/users/search?sk=${"x".repeat(300)}`, undefined, /^sk: .*254/, false],
      ["GET", "/shares/users/search?sk=%20%20", undefined, /^sk: .*empty/, false],
      ["GET", "/shares/users/search", undefined, /^sk: .*required/, true],
      ["GET", "/shared?ps=1000", undefined, /^ps: .*at most 100/, false],
      ["GET", "/shared?ps=0", undefined, /^ps: .*at least 1/, false],
      ["GET", "/shared?ps=2.5", undefined, /^ps: .*integer/, false],
      ["GET", "/shared", undefined, /^ps: .*required/, true],
      ["POST", "/pinned-folders", { rs: -1 }, /^rs: .*positive/, false],
      ["POST", "/pinned-folders", { rs: 1.5 }, /^rs: .*integer/, false],
      ["POST", "/pinned-folders", {}, /^rs: .*required/, true],
    ];
    for (const [method, path, body, expected, missing] of cases) {
      const res = await alice.call(method, path, body);
      const where = `${method} ${path.slice(0, 50)} ${JSON.stringify(body) ?? ""}`;
      assert.equal(res.status, 400, `${where}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.errorCode, "REQUEST_001", where);
      assert.match(res.body.message, expected, `${where}: ${res.body.message}`);
      if (!missing) {
        assert.doesNotMatch(res.body.message, /required/, `${where}: ${res.body.message}`);
      }
    }
  });
});
