/**
 * Starts the service as a real process in the ways an operator does (a compiled binary, main.ts
 * under restricted permissions) and walks it through what a first administrator does: health,
 * a tenant, a user and a key through the admin API, an upload and its download byte for byte,
 * the console shell and a document from a shipped template (both read from static/, which a
 * binary must carry embedded). Shared by compile_test.ts and deploy_mode_test.ts.
 */
import assert from "node:assert/strict";

export const ROOT = new URL("../../", import.meta.url).pathname;
export const SMOKE_ADMIN_TOKEN = "smoke-admin-token-0123456789abcdef";

export interface ServiceProcess {
  url: string;
  /** Everything printed on stdout and stderr so far. */
  output(): string;
  /** SIGTERM, then the exit status. */
  stop(): Promise<Deno.CommandStatus>;
}

/** A port free right now on 127.0.0.1 (the process is told it, so its start line is not parsed). */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

async function collect(stream: ReadableStream<Uint8Array>, into: string[]): Promise<void> {
  const decoder = new TextDecoder();
  try {
    for await (const chunk of stream) into.push(decoder.decode(chunk, { stream: true }));
  } catch {
    // The process was killed mid-write: what arrived is kept.
  }
}

/**
 * Spawns `command args` with `env` (plus PORT and HOST) in `cwd` and resolves
 * once GET /healthz answers 200; rejects with what it printed when it exits first or does not
 * answer within `startMs`.
 */
export async function startService(
  command: string,
  args: string[],
  env: Record<string, string>,
  startMs = 60_000,
  cwd = ROOT,
): Promise<ServiceProcess> {
  const port = freePort();
  const child = new Deno.Command(command, {
    args,
    cwd,
    env: { PORT: String(port), HOST: "127.0.0.1", DRIVE_LOG_LEVEL: "warning", ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const chunks: string[] = [];
  const drained = Promise.all([collect(child.stdout, chunks), collect(child.stderr, chunks)]);
  const state: { exited: Deno.CommandStatus | null } = { exited: null };
  child.status.then((s) => state.exited = s);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + startMs;
  while (true) {
    if (state.exited) {
      await drained;
      throw new Error(
        `${command} exited (${state.exited.code}) before serving:\n${chunks.join("")}`,
      );
    }
    const ok = await fetch(`${url}/healthz`).then(async (r) => {
      await r.body?.cancel();
      return r.ok;
    }, () => false);
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      await child.status;
      await drained;
      throw new Error(`${command} did not answer /healthz in ${startMs} ms:\n${chunks.join("")}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    output: () => chunks.join(""),
    async stop() {
      if (!state.exited) child.kill("SIGTERM");
      const status = await child.status;
      await drained;
      return status;
    },
  };
}

/** PATH and HOME only: the process gets the configuration the test names and nothing else. */
export function baseEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ["PATH", "HOME", "DENO_DIR"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

async function json(res: Response, status: number, what: string) {
  const text = await res.text();
  assert.equal(res.status, status, `${what}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** The first administrator's walk through a started service; returns the uploaded file's seq. */
export async function smokeWalk(url: string, adminToken = SMOKE_ADMIN_TOKEN): Promise<void> {
  const health = await json(await fetch(`${url}/healthz`), 200, "healthz");
  assert.equal(health.status, "ok");

  const admin = (path: string, body: unknown) =>
    fetch(`${url}/admin/api${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const tenant = await json(await admin("/tenants", { name: "Smoke" }), 201, "tenant");
  const user = await json(
    await admin("/users", {
      tenantId: tenant.id,
      accountId: "smoke",
      email: "smoke@example.com",
      name: "Smoke",
    }),
    201,
    "user",
  );
  const { apiKey } = await json(
    await admin("/keys", { userSeq: user.userSeq, scopes: ["api:read", "api:write"] }),
    201,
    "key",
  );
  const auth = { authorization: `Bearer ${apiKey}` };

  // 300 KiB of non-repeating bytes: several KV chunks with the kv blob store.
  const bytes = new Uint8Array(300 * 1024);
  for (let i = 0; i < bytes.length; i += 65_536) {
    crypto.getRandomValues(bytes.subarray(i, i + 65_536));
  }
  const form = new FormData();
  form.append("file", new Blob([bytes]), "smoke.bin");
  const uploaded = await json(
    await fetch(`${url}/api/external/v1/files`, { method: "POST", headers: auth, body: form }),
    201,
    "upload",
  );
  const rs = uploaded.data.resourceSeq;
  const download = await fetch(`${url}/api/external/v1/files/${rs}/download`, { headers: auth });
  assert.equal(download.status, 200, "download");
  assert.deepEqual(new Uint8Array(await download.arrayBuffer()), bytes, "downloaded bytes");

  // static/ must be there: the console shell, its bundle, and a document template.
  const shell = await fetch(`${url}/admin`);
  assert.equal(shell.status, 200, "console shell");
  assert.match(await shell.text(), /<script[^>]+src="\/static\/build\/admin\.js/);
  const bundle = await fetch(`${url}/static/build/admin.js`);
  assert.equal(bundle.status, 200, "console bundle");
  await bundle.body?.cancel();
  const doc = await json(
    await fetch(`${url}/api/external/v1/documents`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ tt: "word" }),
    }),
    201,
    "document from template",
  );
  const docx = await fetch(`${url}/api/external/v1/files/${doc.data.resourceSeq}/download`, {
    headers: auth,
  });
  assert.equal(docx.status, 200, "template download");
  const head = new Uint8Array(await docx.arrayBuffer()).slice(0, 2);
  assert.deepEqual([...head], [0x50, 0x4b], "a .docx is a ZIP (PK)");
}
