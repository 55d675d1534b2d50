/**
 * The Deno Deploy configuration (docs/scale-out.md "Deno Deploy, honestly"), checked the way CI
 * can: main.ts as its own process under Deploy-like permissions (`--allow-net --allow-env
 * --allow-read=<the app directory>`; no write, run, ffi or sys), its metadata on a real denokv
 * (KV Connect, the stand-in for Deploy's KV) and its bytes on a real SeaweedFS bucket, from an
 * empty working directory with an empty HOME. It serves what a deployment serves, and afterwards
 * the working directory, HOME and the named data directory are still empty: any write would have
 * failed loudly (NotCapable) and the walk with it. The second test gives all of --allow-read on
 * this machine, where LibreOffice is installed: previews must still fall back.
 */
import assert from "node:assert/strict";
import { AdminClient } from "../helpers/admin.ts";
import { ApiUser } from "../helpers/api.ts";
import { Browser, GOOD_PASSWORD, invite } from "../helpers/browser_session.ts";
import { startDenoKv } from "../helpers/denokv_server.ts";
import { startS3Server } from "../helpers/s3_server.ts";
import { tusUpload } from "../helpers/tus.ts";
import { untilValue } from "../helpers/wait.ts";
import { Receiver } from "../events/webhook_receiver.ts";
import { baseEnv, ROOT, type ServiceProcess, startService } from "./smoke.ts";

const ADMIN = "deploy-admin-token-0123456789abcdef";
/** As on Deploy: the network, the environment, reading the app's own files. Nothing else. */
const DEPLOY_PERMISSIONS = ["--allow-net", "--allow-env", `--allow-read=${ROOT}`];

/** A 1×1 PNG. */
const PIXEL_PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

/** The Deno cache the child loads its modules from (never its HOME: that must stay empty). */
function denoDir(): string {
  const home = Deno.env.get("HOME") ?? "/root";
  return Deno.env.get("DENO_DIR") ?? `${Deno.env.get("XDG_CACHE_HOME") ?? `${home}/.cache`}/deno`;
}

function randomBytes(n: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i += 65_536) crypto.getRandomValues(out.subarray(i, i + 65_536));
  return out;
}

async function listDir(path: string): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(path)) names.push(e.name);
  return names;
}

/** The keys of every object in `bucket` (one page: the test writes a handful). */
async function objectKeys(
  s3: Awaited<ReturnType<typeof startS3Server>>,
  bucket: string,
): Promise<string[]> {
  const res = await s3.client.fetch(`${s3.endpoint}/${bucket}?list-type=2`);
  const xml = await res.text();
  assert.equal(res.status, 200, xml);
  return [...xml.matchAll(/<Key>([^<]+)<\/Key>/g)].map((m) => m[1]);
}

/**
 * An office document's `view` answers its original bytes (no LibreOffice), an image's thumbnail
 * 501 PREVIEW_004 (sharp is a native addon: without --allow-ffi it cannot load).
 */
async function previewsFallBack(alice: ApiUser, folder?: number): Promise<void> {
  const doc = await alice.call("POST", "/documents", { tt: "word" });
  assert.equal(doc.status, 201, JSON.stringify(doc.body));
  const view = await alice.fetch(`/files/${doc.body.data.resourceSeq}/view`);
  assert.equal(view.status, 200);
  assert.equal(view.headers.get("content-type"), "application/octet-stream");
  assert.match(view.headers.get("content-disposition") ?? "", /^attachment/);
  const head = new Uint8Array(await view.arrayBuffer()).slice(0, 2);
  assert.deepEqual([...head], [0x50, 0x4b], "the original .docx, not a PDF");
  const image = await alice.upload("a.png", PIXEL_PNG, folder ? { pfs: folder } : {});
  const thumb = await alice.call("GET", `/files/${image.body.data.resourceSeq}/thumbnail`);
  assert.equal(thumb.status, 501, JSON.stringify(thumb.body));
  assert.equal(thumb.body.errorCode, "PREVIEW_004", JSON.stringify(thumb.body));
}

async function walk(t: Deno.TestContext, service: ServiceProcess, ctx: {
  s3: Awaited<ReturnType<typeof startS3Server>>;
  bucket: string;
  receiver: Receiver;
}) {
  const url = service.url;
  const admin = new AdminClient(url, ADMIN);

  await t.step("healthz and readyz (the bucket is reachable and writable)", async () => {
    assert.equal((await fetch(`${url}/healthz`).then((r) => r.json())).status, "ok");
    const ready = await fetch(`${url}/readyz`);
    const body = await ready.text();
    assert.equal(ready.status, 200, body);
  });

  const tenant = await admin.createTenant("Deploy");
  const user = await admin.createUser(tenant.id, "deployer");
  const alice = new ApiUser(url, user.userSeq, tenant.id, await admin.createKey(user.userSeq), "");

  await t.step("sign-in with a password set through an invitation, and an API key", async () => {
    // The browser sends the service's public origin (DRIVE_PUBLIC_URL's default), as the app does.
    const origin = url.replace("127.0.0.1", "localhost");
    const token = await invite(admin, user.userSeq);
    const accepted = await new Browser(url, origin).account("POST", "/invitations/accept", {
      token,
      password: GOOD_PASSWORD,
    });
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    const browser = new Browser(url, origin);
    const signedIn = await browser.signIn("deployer");
    assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
    const me = await browser.account("GET", "/me");
    assert.equal(me.status, 200, JSON.stringify(me.body));
    assert.equal((await alice.call("GET", "/resources")).status, 200);
  });

  const hook = await admin.call("POST", "/webhooks", {
    url: `${ctx.receiver.url}/hook`,
    events: ["created"],
    tenantId: tenant.id,
  });
  assert.equal(hook.status, 201, JSON.stringify(hook.body));
  const cursor = (await alice.call("GET", "/changes/cursor")).body.data.cursor as string;

  const folder = await alice.newFolder("on-deploy");

  await t.step(
    "upload and download through the bucket (multipart: larger than a part)",
    async () => {
      const before = (await objectKeys(ctx.s3, ctx.bucket)).length;
      const bytes = randomBytes(9 * 1024 * 1024 + 13);
      const up = await alice.upload("big.bin", bytes, { pfs: folder });
      assert.equal(up.status, 201, JSON.stringify(up.body));
      const res = await alice.fetch(`/files/${up.body.data.resourceSeq}/download`);
      assert.equal(res.status, 200);
      assert.deepEqual(new Uint8Array(await res.arrayBuffer()), bytes);
      assert.ok((await objectKeys(ctx.s3, ctx.bucket)).length > before, "no object in the bucket");
    },
  );

  await t.step("a tus upload (staged in KV, sealed into the bucket)", async () => {
    const bytes = randomBytes(700 * 1024 + 5);
    const run = await tusUpload(alice, bytes, {
      chunkSize: 256 * 1024,
      metadata: { filename: "tus.bin", pfs: String(folder) },
    });
    assert.equal(run.outcome, "success");
    const state = await alice.fetch(new URL(run.url!).pathname.replace("/api/external/v1", ""));
    const rs = (await state.json()).data.file.resourceSeq;
    const res = await alice.fetch(`/files/${rs}/download`);
    assert.deepEqual(new Uint8Array(await res.arrayBuffer()), bytes);
  });

  await t.step("the change feed reports the folder and the files", async () => {
    // The feed reads up to the head this process's poller last saw (within ~0.2 s).
    const wanted = ["on-deploy", "big.bin", "tus.bin"];
    await untilValue("the three changes in the feed", async () => {
      const res = await alice.call("GET", `/changes?cursor=${cursor}&ps=100`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const names = res.body.data.items.map((c: { resource: { name: string } }) => c.resource.name);
      return wanted.every((n) => names.includes(n)) ? names : null;
    });
  });

  await t.step("webhooks are delivered from the KV outbox (no KV queue)", async () => {
    const got = await ctx.receiver.waitFor(
      "/hook",
      (g) => g.some((r) => r.json?.data?.resource?.name === "on-deploy"),
    );
    assert.ok(got.every((r) => r.json.type === "created"));
  });

  await t.step("previews fall back: no soffice, no sharp, as on Deploy", async () => {
    await previewsFallBack(alice, folder);
  });
}

Deno.test("Deploy configuration: denokv + S3 under --allow-net --allow-env --allow-read=<app>, nothing written", async (t) => {
  const kv = await startDenoKv();
  const s3 = await startS3Server();
  const receiver = new Receiver();
  const scratch = await Deno.makeTempDir({ prefix: "drive-deploy-config-" });
  const cwd = `${scratch}/cwd`;
  const home = `${scratch}/home`;
  const dataDir = `${scratch}/data`;
  await Deno.mkdir(cwd);
  await Deno.mkdir(home);
  try {
    const bucket = await s3.newBucket();
    const service = await startService(
      Deno.execPath(),
      [
        "run",
        ...DEPLOY_PERMISSIONS,
        `--config=${ROOT}deno.json`,
        `--lock=${ROOT}deno.runtime.lock`,
        "--frozen",
        `${ROOT}main.ts`,
      ],
      {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        HOME: home,
        DENO_DIR: denoDir(),
        DENO_NO_UPDATE_CHECK: "1",
        DRIVE_KV: kv.url,
        ...kv.env,
        ...s3.env(bucket),
        // Named but never created: Deploy mode must not need it.
        DRIVE_DATA_DIR: dataDir,
        DRIVE_ADMIN_TOKEN: ADMIN,
        DRIVE_WEBHOOK_ALLOW_PRIVATE: "true",
      },
      60_000,
      cwd,
    );
    try {
      await walk(t, service, { s3, bucket, receiver });
    } finally {
      const status = await service.stop();
      assert.equal(status.code, 0, service.output());
    }
    assert.doesNotMatch(service.output(), /NotCapable|Requires (write|run|ffi|sys) access/);
    assert.deepEqual(await listDir(cwd), [], "written into the working directory");
    assert.deepEqual(await listDir(home), [], "written into HOME");
    assert.deepEqual((await listDir(scratch)).sort(), ["cwd", "home"], "DRIVE_DATA_DIR created");
  } finally {
    await receiver.close();
    await s3.stop();
    await kv.stop();
    await Deno.remove(scratch, { recursive: true });
  }
});

Deno.test("Deploy permissions with all of --allow-read, on a machine with LibreOffice: previews still fall back", async () => {
  // soffice and python3-uno are readable here, but nothing may run or write: the converter must
  // count as missing (it used to be found, and `view` answered 500 NotCapable).
  const service = await startService(Deno.execPath(), [
    "run",
    "--allow-net",
    "--allow-env",
    "--allow-read",
    `${ROOT}main.ts`,
  ], {
    ...baseEnv(),
    DRIVE_KV: ":memory:",
    DRIVE_BLOB_STORE: "kv",
    DRIVE_ADMIN_TOKEN: ADMIN,
  });
  try {
    const admin = new AdminClient(service.url, ADMIN);
    const tenant = await admin.createTenant("Deploy");
    const user = await admin.createUser(tenant.id, "viewer");
    const key = await admin.createKey(user.userSeq);
    await previewsFallBack(new ApiUser(service.url, user.userSeq, tenant.id, key, "viewer"));
  } finally {
    await service.stop();
  }
  assert.doesNotMatch(service.output(), /NotCapable/);
});
