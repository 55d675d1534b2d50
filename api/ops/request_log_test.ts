import assert from "node:assert/strict";
import { Hono } from "hono";
import { reset as resetLogging } from "@logtape/logtape";
import type { BlobStore } from "../../blobs/store.ts";
import { eventActor } from "../../kv/events/actor.ts";
import { setActor } from "../../lib/request_facts.ts";
import { currentRequestScope, type RequestScope } from "../../lib/request_scope.ts";
import { jsonResponse } from "../http/json_response.ts";
import { configureLogging } from "./logging.ts";
import { driveLogger } from "../../lib/logger.ts";
import { createMetrics } from "./metrics.ts";
import { requestLog } from "./request_log.ts";

// deno-lint-ignore no-explicit-any
type Line = Record<string, any>;

const noBlobs = { kind: "kv", list: async function* () {} } as unknown as BlobStore;

/** Runs `fn` with LogTape writing JSON lines at `level` into the returned array. */
async function withLines(level: "info" | "error", fn: (lines: Line[]) => Promise<void>) {
  const lines: Line[] = [];
  await configureLogging({ logFormat: "json", logLevel: level }, (l) => lines.push(JSON.parse(l)));
  try {
    await fn(lines);
  } finally {
    await resetLogging();
  }
}

/** `app.fetch` as serve.ts calls it: `completed` settles once the body has been read. */
async function served(app: Hono, path: string, init?: RequestInit) {
  let sent!: () => void;
  const completed = new Promise<void>((resolve) => (sent = resolve));
  const res = await app.fetch(new Request(`http://drive.test${path}`, init), { completed });
  const body = new Uint8Array(await res.arrayBuffer());
  sent();
  // The line is written in `completed`'s callback.
  await new Promise((resolve) => setTimeout(resolve, 0));
  return { res, body };
}

Deno.test("one scope per request: its id for every record, the commit observer, the actor for events", async () => {
  await withLines("info", async (lines) => {
    const metrics = createMetrics(noBlobs);
    let scope: RequestScope | undefined;
    let actor: unknown;
    const app = new Hono();
    app.use("*", requestLog(metrics));
    app.use("*", async (c, next) => {
      setActor(c, { kind: "user", userSeq: 7, keyId: "key7" });
      await next();
    });
    app.get("/work", async (c) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      scope = currentRequestScope();
      actor = eventActor(null);
      driveLogger("test").warn("inside the request");
      return jsonResponse(c, { ok: true }, 200);
    });
    const { res } = await served(app, "/work", { headers: { "x-request-id": "scope-1" } });
    assert.equal(res.headers.get("x-request-id"), "scope-1");
    assert.equal(scope?.logContext?.requestId, "scope-1");
    assert.equal(scope?.commitObserver, metrics.commits);
    assert.deepEqual(actor, { userSeq: 7, keyId: "key7" });
    const inside = lines.find((l) => l.message === "inside the request");
    assert.equal(inside?.requestId, "scope-1");
    // Nothing leaks out of the request.
    assert.equal(currentRequestScope(), undefined);
  });
});

Deno.test("bytes out: a known size or declared length as is, a bare c.json measured with its bytes kept, a stream counted, no body 0", async () => {
  await withLines("info", async (lines) => {
    const app = new Hono();
    app.use("*", requestLog(createMetrics(noBlobs)));
    const value = { fn: "보고서 📁.docx" };
    const utf8 = new TextEncoder().encode(JSON.stringify(value));
    app.get("/known", (c) => jsonResponse(c, value, 200));
    app.get("/declared", () =>
      new Response("12345", {
        headers: { "content-type": "application/octet-stream", "content-length": "5" },
      }));
    app.get("/bare", (c) => c.json(value, 201));
    app.get("/text", (c) => c.text("héllo"));
    app.get("/stream", () =>
      new Response(
        new ReadableStream({
          start(controller) {
            for (const n of [3, 4, 5]) controller.enqueue(new Uint8Array(n));
            controller.close();
          },
        }),
        { headers: { "content-type": "application/octet-stream" } },
      ));
    app.get("/nothing", (c) => c.body(null, 204));
    app.get("/redirect", () => Response.redirect("http://drive.test/known", 302));

    assert.deepEqual((await served(app, "/known")).body, utf8);
    assert.equal((await served(app, "/declared")).body.byteLength, 5);
    const bare = await served(app, "/bare");
    assert.equal(bare.res.status, 201);
    assert.equal(bare.res.headers.get("content-type"), "application/json");
    assert.deepEqual(bare.body, utf8);
    const text = await served(app, "/text");
    assert.equal(new TextDecoder().decode(text.body), "héllo");
    assert.equal((await served(app, "/stream")).body.byteLength, 12);
    assert.equal((await served(app, "/nothing")).res.status, 204);
    // An immutable answer still gets its id.
    const redirect = await served(app, "/redirect");
    assert.equal(redirect.res.status, 302);
    assert.match(redirect.res.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
    await served(app, "/known", { method: "HEAD" });

    const out = (route: string, method = "GET") =>
      lines.find((l) => l.route === route && l.method === method)?.bytesOut;
    assert.equal(out("/known"), utf8.byteLength);
    assert.equal(out("/declared"), 5);
    assert.equal(out("/bare"), utf8.byteLength);
    assert.equal(out("/text"), "héllo".length + 1);
    assert.equal(out("/stream"), 12);
    assert.equal(out("/nothing"), 0);
    assert.equal(out("/redirect"), 0);
    assert.equal(out("/known", "HEAD"), 0);
  });
});

Deno.test("a level that drops request lines still counts the request in the metrics", async () => {
  await withLines("error", async (lines) => {
    const metrics = createMetrics(noBlobs);
    const app = new Hono();
    app.use("*", requestLog(metrics));
    app.get("/quiet", (c) => jsonResponse(c, { ok: true }, 200));
    await served(app, "/quiet");
    await served(app, "/quiet");
    assert.deepEqual(lines, []);
    const text = await metrics.registry.metrics();
    assert.match(text, /drive_http_requests_total\{method="GET",route="\/quiet",status="200"\} 2/);
    assert.match(text, /drive_http_response_bytes_total 22/);
  });
});
