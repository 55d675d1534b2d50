/** DAV:lockdiscovery: own and inherited WebDAV locks with their roots, per member and batched. */
import assert from "node:assert/strict";
import { domainTest, newFile, newFolder, newUser } from "../kv/testing.ts";
import { takeDavLock } from "../kv/tree/dav_locks.ts";
import { acquireLock } from "../kv/tree/locks.ts";
import type { DavRequest } from "./context.ts";
import { hrefAbove, lockDiscovery, LockView } from "./lock_discovery.ts";

Deno.test("hrefAbove climbs collections of file and folder hrefs", () => {
  assert.equal(hrefAbove("/dav/files/a/T/S/f.txt", 0), "/dav/files/a/T/S/f.txt");
  assert.equal(hrefAbove("/dav/files/a/T/S/f.txt", 1), "/dav/files/a/T/S/");
  assert.equal(hrefAbove("/dav/files/a/T/S/", 2), "/dav/files/a/");
});

domainTest("members list their own and their folders' locks, rooted where taken", async (d) => {
  const alice = await newUser(d, "alice");
  const top = await newFolder(d, alice, "T");
  const sub = await newFolder(d, alice, "S", top.rs);
  const own = await newFile(d, alice, "own.txt", "x", sub.rs);
  const plain = await newFile(d, alice, "plain.txt", "x", sub.rs);
  const edited = await newFile(d, alice, "edited.txt", "x");
  const base = {
    scope: "shared",
    ownerXml: "me",
    userSeq: alice.userSeq,
    holder: "alice",
  } as const;
  const wide = await takeDavLock(d.kv, { ...base, rs: top.rs, depth: "infinity", timeoutS: 60 });
  const mine = await takeDavLock(d.kv, { ...base, rs: own.rs, depth: 0, timeoutS: 60 });
  await acquireLock(d.kv, { rs: edited.rs, owner: "e", source: "office", holder: "1", ttlMs: 1e4 });
  const ctx = { d } as DavRequest;
  const view = new LockView(ctx);
  const tokens = (xml: string) =>
    [...xml.matchAll(/<D:locktoken><D:href>([^<]+)/g)].map((m) => m[1]);
  const roots = (xml: string) => [...xml.matchAll(/<D:lockroot><D:href>([^<]+)/g)].map((m) => m[1]);
  const at = (name: string) => `/dav/files/alice/T/S/${name}`;
  const ownXml = await view.discovery(own, at("own.txt"));
  assert.deepEqual(tokens(ownXml), [mine.token, wide.token]);
  assert.deepEqual(roots(ownXml), [at("own.txt"), "/dav/files/alice/T/"]);
  const left = Number(
    /<D:owner>me<\/D:owner><D:timeout>Second-(\d+)<\/D:timeout>/.exec(ownXml)?.[1],
  );
  assert.ok(left > 0 && left <= 60, ownXml);
  assert.deepEqual(tokens(await view.discovery(plain, at("plain.txt"))), [wide.token]);
  // An editor's lock has no token to show.
  const editedXml = await view.discovery(edited, "/dav/files/alice/edited.txt");
  assert.equal(editedXml, "<D:lockdiscovery></D:lockdiscovery>");
  // The one-resource form agrees.
  assert.equal(await lockDiscovery(ctx, own.rs, at("own.txt")), ownXml);
});
