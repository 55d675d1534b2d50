/**
 * The floor of a folder create over HTTP on this machine: a bare `Deno.serve` (no framework, no
 * logging, no validation library) that answers `POST /api/external/v1/folders` with the least
 * any design on Deno KV must do. One `getMany` (the API key, the parent folder, the name slot),
 * then one atomic commit that checks the parent and the free slot and sets `--sets` keys (3: the
 * record, the name slot and one listing entry), then a small JSON answer. No design of the service
 * can create faster than this server does with the same client in the same run
 * (bench/metadata.ts). MKCOL does the same (bench/webdav.ts). A PUT of a small file does that
 * too after writing the body, hashed, to a new file renamed into place (bench/webdav_transfer.ts):
 * the floor of a small WebDAV PUT.
 *
 * Usage: deno run -A bench/serve_create_floor.ts <kv file> [--sets N]  (prints "PORT <n>")
 */
import { createHash } from "node:crypto";
import { numberArg } from "./lib.ts";

const [kvPath] = Deno.args;
const SETS = numberArg("sets", 3);
const kv = await Deno.openKv(kvPath);
const KEY = "floor-key";
await kv.set(["key", KEY], { userSeq: 1, tenantId: 1 });
let nextId = 1;
const encoder = new TextEncoder();

Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(`PORT ${port}`),
}, async (req) => {
  if (req.method === "PUT") {
    const tmp = `${kvPath}.${crypto.randomUUID()}.part`;
    const file = await Deno.open(tmp, { write: true, createNew: true });
    const hash = createHash("sha256");
    for await (const piece of req.body!) {
      hash.update(piece);
      for (let at = 0; at < piece.length;) at += await file.write(piece.subarray(at));
    }
    file.close();
    hash.digest("hex");
    await Deno.rename(tmp, `${tmp}.blob`);
  } else if (req.method !== "POST" && req.method !== "MKCOL") {
    return new Response(JSON.stringify({ ok: true }));
  }
  const body = req.method === "POST"
    ? await req.json() as { fn: string; pfs?: number }
    : { fn: new URL(req.url).pathname };
  const key = req.headers.get("authorization")?.slice(7) ?? "";
  const parentRs = body.pfs ?? 0;
  const [owner, parent, slot] = await kv.getMany<unknown[]>([
    ["key", key],
    ["res", parentRs],
    ["name", parentRs, body.fn.toLowerCase()],
  ]);
  if (owner.value === null) return new Response("{}", { status: 401 });
  if (slot.value !== null) return new Response("{}", { status: 409 });
  const rs = nextId++;
  const record = {
    rs,
    name: body.fn,
    parentRs,
    type: "FOLDER",
    createdAt: Date.now(),
    updatedAt: Date.now(),
  };
  const op = kv.atomic().check(parent).check(slot);
  op.set(["res", rs], record).set(["name", parentRs, body.fn.toLowerCase()], record);
  for (let i = 2; i < SETS; i++) op.set(["list", i, parentRs, body.fn, rs], record);
  if (!(await op.commit()).ok) return new Response("{}", { status: 409 });
  return new Response(encoder.encode(JSON.stringify({ data: { resourceSeq: rs } })), {
    status: 201,
    headers: { "content-type": "application/json" },
  });
});
