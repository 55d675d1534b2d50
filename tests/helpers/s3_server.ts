/**
 * A real S3 server (SeaweedFS, `weed server -s3`) for the s3 blob store's tests: one per call, on
 * 127.0.0.1, over a fresh temp directory, with one test identity. `.ci/run` builds the binary
 * once and caches it under $HOME/.cache/drive-ci/bin; `S3_WEED_BIN` names another. A missing
 * binary fails the test loudly: an s3 test never skips itself.
 */
import { AwsClient } from "aws4fetch";

const ACCESS_KEY_ID = "drive-test-access-key";
const SECRET_ACCESS_KEY = "drive-test-secret-key-0123456789abcdef";

/** Where the weed binary is; throws (never skips) when it is not installed. */
export function weedBinary(): string {
  const home = Deno.env.get("HOME") ?? "/root";
  const candidates = [Deno.env.get("S3_WEED_BIN"), `${home}/.cache/drive-ci/bin/weed`];
  for (const path of candidates) {
    if (!path) continue;
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch { /* not there */ }
  }
  throw new Error(
    "SeaweedFS (weed) is not installed: run .ci/run once (it builds it into " +
      "$HOME/.cache/drive-ci/bin) or set S3_WEED_BIN",
  );
}

export interface S3TestServer {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** A new, empty bucket (a fresh one per test keeps tests apart on one server). */
  newBucket(): Promise<string>;
  /** The service's settings for `bucket` (DRIVE_BLOB_STORE=s3 and the DRIVE_S3_* variables). */
  env(bucket: string): Record<string, string>;
  /** A plain signing client on the server (what the tests look at the bucket with). */
  client: AwsClient;
  stop(): Promise<void>;
  /** Stops it at once, synchronously (a process's unload, where nothing can be awaited). */
  kill(): void;
}

/**
 * One server for the whole test process, started on first use and killed when the process ends
 * (a start costs ~12 s, so each contract test gets a bucket of its own instead). The memo is the
 * one piece of state here: it is what makes the server shared.
 */
const shared: { server?: Promise<S3TestServer> } = {};

export function sharedS3Server(): Promise<S3TestServer> {
  if (!shared.server) {
    shared.server = startS3Server();
    shared.server.then((s) => globalThis.addEventListener("unload", () => s.kill()), () => {});
  }
  return shared.server;
}

function freePort(hostname: string): number {
  const l = Deno.listen({ hostname, port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/**
 * Starts SeaweedFS (master, volume, filer and S3 gateway in one process) and waits for S3. A
 * start that never serves (a port taken between choosing and binding it) is tried once more on
 * fresh ports before failing with the server's last log lines. `host`: the address it listens on
 * (the two-host tests put it on their bridge, tests/helpers/netns.ts).
 */
export async function startS3Server({ host = "127.0.0.1" } = {}): Promise<S3TestServer> {
  try {
    return await startOnce(host);
  } catch {
    return await startOnce(host);
  }
}

async function startOnce(host: string): Promise<S3TestServer> {
  const bin = weedBinary();
  const dir = await Deno.makeTempDir({ prefix: "drive-weed-" });
  const config = {
    identities: [{
      name: "drive",
      credentials: [{ accessKey: ACCESS_KEY_ID, secretKey: SECRET_ACCESS_KEY }],
      actions: ["Admin", "Read", "Write", "List", "Tagging"],
    }],
  };
  await Deno.writeTextFile(`${dir}/s3.json`, JSON.stringify(config));
  await Deno.mkdir(`${dir}/data`);
  const port = () => String(freePort(host));
  const s3Port = freePort(host);
  const child = new Deno.Command(bin, {
    args: [
      "server",
      `-dir=${dir}/data`,
      `-ip=${host}`,
      `-ip.bind=${host}`,
      `-master.port=${port()}`,
      `-master.port.grpc=${port()}`,
      "-master.telemetry=false",
      // Small volumes: a test server on a temp directory must not reserve gigabytes.
      "-master.volumeSizeLimitMB=128",
      "-volume.max=0",
      `-volume.port=${port()}`,
      `-volume.port.grpc=${port()}`,
      `-filer.port=${port()}`,
      `-filer.port.grpc=${port()}`,
      `-filer.localSocket=${dir}/filer.sock`,
      "-s3",
      `-s3.port=${s3Port}`,
      `-s3.port.grpc=${port()}`,
      `-s3.localSocket=${dir}/s3.sock`,
      "-s3.port.iceberg=0",
      "-s3.port.lance=0",
      // As AWS: a write into a missing bucket fails (SeaweedFS would create it for an admin).
      "-s3.autoCreateBucket=false",
      `-s3.config=${dir}/s3.json`,
    ],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  // The log's tail, for the error when the server never serves (kept bounded).
  let logTail = "";
  const echo = Deno.env.get("S3_WEED_LOG") !== undefined;
  const drained = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({
      write(text) {
        if (echo) console.error(text);
        logTail = (logTail + text).slice(-4000);
      },
    }),
  ).catch(() => {});
  const endpoint = `http://${host}:${s3Port}`;
  const client = new AwsClient({
    accessKeyId: ACCESS_KEY_ID,
    secretAccessKey: SECRET_ACCESS_KEY,
    service: "s3",
    region: "us-east-1",
  });
  const stop = async () => {
    // Killed outright: its data is a temp directory, and a graceful stop takes ~30 s.
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
    await child.status;
    await drained;
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  // Ready once a bucket can be created and an object written into it (the volume server has
  // joined the master): a bare S3 answer comes earlier than that.
  const deadline = Date.now() + 60_000;
  let n = 0;
  for (;;) {
    try {
      const bucket = `ready${n++}`;
      await s3Ok(client, `${endpoint}/${bucket}`, { method: "PUT" });
      await s3Ok(client, `${endpoint}/${bucket}/probe`, { method: "PUT", body: "ok" });
      break;
    } catch (err) {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`SeaweedFS did not serve S3 on ${endpoint}: ${err}\n${logTail}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  let buckets = 0;
  return {
    endpoint,
    accessKeyId: ACCESS_KEY_ID,
    secretAccessKey: SECRET_ACCESS_KEY,
    client,
    async newBucket() {
      const bucket = `drive-test-${buckets++}-${crypto.randomUUID().slice(0, 8)}`;
      await s3Ok(client, `${endpoint}/${bucket}`, { method: "PUT" });
      return bucket;
    },
    env: (bucket) => ({
      DRIVE_BLOB_STORE: "s3",
      DRIVE_S3_ENDPOINT: endpoint,
      DRIVE_S3_BUCKET: bucket,
      DRIVE_S3_ACCESS_KEY_ID: ACCESS_KEY_ID,
      DRIVE_S3_SECRET_ACCESS_KEY: SECRET_ACCESS_KEY,
    }),
    stop,
    kill() {
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
      try {
        Deno.removeSync(dir, { recursive: true });
      } catch { /* removed already */ }
    },
  };
}

async function s3Ok(client: AwsClient, url: string, init: RequestInit): Promise<void> {
  const res = await client.fetch(url, init);
  const text = await res.text();
  if (!res.ok) throw new Error(`${init.method ?? "GET"} ${url}: ${res.status} ${text}`);
}
