/**
 * The request log of a real main.ts process: one JSON line per request with the fields
 * docs/operations.md lists, the X-Request-Id rules, and no credential anywhere in the output
 * (the API key, the admin token, a provider JWT and adapter secret, a share-link token, a
 * download token, a link password).
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import { reset as resetLogging } from "@logtape/logtape";
import { externalApiError } from "../../api/http/errors.ts";
import { configureLogging } from "../../api/ops/logging.ts";
import { createMetrics } from "../../api/ops/metrics.ts";
import { requestLog } from "../../api/ops/request_log.ts";
import type { BlobStore } from "../../blobs/store.ts";
import { signJwt } from "../../provider/jwt.ts";
import { ADMIN_TOKEN, AdminClient } from "../helpers/admin.ts";
import { newApiUser, shareFlags } from "../helpers/api.ts";
import { startMain } from "../helpers/process.ts";
import { newProviderAdapter, providerRawRequest } from "../helpers/provider.ts";
import type { TestServer } from "../helpers/server.ts";

// deno-lint-ignore no-explicit-any
type Line = Record<string, any>;

function requestLines(output: string): Line[] {
  return output.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l))
    .filter((l) => l.logger === "drive.http" && "route" in l);
}

Deno.test("one JSON line per request with id, route template, status, bytes, duration and actor; no secret logged", async () => {
  const dir = await Deno.makeTempDir({ prefix: "drive-logs-" });
  const main = await startMain({
    DRIVE_DATA_DIR: dir,
    DRIVE_ADMIN_TOKEN: ADMIN_TOKEN,
    DRIVE_LOG_FORMAT: "json",
  });
  try {
    const server = { url: main.url, admin: new AdminClient(main.url) } as TestServer;
    const alice = await newApiUser(server, "alice");
    const content = "quarterly numbers";
    const rs = await alice.newFile("report.txt", content);

    // An honoured request id, and one too odd to keep.
    const kept = await alice.fetch(`/files/${rs}/download`, {
      headers: { "x-request-id": "trace-42.a:b_c" },
    });
    assert.equal(await kept.text(), content);
    assert.equal(kept.headers.get("x-request-id"), "trace-42.a:b_c");
    const odd = await fetch(`${main.url}/healthz`, { headers: { "x-request-id": 'a b"c' } });
    await odd.body?.cancel();
    const generated = odd.headers.get("x-request-id")!;
    assert.match(generated, /^[0-9a-f-]{36}$/);

    // Credentials in paths and queries: a download token, a share-link token, a link password.
    const dt: string = (await alice.call("GET", `/files/${rs}/download-token`)).body.data.linkUrl;
    const downloadToken = new URL(dt, main.url).searchParams.get("dt")!;
    assert.equal(await (await fetch(new URL(dt, main.url))).text(), content);
    const password = "correct-horse-battery";
    const link = await alice.newShare({ rs, st: "PUBLIC_LINK", ...shareFlags("cd"), password });
    const linkToken = new URL(link.linkUrl).pathname.split("/").pop()!;
    const opened = await fetch(`${main.url}/public/v1/links/${linkToken}`);
    assert.equal(opened.status, 200);
    await opened.body?.cancel();
    const access = await fetch(`${main.url}/public/v1/links/${linkToken}/access`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ password }),
    });
    await access.body?.cancel();

    // A provider request: its JWT and the adapter secret.
    const adapter = await newProviderAdapter(server, "office");
    let signed = null as { header: unknown; claims: unknown } | null;
    const info = await providerRawRequest(main.url, adapter, {
      method: "GET",
      target: "/doc-storage/v1/info",
      edit: (claims, header) => (signed = { claims, header }),
    });
    assert.equal(info!.status, 200);
    const jwt = signJwt(signed!.header as never, signed!.claims as never, adapter.secret);

    assert.equal((await main.stop()).code, 0);
    const output = main.output();
    for (
      const [what, secret] of [
        ["API key", alice.apiKey],
        // drv_<keyId>_<secret>: the key id is public (it names the key in the log), the rest not.
        ["API key secret part", alice.apiKey.slice(`drv_${alice.apiKey.split("_")[1]}_`.length)],
        ["admin token", ADMIN_TOKEN],
        ["download token", downloadToken],
        ["share-link token", linkToken],
        ["link password", password],
        ["provider JWT", jwt],
        ["adapter secret", adapter.secret],
      ]
    ) {
      assert.ok(secret.length >= 16, `${what} is long enough to grep for`);
      assert.equal(output.includes(secret), false, `${what} appears in the log`);
    }

    const lines = requestLines(output);
    const download = lines.find((l) => l.requestId === "trace-42.a:b_c");
    assert.ok(download, "the download's line carries the incoming request id");
    assert.equal(download.method, "GET");
    assert.equal(download.route, "/api/external/v1/files/:resourceSeq/download");
    assert.equal(download.status, 200);
    assert.equal(download.bytesOut, content.length);
    assert.equal(download.actor, `user:${alice.userSeq}/key:${alice.apiKey.split("_")[1]}`);
    assert.equal(typeof download.durationMs, "number");
    assert.ok(!Number.isNaN(Date.parse(download["@timestamp"])));

    const upload = lines.find((l) => l.method === "POST" && l.route === "/api/external/v1/files");
    assert.ok(upload && upload.status === 201 && upload.bytesIn > content.length, "upload line");
    assert.ok(lines.some((l) => l.requestId === generated && l.route === "/healthz"));
    assert.ok(
      lines.some((l) =>
        l.route === "/public/v1/links/:token" && /^link:[0-9a-f]{12}$/.test(l.actor)
      ),
    );
    const provider = lines.find((l) => l.route === "/doc-storage/v1/*");
    assert.equal(provider?.actor, "adapter:office");
    assert.equal(provider?.providerOperation, "info");
    assert.ok(lines.some((l) => l.route.startsWith("/admin/api/") && l.actor === "admin"));
    // One line per request: every request id appears once.
    const ids = lines.map((l) => l.requestId);
    assert.equal(new Set(ids).size, ids.length);
  } finally {
    await main.stop().catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("text format: a readable line; DRIVE_LOG_LEVEL=warning silences request lines", async () => {
  const dir = await Deno.makeTempDir({ prefix: "drive-logs-" });
  try {
    const text = await startMain({ DRIVE_DATA_DIR: dir, DRIVE_LOG_FORMAT: "text" });
    await (await fetch(`${text.url}/healthz`, { headers: { "x-request-id": "r1" } })).text();
    await text.stop();
    assert.match(text.output(), /\[INF\] drive.http: GET \/healthz 200 requestId=r1 .*status=200/);

    const quiet = await startMain({
      DRIVE_DATA_DIR: dir,
      DRIVE_LOG_FORMAT: "text",
      DRIVE_LOG_LEVEL: "warning",
    });
    await (await fetch(`${quiet.url}/healthz`)).text();
    await quiet.stop();
    assert.doesNotMatch(quiet.output(), /GET \/healthz/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an unexpected error is logged with the request id and its stack; the client sees neither", async () => {
  const lines: string[] = [];
  await configureLogging({ logFormat: "json", logLevel: "info" }, (line) => lines.push(line));
  try {
    const metrics = createMetrics(
      { kind: "kv", list: async function* () {} } as unknown as BlobStore,
    );
    const area = new Hono();
    area.onError(externalApiError);
    area.get("/boom", () => {
      throw new Error("disk on fire");
    });
    const app = new Hono();
    app.use("*", requestLog(metrics));
    app.route("/api", area);
    const res = await app.request("/api/boom", { headers: { "x-request-id": "req-500" } });
    assert.equal(res.status, 500);
    const body = await res.text();
    assert.equal(body.includes("disk on fire"), false);
    assert.equal(res.headers.get("x-request-id"), "req-500");
    const records: Line[] = lines.map((l) => JSON.parse(l));
    const error = records.find((r) => r.level === "ERROR");
    assert.ok(error, lines.join(""));
    assert.equal(error.requestId, "req-500");
    assert.match(error.error, /disk on fire/);
    assert.match(error.stack, /disk on fire\n\s+at /);
    const request = records.find((r) => r.route === "/api/boom");
    assert.equal(request?.status, 500);
    assert.equal(request?.requestId, "req-500");
  } finally {
    await resetLogging();
  }
});
