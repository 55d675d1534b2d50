/**
 * Pieces of bench/scale_out.ts: main.ts as a host of a scale-out deployment (one denokv, one
 * bucket), a streamed multipart body for POST /files (the mixed load's small uploads),
 * and a sampler of a process's VmRSS.
 */
import { AdminClient } from "../tests/helpers/admin.ts";
import { ADMIN_TOKEN, freePort, MiB, procKiB, waitFor } from "./lib.ts";

const ROOT = new URL("..", import.meta.url).pathname;

export interface Host {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts main.ts (deno run -A, as a host runs it) with `env` on a free port; resolves when ready. */
export async function startHost(env: Record<string, string>): Promise<Host> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}main.ts`],
    cwd: ROOT,
    env: {
      PORT: String(port),
      HOST: "127.0.0.1",
      DRIVE_ADMIN_TOKEN: ADMIN_TOKEN,
      DRIVE_LOG_LEVEL: "error",
      DRIVE_PUBLIC_URL: `http://127.0.0.1:${port}`,
      ...env,
    },
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/healthz`);
  return {
    url,
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

/** A tenant and a user with a large quota on the host at `url`: its key. */
export async function hostUser(url: string, name: string, tenantId?: number) {
  const admin = new AdminClient(url, ADMIN_TOKEN);
  const tenant = tenantId ?? (await admin.createTenant(`${name}-org`)).id;
  const user = await admin.createUser(tenant, name, { quotaBytes: 1024 * 1024 * MiB });
  return { key: await admin.createKey(user.userSeq), tenantId: tenant };
}

/** `size` bytes of `block`, repeated, in 1 MiB pieces (a body that never sits whole in memory). */
export function bytesOf(block: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let done = 0;
  return new ReadableStream({
    pull(c) {
      if (done >= size) return c.close();
      const at = done % block.length;
      const n = Math.min(MiB, size - done);
      c.enqueue(block.slice(at, at + n));
      done += n;
    },
  });
}

/** A multipart/form-data body: the parent folder `pfs`, then a file part of `size` bytes, streamed. */
export function multipartBody(block: Uint8Array, size: number, name: string, pfs?: number) {
  const boundary = `----scaleout${crypto.randomUUID()}`;
  const field = pfs === undefined
    ? ""
    : `--${boundary}\r\nContent-Disposition: form-data; name="pfs"\r\n\r\n${pfs}\r\n`;
  const head = new TextEncoder().encode(
    `${field}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
      `Content-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = new TextEncoder().encode(`\r\n--${boundary}--\r\n`);
  const reader = bytesOf(block, size).getReader();
  let stage = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(c) {
      if (stage === 0) {
        stage = 1;
        return c.enqueue(head);
      }
      if (stage === 1) {
        const r = await reader.read();
        if (!r.done) return c.enqueue(r.value);
        stage = 2;
        return c.enqueue(tail);
      }
      c.close();
    },
  });
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

export async function drain(stream: ReadableStream<Uint8Array>): Promise<number> {
  let n = 0;
  for await (const chunk of stream) n += chunk.byteLength;
  return n;
}

/**
 * Samples `pid`'s VmRSS every `everyMs` while `fn` runs: the RSS before, the highest sample,
 * and the last one (MiB).
 */
export async function rssDuring<T>(pid: number, fn: () => Promise<T>, everyMs = 50) {
  const before = (await procKiB(pid, "VmRSS")) / 1024;
  let peak = before;
  let last = before;
  let running = true;
  const sampler = (async () => {
    while (running) {
      last = (await procKiB(pid, "VmRSS")) / 1024;
      peak = Math.max(peak, last);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  const t = performance.now();
  try {
    const value = await fn();
    return { value, seconds: (performance.now() - t) / 1000, before, peak, last };
  } finally {
    running = false;
    await sampler;
  }
}
