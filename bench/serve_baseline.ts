/**
 * Baseline server for bench/upload_download.ts: the plainest Deno way to take and serve a file.
 * PUT pipes the request body into <dir>/baseline.bin (with ?hash=1 into <dir>/hashed.bin through
 * a SHA-256 on the way, as every upload of the service hashes its bytes); GET returns that file's `readable` (bare;
 * with ?length=1 also a Content-Length header).
 * Usage: deno run -A bench/serve_baseline.ts <dir>   (prints "PORT <n>" when listening)
 */
import { hashIntoFile } from "./lib.ts";

const path = `${Deno.args[0]}/baseline.bin`;
const hashedPath = `${Deno.args[0]}/hashed.bin`;

Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(`PORT ${port}`),
}, async (req) => {
  if (req.method === "PUT") {
    const hashing = new URL(req.url).searchParams.get("hash") === "1";
    const file = await Deno.open(hashing ? hashedPath : path, {
      write: true,
      create: true,
      truncate: true,
    });
    if (!hashing) {
      await req.body!.pipeTo(file.writable);
      return new Response("stored");
    }
    const { sha256 } = await hashIntoFile(req.body!, file);
    return new Response(sha256);
  }
  const file = await Deno.open(path, { read: true });
  // The bare form returns only file.readable (sent chunked); ?length=1 adds Content-Length.
  if (new URL(req.url).searchParams.get("length") !== "1") return new Response(file.readable);
  const { size } = await file.stat();
  return new Response(file.readable, { headers: { "content-length": String(size) } });
});
