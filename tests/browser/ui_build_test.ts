/**
 * The browser build is committed (static/build/), so `deno task start` serves a current
 * console on a fresh clone with no build step. These tests fail when that build is stale, and
 * check how api/public/static.ts serves the shells and assets.
 */
import assert from "node:assert/strict";
import { build, BUILD_DIR, type BuildManifest, BUNDLES, STYLESHEETS } from "../../ui/build.ts";
import { sha256Hex } from "../../lib/secrets.ts";
import { uiSourceHash } from "../../ui/source_hash.ts";
import { withServer } from "../helpers/server.ts";
import { rawHttp } from "../helpers/http.ts";

const STALE = "static/build/ is stale: run `deno task build` and commit static/build/";

async function committedManifest(): Promise<BuildManifest> {
  return JSON.parse(await Deno.readTextFile(new URL("manifest.json", BUILD_DIR)));
}

Deno.test("static/build was built from the current ui/ sources", async () => {
  const manifest = await committedManifest();
  assert.equal(manifest.sourceHash, await uiSourceHash(), STALE);
  const expected = [...BUNDLES, ...STYLESHEETS].map((x) => x.output).sort();
  assert.deepEqual(Object.keys(manifest.files).sort(), expected, STALE);
  for (const [name, digest] of Object.entries(manifest.files)) {
    const bytes = await Deno.readFile(new URL(name, BUILD_DIR));
    assert.equal(sha256Hex(bytes), digest, `static/build/${name} was changed by hand. ${STALE}`);
  }
});

Deno.test("building again reproduces the committed files byte for byte", async () => {
  const dir = await Deno.makeTempDir({ prefix: "drive-ui-build-" });
  try {
    const fresh = await build(new URL(`file://${dir}/`));
    const committed = await committedManifest();
    assert.deepEqual(fresh, committed, STALE);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the shells and the build reference no other origin", async () => {
  const shells = await withServer((server) =>
    Promise.all(
      ["/", "/admin", "/s/some-token", "/start"].map(async (path) => {
        const res = await fetch(`${server.url}${path}`);
        assert.equal(res.status, 200, path);
        const html = await res.text();
        assert.match(html, /<meta name="referrer" content="no-referrer">/, path);
        return html;
      }),
    )
  );
  const texts = [...shells, await Deno.readTextFile(new URL("styles.css", BUILD_DIR))];
  for (const text of texts) {
    assert.doesNotMatch(text, /(src|href)\s*=\s*["']?(https?:)?\/\//i);
    assert.doesNotMatch(text, /url\(\s*["']?(https?:)?\/\//i);
    assert.doesNotMatch(text, /@import/i);
  }
  for (const b of BUNDLES) {
    const js = await Deno.readTextFile(new URL(b.output, BUILD_DIR));
    assert.doesNotMatch(js, /\bimport\s*\(?\s*["'](https?:)?\/\//, `${b.output} imports remotely`);
    assert.doesNotMatch(js, /fonts\.googleapis|cdn\.|unpkg|jsdelivr|esm\.sh/i);
  }
});

Deno.test("console and share-page shells are served with a same-origin policy", async () => {
  await withServer(async (server) => {
    for (const path of ["/admin", "/admin/", "/admin/users", "/admin/share-links"]) {
      const res = await fetch(`${server.url}${path}`);
      const html = await res.text();
      assert.equal(res.status, 200, path);
      assert.match(res.headers.get("content-type")!, /^text\/html/);
      assert.match(html, /<script type="module" src="\/static\/build\/admin\.js">/);
      const csp = res.headers.get("content-security-policy")!;
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /script-src 'self'/);
      assert.equal(res.headers.get("referrer-policy"), "no-referrer");
    }
    const share = await fetch(`${server.url}/s/some-token_123`);
    assert.equal(share.status, 200);
    assert.match(await share.text(), /\/static\/build\/share\.js/);
    assert.equal(share.headers.get("cache-control"), "no-store");
    assert.equal(share.headers.get("referrer-policy"), "no-referrer");
  });
});

Deno.test("the admin API is never shadowed by the console shell", async () => {
  await withServer(async (server) => {
    const noToken = await fetch(`${server.url}/admin/api/tenants`);
    assert.equal(noToken.status, 401);
    assert.equal((await noToken.json()).error, "AUTH_004");
    const unknown = await server.admin.call("GET", "/no-such-endpoint");
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error, "ADMIN_001");
    const bare = await fetch(`${server.url}/admin/api`);
    assert.notEqual(bare.status, 200);
    await bare.body?.cancel();
  });
});

Deno.test("built assets are served with types and revalidated by ETag", async () => {
  await withServer(async (server) => {
    const expect = [
      ["admin.js", /^text\/javascript/],
      ["share.js", /^text\/javascript/],
      ["styles.css", /^text\/css/],
    ] as const;
    for (const [name, type] of expect) {
      const res = await fetch(`${server.url}/static/build/${name}`);
      const body = new Uint8Array(await res.arrayBuffer());
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type")!, type);
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      assert.deepEqual(body, await Deno.readFile(new URL(name, BUILD_DIR)));
      const etag = res.headers.get("etag")!;
      const again = await fetch(`${server.url}/static/build/${name}`, {
        headers: { "if-none-match": etag },
      });
      assert.equal(again.status, 304);
      await again.body?.cancel();
    }
  });
});

Deno.test("paths outside static/ and hidden files are not served", async () => {
  await withServer(async (server) => {
    for (
      const target of [
        "/static/../deno.json",
        "/static/%2e%2e/deno.json",
        "/static/build/../../deno.json",
        "/static/..%2fdeno.json",
        "/static/.hidden",
        "/static/build",
        "/static/build/",
        "/static/build/nope.js",
        "/static/build\\..\\..\\deno.json",
      ]
    ) {
      const res = await rawHttp(server.url, { method: "GET", target });
      assert.ok(res, target);
      assert.equal(res.status === 404 || res.status === 400, true, `${target}: ${res.status}`);
      assert.doesNotMatch(new TextDecoder().decode(res.body), /"imports"/, target);
    }
  });
});
