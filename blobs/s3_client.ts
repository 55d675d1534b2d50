/**
 * The few S3 calls the s3 blob store makes (blobs/s3.ts), signed with aws4fetch over Deno's own
 * fetch: put, ranged get, delete, server-side copy, list (v2) and multipart uploads.
 *
 * Why aws4fetch: a maintained, fetch-based SigV4 signer with no Node stream shims, so a part is
 * one fetch with a bounded Uint8Array body and a download is the response's own stream. Measured
 * here (2026-11-28, 2-core machine): `deno info` puts aws4fetch 1.0.20 at 64 KB with no
 * dependencies against 8.31 MB and 25 for @aws-sdk/client-s3 3.1175.0, and importing it took 3-8
 * ms against 248-618 ms (three runs each). Through this store, 256 MiB move up at a median
 * 0.97x and down at 1.04x of what aws4fetch alone moves against the same SeaweedFS (5 rounds,
 * bench/s3.ts, docs/benchmarks.md): the store adds no cost above the machine's noise. The SDK's
 * transfer rate was not measured.
 *
 * Every body sent is a bounded Uint8Array (at most one part), signed as UNSIGNED-PAYLOAD so no
 * byte is hashed twice: aws4fetch would otherwise read a whole stream body into memory to hash
 * it. Credentials are held here and never logged; errors carry the S3 code and status only.
 *
 * Bodies (a part, a small object) do not go through fetch but are written from the caller's own
 * buffer onto a connection of their own (`sendBytes`, blobs/s3_send.ts). Deno's fetch copies a
 * Uint8Array body twice (the Request's body extraction, then op_fetch): 16 MiB of garbage per
 * 8 MiB part that the collector frees late. Measured here (2026-11-28, 128 parts of 8 MiB, two
 * in flight, three reused buffers, against SeaweedFS): RSS grew 114 and 17 MiB through fetch,
 * 1.3 and 1.6 MiB written to the socket; through main.ts a 1 GiB upload grew the server by
 * 108 MiB before, and op_fetch, the body extraction and the collector were a third of its CPU
 * profile (docs/benchmarks.md, "Scale-out: S3 path through the service").
 */
import { AwsClient, AwsV4Signer } from "aws4fetch";
import { sendBytes } from "./s3_send.ts";

export interface S3Settings {
  /** `http(s)://host[:port]`, no path. */
  endpoint: string;
  bucket: string;
  region: string;
  /** `endpoint/bucket/key` (true) or `bucket.endpoint/key` (virtual-hosted). */
  pathStyle: boolean;
  accessKeyId: string;
  secretAccessKey: string;
}

/** An S3 answer that was not a success: its HTTP status and S3 error code. */
export class S3Error extends Error {
  constructor(readonly status: number, readonly code: string, what: string) {
    super(`S3 ${what}: ${status} ${code}`);
    this.name = "S3Error";
  }
}

export interface ListedObject {
  key: string;
  size: number;
  /** LastModified (ms). */
  modifiedAt: number;
}

export interface S3Client {
  readonly bucket: string;
  put(key: string, body: Uint8Array): Promise<void>;
  /** The object's bytes (or the inclusive range); null when it is missing. */
  get(key: string, range?: { start: number; end: number }): Promise<Response | null>;
  /** Whether the object exists (HEAD object). */
  exists(key: string): Promise<boolean>;
  /** Deleting a missing object is not an error (S3 answers 204 either way). */
  delete(key: string): Promise<void>;
  /** Server-side copy; false when the source is missing. */
  copy(from: string, to: string): Promise<boolean>;
  list(prefix: string): AsyncIterable<ListedObject>;
  createMultipart(key: string): Promise<string>;
  uploadPart(key: string, uploadId: string, partNumber: number, body: Uint8Array): Promise<string>;
  completeMultipart(key: string, uploadId: string, etags: string[]): Promise<void>;
  /** Aborting an upload that is already gone is not an error. */
  abortMultipart(key: string, uploadId: string): Promise<void>;
  /** Whether the bucket answers at all (HEAD bucket). */
  headBucket(): Promise<void>;
}

const UNSIGNED = { "X-Amz-Content-Sha256": "UNSIGNED-PAYLOAD" };
const RETRIES = 3;

function xmlValues(xml: string, tag: string): string[] {
  const out: string[] = [];
  const re = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "g");
  for (let m = re.exec(xml); m; m = re.exec(xml)) out.push(m[1]);
  return out;
}

const unescapeXml = (s: string) =>
  s.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"')
    .replaceAll("&apos;", "'").replaceAll("&amp;", "&");

export function openS3Client(s: S3Settings): S3Client {
  // Retries only where the body is a bounded buffer (aws4fetch re-sends it); 5xx and 429 only.
  const aws = new AwsClient({
    accessKeyId: s.accessKeyId,
    secretAccessKey: s.secretAccessKey,
    service: "s3",
    region: s.region,
    retries: RETRIES,
  });
  const base = new URL(s.endpoint);
  const bucketUrl = s.pathStyle
    ? `${base.origin}/${encodeURIComponent(s.bucket)}`
    : `${base.protocol}//${s.bucket}.${base.host}`;
  const url = (key: string, query = "") =>
    `${bucketUrl}/${key.split("/").map(encodeURIComponent).join("/")}${query}`;

  async function fail(res: Response, what: string): Promise<never> {
    const text = await res.text().catch(() => "");
    throw new S3Error(res.status, xmlValues(text, "Code")[0] ?? "Unknown", what);
  }

  /** PUT `body` to `u`, signed, from the buffer itself; 5xx and 429 are tried again. */
  async function putBytes(what: string, u: string, body: Uint8Array): Promise<Headers> {
    for (let attempt = 0;; attempt++) {
      const signer = new AwsV4Signer({
        url: u,
        method: "PUT",
        headers: { ...UNSIGNED, "content-length": String(body.byteLength) },
        accessKeyId: s.accessKeyId,
        secretAccessKey: s.secretAccessKey,
        service: "s3",
        region: s.region,
        // The day's signing key, derived once (four HMACs) as the client's own calls do.
        cache: aws.cache,
      });
      const { headers } = await signer.sign();
      const res = await sendBytes(new URL(u), "PUT", headers, body);
      const again = res.status >= 500 || res.status === 429;
      if (res.status >= 200 && res.status < 300) return res.headers;
      if (!again || attempt === RETRIES) {
        throw new S3Error(res.status, xmlValues(res.text, "Code")[0] ?? "Unknown", what);
      }
      // aws4fetch's backoff: a random wait up to 50 ms doubled per attempt.
      await new Promise((r) => setTimeout(r, Math.random() * 50 * 2 ** attempt));
    }
  }

  async function call(what: string, u: string, init: RequestInit): Promise<Response> {
    const res = await aws.fetch(u, { ...init, headers: { ...UNSIGNED, ...init.headers } });
    if (!res.ok) await fail(res, what);
    return res;
  }

  return {
    bucket: s.bucket,

    async put(key, body) {
      await putBytes("put", url(key), body);
    },

    async get(key, range) {
      const headers: Record<string, string> = range
        ? { Range: `bytes=${range.start}-${range.end}` }
        : {};
      const res = await aws.fetch(url(key), { headers: { ...UNSIGNED, ...headers } });
      if (res.status === 404) {
        await res.body?.cancel();
        return null;
      }
      if (!res.ok) await fail(res, "get");
      return res;
    },

    async exists(key) {
      const res = await aws.fetch(url(key), { method: "HEAD", headers: UNSIGNED });
      await res.body?.cancel();
      if (res.status === 404) return false;
      if (!res.ok) throw new S3Error(res.status, "HeadObject", "head");
      return true;
    },

    async delete(key) {
      const res = await aws.fetch(url(key), { method: "DELETE", headers: UNSIGNED });
      if (!res.ok && res.status !== 404) await fail(res, "delete");
      await res.body?.cancel();
    },

    async copy(from, to) {
      const res = await aws.fetch(url(to), {
        method: "PUT",
        headers: { ...UNSIGNED, "x-amz-copy-source": `/${s.bucket}/${from}` },
      });
      const text = await res.text();
      if (res.status === 404) return false;
      // A copy can fail after its 200 has been sent: the error is then in the body.
      if (!res.ok || text.includes("<Error>")) {
        throw new S3Error(res.status, xmlValues(text, "Code")[0] ?? "Unknown", "copy");
      }
      return true;
    },

    async *list(prefix) {
      let token: string | null = null;
      do {
        const q = new URLSearchParams({ "list-type": "2", prefix, "max-keys": "1000" });
        if (token) q.set("continuation-token", token);
        const res = await call("list", `${bucketUrl}?${q}`, {});
        const xml = await res.text();
        for (const item of xmlValues(xml, "Contents")) {
          yield {
            key: unescapeXml(xmlValues(item, "Key")[0] ?? ""),
            size: Number(xmlValues(item, "Size")[0] ?? 0),
            modifiedAt: Date.parse(xmlValues(item, "LastModified")[0] ?? "") || 0,
          };
        }
        const truncated = xmlValues(xml, "IsTruncated")[0] === "true";
        token = truncated ? unescapeXml(xmlValues(xml, "NextContinuationToken")[0] ?? "") : null;
      } while (token);
    },

    async createMultipart(key) {
      const res = await call("create multipart", url(key, "?uploads"), { method: "POST" });
      const id = xmlValues(await res.text(), "UploadId")[0];
      if (!id) throw new S3Error(res.status, "NoUploadId", "create multipart");
      return id;
    },

    async uploadPart(key, uploadId, partNumber, body) {
      const q = `?partNumber=${partNumber}&uploadId=${encodeURIComponent(uploadId)}`;
      return (await putBytes("upload part", url(key, q), body)).get("ETag") ?? "";
    },

    async completeMultipart(key, uploadId, etags) {
      const parts = etags.map((etag, i) =>
        `<Part><PartNumber>${i + 1}</PartNumber><ETag>${etag}</ETag></Part>`
      ).join("");
      const body = new TextEncoder().encode(
        `<CompleteMultipartUpload>${parts}</CompleteMultipartUpload>`,
      );
      const q = `?uploadId=${encodeURIComponent(uploadId)}`;
      const res = await call("complete multipart", url(key, q), { method: "POST", body });
      const text = await res.text();
      if (text.includes("<Error>")) {
        throw new S3Error(res.status, xmlValues(text, "Code")[0] ?? "Unknown", "complete");
      }
    },

    async abortMultipart(key, uploadId) {
      const q = `?uploadId=${encodeURIComponent(uploadId)}`;
      const res = await aws.fetch(url(key, q), { method: "DELETE", headers: UNSIGNED });
      if (!res.ok && res.status !== 404) await fail(res, "abort multipart");
      await res.body?.cancel();
    },

    async headBucket() {
      const res = await aws.fetch(`${bucketUrl}/`, { method: "HEAD", headers: UNSIGNED });
      if (!res.ok) throw new S3Error(res.status, "HeadBucket", "head bucket");
      await res.body?.cancel();
    },
  };
}
