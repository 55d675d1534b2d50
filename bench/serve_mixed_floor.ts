/**
 * The floor of the mixed drive load (bench/provider_metadata.ts `mixedLoad`) for memory and speed:
 * a bare `Deno.serve` answering the same three requests with the least any design must do.
 * `POST .../files` reads the body (not parsed: a floor does less than the service) into a 1 MiB
 * buffer, hashes it with SHA-256 and writes it to a file, then commits a record; `GET
 * .../files/{id}/download` answers the file's `readable` with its length; `GET .../resources`
 * scans 100 records and answers their JSON. No framework, no auth, no log.
 *
 * Usage: deno run -A [flags] bench/serve_mixed_floor.ts <dir>  (prints "PORT <n>")
 */
import { hashIntoFile } from "./lib.ts";

const dir = Deno.args[0];
const kv = await Deno.openKv(`${dir}/floor.kv`);
let nextId = 1;

Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(`PORT ${port}`),
}, async (req) => {
  const url = new URL(req.url);
  if (req.method === "POST") {
    const id = nextId++;
    const file = await Deno.open(`${dir}/${id}.bin`, { write: true, create: true, truncate: true });
    const { size, sha256 } = await hashIntoFile(req.body!, file);
    const now = Date.now();
    const record = { rs: id, name: `${id}.bin`, type: "FILE", size, sha256, createdAt: now };
    await kv.atomic().set(["res", id], record).set(["res_name", 1, `${id}.bin`], record).commit();
    return Response.json({ data: { resourceSeq: id } }, { status: 201 });
  }
  const download = /\/files\/(\d+)\/download$/.exec(url.pathname);
  if (download) {
    const file = await Deno.open(`${dir}/${download[1]}.bin`, { read: true });
    const { size } = await file.stat();
    return new Response(file.readable, { headers: { "content-length": String(size) } });
  }
  const items = [];
  for await (const e of kv.list({ prefix: ["res_name", 1] }, { limit: 100 })) items.push(e.value);
  return Response.json({ data: { items } });
});
