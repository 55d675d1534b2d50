/**
 * The floor of a provider `list` of 1,000 over HTTP on this machine, for speed and memory: a bare
 * `Deno.serve` (no framework, no JWT, no log) that answers every GET with what any design on
 * Deno KV must do for that answer. One scan of 1,000 records shaped like the drive's (the listing
 * index's key shape, `batchSize: 1000`), then the spec's 11 entry fields per record with ISO times,
 * serialized in one `JSON.stringify`. bench/provider_metadata.ts drives it with the same 16 clients
 * as the service and reads its peak RSS the same way: no service can list in less memory than this
 * with the same runtime and flags.
 *
 * Usage: deno run -A [flags] bench/serve_list_floor.ts <kv file>  (prints "PORT <n>")
 */
import { isoTime } from "../lib/iso_time.ts";
import { recordValue } from "./lib.ts";

const kv = await Deno.openKv(Deno.args[0]);
const FILES = 1000;
for (let i = 0; i < FILES; i += 500) {
  const op = kv.atomic();
  for (let j = i; j < i + 500; j++) {
    op.set(["res_name", 1, 7, `file-${j}.txt`], recordValue(100 + j, `file-${j}.txt`));
  }
  await op.commit();
}

interface Rec {
  rs: number;
  name: string;
  type: string;
  size: number;
  sha256: string;
  version: number;
  createdAt: number;
  updatedAt: number;
}

Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(`PORT ${port}`),
}, async () => {
  const entries = [];
  for await (const e of kv.list<Rec>({ prefix: ["res_name", 1, 7] }, { batchSize: 1000 })) {
    const r = e.value;
    entries.push({
      path: `big/${r.name}`,
      name: r.name,
      type: "file",
      size: r.size,
      readable: true,
      writable: true,
      locked: false,
      locker: null,
      createdAt: isoTime(r.createdAt),
      modifiedAt: isoTime(r.updatedAt),
      revision: `${r.version}-${r.sha256.slice(0, 16)}`,
    });
  }
  const bytes = new TextEncoder().encode(JSON.stringify({ entries }));
  return new Response(bytes, { headers: { "content-type": "application/json" } });
});
