/**
 * DRIVE_BLOB_STORE=s3 end to end, over HTTP, against a real SeaweedFS: two servers on one KV and
 * one bucket (as two hosts of one service) share every byte. A file uploaded on A downloads
 * whole and by range on B, B zips a folder of them, a tus upload started on A is finished on B,
 * and afterwards the bucket holds exactly the blobs and KV no running write or stage. /readyz
 * checks that the bucket takes a new object; fsck and the orphan sweep see the bucket.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { ApiUser, newApiUser } from "../helpers/api.ts";
import { testBytes } from "../helpers/bytes.ts";
import { type TestServer, withServer, withTwoServersOnOneKv } from "../helpers/server.ts";
import { sharedS3Server } from "../helpers/s3_server.ts";
import { readZip } from "../helpers/zip_reader.ts";
import { openS3Client } from "../../blobs/s3_client.ts";
import { s3PendingKey, s3StageKey } from "../../kv/keys.ts";
import { fsck } from "../../kv/ops/fsck.ts";
import { sweepOrphanBlobs } from "../../kv/tree/blob_sweep.ts";

const MiB = 1024 * 1024;
const TUS = { "tus-resumable": "1.0.0" };
/** The one SeaweedFS of this file outlives each test: sanitizers off (store_fixtures.ts). */
const s3Test = (name: string, fn: () => Promise<void>) =>
  Deno.test({ name, sanitizeOps: false, sanitizeResources: false }, fn);

async function s3Env(): Promise<Record<string, string>> {
  const server = await sharedS3Server();
  return server.env(await server.newBucket());
}

async function objectsIn(server: TestServer): Promise<string[]> {
  const c = server.config;
  const client = openS3Client({
    endpoint: c.s3Endpoint!,
    bucket: c.s3Bucket!,
    region: c.s3Region,
    pathStyle: c.s3PathStyle,
    accessKeyId: c.s3AccessKeyId!,
    secretAccessKey: c.s3SecretAccessKey!,
  });
  return (await Array.fromAsync(client.list(""))).map((o) => o.key).sort();
}

s3Test(
  "s3 store, two servers on one KV and bucket: upload on A; download, range, ZIP and the end of a tus upload on B",
  async () => {
    await withTwoServersOnOneKv(async (a, b) => {
      assert.equal(a.blobs.kind, "s3");
      const aliceA = await newApiUser(a, "alice");
      const aliceB = new (aliceA.constructor as typeof import("../helpers/api.ts").ApiUser)(
        b.url,
        aliceA.userSeq,
        aliceA.tenantId,
        aliceA.apiKey,
        aliceA.accountId,
      );
      const folder = await aliceA.newFolder("reports");
      // Larger than one 8 MiB part: a multipart upload.
      const big = testBytes(17 * MiB + 123, 31);
      const bigRs = await aliceA.newFile("big.bin", big, folder);
      const small = new TextEncoder().encode("small and single-part");
      await aliceA.newFile("small.txt", small, folder);

      const whole = await aliceB.fetch(`/files/${bigRs}/download`);
      assert.equal(whole.status, 200);
      assert.deepEqual(new Uint8Array(await whole.arrayBuffer()), big);
      const start = 8 * MiB - 10;
      const part = await aliceB.fetch(`/files/${bigRs}/download`, {
        headers: { range: `bytes=${start}-${start + 99}` },
      });
      assert.equal(part.status, 206);
      assert.deepEqual(new Uint8Array(await part.arrayBuffer()), big.subarray(start, start + 100));

      const token = await aliceB.call("GET", `/folders/${folder}/download-token`);
      assert.equal(token.status, 200, JSON.stringify(token.body));
      const zipRes = await fetch(`${b.url}${token.body.data.linkUrl}`);
      assert.equal(zipRes.status, 200);
      const zip = readZip(new Uint8Array(await zipRes.arrayBuffer()));
      assert.deepEqual(zip.get("reports/big.bin").data(), big);
      assert.equal(zip.text("reports/small.txt"), "small and single-part");

      // tus: created and half sent on A, finished on B.
      const tusBytes = testBytes(3 * MiB + 77, 32);
      const half = 1_500_000;
      const created = await aliceA.fetch("/uploads", {
        method: "POST",
        headers: {
          ...TUS,
          "upload-length": String(tusBytes.length),
          "upload-metadata": `filename ${Buffer.from("tus.bin").toString("base64")},pfs ${
            Buffer.from(String(folder)).toString("base64")
          }`,
        },
      });
      assert.equal(created.status, 201, await created.text());
      const path = created.headers.get("location")!.replace("/api/external/v1", "");
      const patch = (user: ApiUser, offset: number, body: Uint8Array<ArrayBuffer>) =>
        user.fetch(path, {
          method: "PATCH",
          headers: {
            ...TUS,
            "content-type": "application/offset+octet-stream",
            "upload-offset": String(offset),
          },
          body,
        });
      const first = await patch(aliceA, 0, tusBytes.slice(0, half));
      assert.equal(first.status, 204, await first.text());
      const rest = await patch(aliceB, half, tusBytes.slice(half));
      assert.equal(rest.status, 204, await rest.text());
      const done = (await (await aliceB.fetch(path)).json()).data;
      const tusRs = done.file.resourceSeq;
      const got = await aliceA.fetch(`/files/${tusRs}/download`);
      assert.deepEqual(new Uint8Array(await got.arrayBuffer()), tusBytes);

      // Three blobs, three objects; no running write or stage left in KV.
      assert.equal((await objectsIn(a)).length, 3);
      assert.equal((await Array.fromAsync(a.kv.list({ prefix: s3PendingKey() }))).length, 0);
      assert.equal((await Array.fromAsync(a.kv.list({ prefix: s3StageKey() }))).length, 0);
    }, { env: await s3Env() });
  },
);

s3Test(
  "s3 store: /readyz is ready when the bucket takes an object, 503 naming the blob store when the bucket is missing",
  async () => {
    await withServer(async (server) => {
      const res = await fetch(`${server.url}/readyz`);
      assert.equal(res.status, 200);
      const checks = (await res.json()).checks.map((c: { name: string }) => c.name);
      assert.ok(checks.includes("blobStore"));
      // The probe's object is gone again.
      assert.deepEqual(await objectsIn(server), []);
    }, { env: await s3Env() });
    await withServer(async (server) => {
      const res = await fetch(`${server.url}/readyz`);
      assert.equal(res.status, 503);
      const body = await res.json();
      const blob = body.checks.find((c: { name: string }) => c.name === "blobStore");
      assert.equal(blob.ok, false);
      assert.match(blob.reason, /S3Error/);
    }, { env: { ...await s3Env(), DRIVE_S3_BUCKET: "no-such-bucket-here" } });
  },
);

s3Test(
  "s3 store: fsck checks the bucket both ways; the orphan sweep removes an object no file points at",
  async () => {
    const env = await s3Env();
    await withServer(async (server) => {
      const alice = await newApiUser(server, "alice");
      await alice.newFile("a.txt", "kept");
      await alice.newFile("b.txt", "its object goes missing");
      const clean = await fsck(server.deps, { repair: false });
      assert.deepEqual(clean.problems, []);
      assert.equal(clean.blobs, 2);
      assert.equal(clean.orphanBlobs, 0);

      // Bucket -> KV: an object no file points at. KV -> bucket: a file whose object is gone.
      const s3 = await sharedS3Server();
      const object = (key: string) => `${env.DRIVE_S3_ENDPOINT}/${env.DRIVE_S3_BUCKET}/${key}`;
      const orphan = "0123456789abcdef0123456789abcdef";
      const [lost] = await Array.fromAsync(server.blobs.list());
      const put = await s3.client.fetch(object(`blobs/${orphan}`), {
        method: "PUT",
        body: "stray",
      });
      assert.equal(put.status, 200, await put.text());
      const gone = await s3.client.fetch(object(`blobs/${lost.blobId}`), { method: "DELETE" });
      assert.equal(gone.status, 204, await gone.text());

      const found = await fsck(server.deps, { repair: false });
      assert.equal(found.orphanBlobs, 1);
      assert.deepEqual(
        found.problems.map((p) => [p.kind, p.blobId]),
        [["blob_missing", lost.blobId]],
      );
      const swept = await sweepOrphanBlobs(server.deps, { minAgeMs: 0, dryRun: false });
      assert.equal(swept.removed, 1);
      assert.ok(!(await objectsIn(server)).includes(`blobs/${orphan}`));
    }, { env });
  },
);
