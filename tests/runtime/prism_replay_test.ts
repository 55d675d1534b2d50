/**
 * A realistic session replayed through Prism's validating proxy (`prism proxy --errors`), one
 * proxy per served OpenAPI document in front of the real server: every request and every answer
 * must match its document, 0 violations. The session: an administrator makes a tenant, a user
 * and a key; the user makes a folder, uploads (multipart and tus), lists, downloads (whole, a
 * range, by download token), searches, shares the folder by public link and trashes a file; an
 * anonymous visitor opens the link, lists it, downloads from it, and unlocks a password link.
 * Errors are part of it too (unknown resource, unknown link). The storage-provider protocol
 * (/doc-storage/v1) serves no OpenAPI document, so it is not replayed here.
 */
import assert from "node:assert/strict";
import { ADMIN_TOKEN } from "../helpers/admin.ts";
import { withServer } from "../helpers/server.ts";
import { type Json, npmTool, PRISM, writeDocuments } from "./openapi_tools.ts";

interface Proxy {
  url: string;
  log: string[];
  close(): Promise<void>;
}

/** Starts `prism proxy --errors <file> <upstream>` on a free port and waits until it listens. */
async function startPrism(file: string, upstream: string, cwd: string): Promise<Proxy> {
  const args = ["proxy", "--errors", "-h", "127.0.0.1", "-p", "0", file, upstream];
  const child = npmTool(PRISM, args, cwd).spawn();
  const log: string[] = [];
  const listening = Promise.withResolvers<string>();
  // Both pipes are read for the proxy's whole life: Prism logs every request, and a full pipe
  // would stall it.
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    let rest = "";
    for await (const chunk of stream) {
      const lines = (rest + decoder.decode(chunk, { stream: true })).split("\n");
      rest = lines.pop()!;
      for (const line of lines) {
        log.push(line);
        const at = /Prism is listening on (http:\/\/\S+)/.exec(line);
        if (at) listening.resolve(at[1]);
      }
    }
  };
  const drained = Promise.all([drain(child.stdout), drain(child.stderr)]).then(() =>
    listening.reject(new Error(`prism ended before listening:\n${log.join("\n")}`))
  );
  const close = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
    await child.status;
    await drained;
  };
  try {
    return { url: await listening.promise, log, close };
  } catch (err) {
    await close();
    throw err;
  }
}

type Api = "external" | "admin" | "public-links";

interface Answer {
  status: number;
  headers: Headers;
  body: Json;
}

/** Sends requests through the proxies and keeps every violation Prism reports. */
class Session {
  readonly violations: string[] = [];
  readonly calls: string[] = [];
  apiKey = "";

  constructor(private readonly proxies: Record<Api, string>) {}

  async send(
    api: Api,
    method: string,
    path: string,
    opts: { json?: unknown; body?: BodyInit; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const headers = new Headers(opts.headers);
    const token = api === "admin" ? ADMIN_TOKEN : api === "external" ? this.apiKey : "";
    if (token && !headers.has("authorization")) headers.set("authorization", `Bearer ${token}`);
    if (opts.json !== undefined) headers.set("content-type", "application/json");
    const res = await fetch(`${this.proxies[api]}${path}`, {
      method,
      headers,
      body: opts.json !== undefined ? JSON.stringify(opts.json) : opts.body,
    });
    const text = await res.text();
    let body: Json = text;
    try {
      body = text === "" ? null : JSON.parse(text);
    } catch { /* bytes of a file */ }
    const at = `${api} ${method} ${path} → ${res.status}`;
    this.calls.push(at);
    const reported = res.headers.get("sl-violations");
    if (reported) this.violations.push(`${at}: ${reported}`);
    return { status: res.status, headers: res.headers, body };
  }

  /** `send`, then the status must be `status`. */
  async expect(status: number, ...args: Parameters<Session["send"]>): Promise<Answer> {
    const answer = await this.send(...args);
    assert.equal(
      answer.status,
      status,
      `${args[0]} ${args[1]} ${args[2]}: ${JSON.stringify(answer.body)}\n${this.violations}`,
    );
    return answer;
  }
}

const b64 = (s: string) => btoa(s);

async function replay(s: Session): Promise<void> {
  // The administrator: a tenant, a user, a key; then reads of each.
  const tenant = await s.expect(201, "admin", "POST", "/tenants", { json: { name: "Acme" } });
  const user = await s.expect(201, "admin", "POST", "/users", {
    json: {
      tenantId: tenant.body.id,
      accountId: "alice",
      email: "alice@example.com",
      name: "Alice",
    },
  });
  const userSeq = user.body.userSeq;
  const key = await s.expect(201, "admin", "POST", "/keys", {
    json: { userSeq, scopes: ["api:read", "api:write"] },
  });
  s.apiKey = key.body.apiKey;
  await s.expect(200, "admin", "GET", `/users/${userSeq}`);
  await s.expect(200, "admin", "GET", `/users?tenantId=${tenant.body.id}`);
  await s.expect(200, "admin", "GET", "/tenants");
  await s.expect(200, "admin", "GET", "/keys");
  await s.expect(200, "admin", "GET", "/adapters");
  await s.expect(404, "admin", "GET", "/users/999999");

  // The user: a folder, two uploads, a listing, downloads.
  const folder = (await s.expect(201, "external", "POST", "/folders", { json: { fn: "Reports" } }))
    .body.data.resourceSeq;
  const upload = async (name: string, blob: Blob) => {
    const form = new FormData();
    form.append("pfs", String(folder));
    form.append("file", blob, name);
    return (await s.expect(201, "external", "POST", "/files", { body: form })).body.data
      .resourceSeq;
  };
  const notes = await upload("notes.txt", new Blob(["hello world\n"], { type: "text/plain" }));
  const photo = await upload("photo.png", new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])]));
  await s.expect(200, "external", "GET", `/resources?pfs=${folder}`);
  await s.expect(200, "external", "GET", `/resources/${notes}`);
  await s.expect(404, "external", "GET", "/resources/999999");
  await s.expect(200, "external", "GET", `/files/${notes}/download`);
  await s.expect(206, "external", "GET", `/files/${photo}/download`, {
    headers: { range: "bytes=0-1" },
  });
  const dt = await s.expect(200, "external", "GET", `/files/${photo}/download-token`);
  const link = new URL(dt.body.data.linkUrl, "http://x");
  s.apiKey = ""; // the token stands for the key
  await s.expect(200, "external", "GET", `/files/download${link.search}`);
  s.apiKey = key.body.apiKey;

  // A resumable upload: create, where to resume (HEAD), the bytes, its status.
  const tus = { "tus-resumable": "1.0.0" };
  const created = await s.expect(201, "external", "POST", "/uploads", {
    headers: {
      ...tus,
      "upload-length": "5",
      "upload-metadata": `filename ${b64("tus.txt")},pfs ${b64(String(folder))}`,
    },
  });
  const uploadId = created.headers.get("location")!.split("/").pop()!;
  await s.expect(200, "external", "HEAD", `/uploads/${uploadId}`, { headers: tus });
  await s.expect(204, "external", "PATCH", `/uploads/${uploadId}`, {
    headers: {
      ...tus,
      "upload-offset": "0",
      "content-type": "application/offset+octet-stream",
    },
    body: new TextEncoder().encode("12345"),
  });
  await s.expect(200, "external", "GET", `/uploads/${uploadId}`, { headers: tus });
  await s.expect(200, "external", "GET", "/search?q=notes");
  await s.expect(200, "external", "GET", "/changes/cursor");

  // Sharing: a public link to the folder, and a password link to the photo.
  const flags = { cv: true, ce: false, cd: true, cu: false, cs: false };
  const share = await s.expect(201, "external", "POST", "/shares", {
    json: { rs: folder, st: "PUBLIC_LINK", ...flags },
  });
  const token = share.body.data.linkUrl.split("/s/")[1];
  await s.expect(200, "external", "GET", `/shares/${share.body.data.shareSeq}`);
  await s.expect(200, "external", "GET", `/shares/link/${token}`);
  const locked = await s.expect(201, "external", "POST", "/shares", {
    json: { rs: photo, st: "PUBLIC_LINK", ...flags, password: "s3cret-pass" },
  });
  const lockedToken = locked.body.data.linkUrl.split("/s/")[1];

  // The anonymous visitor.
  await s.expect(200, "public-links", "GET", `/links/${token}`);
  await s.expect(200, "public-links", "GET", `/links/${token}/items`);
  await s.expect(200, "public-links", "GET", `/links/${token}/files/${notes}/download`);
  await s.expect(206, "public-links", "GET", `/links/${token}/files/${photo}/download`, {
    headers: { range: "bytes=1-2" },
  });
  await s.expect(404, "public-links", "GET", "/links/NoSuchToken123");
  await s.expect(200, "public-links", "GET", `/links/${lockedToken}`);
  const access = await s.expect(200, "public-links", "POST", `/links/${lockedToken}/access`, {
    json: { password: "s3cret-pass" },
  });
  await s.expect(200, "public-links", "GET", `/links/${lockedToken}/files/${photo}/download`, {
    headers: { "x-link-access": access.body.data.accessToken },
  });

  // The user trashes the text file; the admin revokes the link.
  await s.expect(200, "external", "PATCH", `/files/${notes}/delete`);
  await s.expect(200, "external", "GET", "/trash");
  await s.expect(200, "admin", "GET", "/share-links");
}

Deno.test("a realistic session through Prism's validating proxy finds 0 violations", async () => {
  await withServer(async (server) => {
    const dir = await Deno.makeTempDir({ prefix: "prism-" });
    const proxies: Proxy[] = [];
    try {
      const urls: Partial<Record<Api, string>> = {};
      // One after the other: the first creates the tools' node_modules folder in `dir`.
      for (const { slug, file, base } of await writeDocuments(server.url, dir)) {
        const proxy = await startPrism(file, `${server.url}${base}`, dir);
        proxies.push(proxy);
        urls[slug as Api] = proxy.url;
      }
      const session = new Session(urls as Record<Api, string>);
      await replay(session);
      assert.deepEqual(session.violations, [], session.violations.join("\n"));
      assert.ok(session.calls.length >= 40, session.calls.join("\n"));
    } finally {
      for (const proxy of proxies) await proxy.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
});
