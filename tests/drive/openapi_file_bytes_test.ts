/**
 * A file downloaded through a public share link is answered in the file's stored Content-Type
 * (application/octet-stream when it has none), and the public link API's document admits that
 * media type for the answer (200, and 206 for a range): a document naming one fixed type was
 * wrong for every other file.
 */
import assert from "node:assert/strict";
import { withServer } from "../helpers/server.ts";
import { newApiUser, shareFlags } from "../helpers/api.ts";

/** Whether the media range `range` ("*\/*", "text/*", "text/plain") admits `type`. */
function admits(range: string, type: string): boolean {
  const [rt, rs] = range.toLowerCase().split("/");
  const [t, s] = type.split(";")[0].trim().toLowerCase().split("/");
  return (rt === "*" || rt === t) && (rs === "*" || rs === s);
}

Deno.test("a public link download answers the stored type, which its document admits", async () => {
  await withServer(async (server) => {
    const doc = await (await fetch(`${server.url}/public/v1/openapi.json`)).json();
    const op = doc.paths["/links/{token}/files/{rs}/download"].get;
    const alice = await newApiUser(server, "alice");
    const folder = await alice.newFolder("Shared");
    const files = [
      { name: "notes.txt", blob: new Blob(["hello\n"], { type: "text/plain" }) },
      { name: "photo.png", blob: new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])]) },
    ];
    const share = await alice.newShare({ rs: folder, st: "PUBLIC_LINK", ...shareFlags("cd") });
    const token = share.linkUrl.split("/s/")[1];
    const seen = new Set<string>();
    for (const { name, blob } of files) {
      const up = await alice.upload(name, blob, { pfs: folder });
      assert.equal(up.status, 201, JSON.stringify(up.body));
      const rs = up.body.data.resourceSeq;
      const stored = (await alice.call("GET", `/resources/${rs}`)).body.data.contentType;
      const url = `${server.url}/public/v1/links/${token}/files/${rs}/download`;
      for (const [status, headers] of [[200, {}], [206, { range: "bytes=0-1" }]] as const) {
        const res = await fetch(url, { headers });
        await res.body?.cancel();
        assert.equal(res.status, status);
        const type = res.headers.get("content-type")!;
        assert.equal(type, stored ?? "application/octet-stream", name);
        const documented = Object.keys(op.responses[status].content);
        assert.ok(
          documented.some((range) => admits(range, type)),
          `${name}: ${status} answered ${type}, documented ${documented.join(", ")}`,
        );
        seen.add(type.split(";")[0]);
      }
    }
    // Two files of two types: a document naming one fixed type cannot admit both.
    assert.equal(seen.size, 2, [...seen].join(", "));
  });
});
