/**
 * Baseline server for bench/upload_download.ts: the plainest Deno way to take and serve a file.
 * PUT pipes the request body into <dir>/baseline.bin; GET returns that file's `readable` (bare;
 * with ?length=1 also a Content-Length header).
 * Usage: deno run -A bench/serve_baseline.ts <dir>   (prints "PORT <n>" when listening)
 */
const path = `${Deno.args[0]}/baseline.bin`;

Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(`PORT ${port}`),
}, async (req) => {
  if (req.method === "PUT") {
    const file = await Deno.open(path, { write: true, create: true, truncate: true });
    await req.body!.pipeTo(file.writable);
    return new Response("stored");
  }
  const file = await Deno.open(path, { read: true });
  // The bare form returns only file.readable (sent chunked); ?length=1 adds Content-Length.
  if (new URL(req.url).searchParams.get("length") !== "1") return new Response(file.readable);
  const { size } = await file.stat();
  return new Response(file.readable, { headers: { "content-length": String(size) } });
});
