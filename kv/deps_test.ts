/**
 * createDeps is the one place a Deps is built: the brand makes a hand-written one a type error
 * (checked by `deno check`, which fails on an unused @ts-expect-error), and every field is there
 * without the serving runtime.
 */
import assert from "node:assert/strict";
import { openKvBlobStore } from "../blobs/kv.ts";
import { readConfig } from "../config.ts";
import { createDeps, type Deps } from "./deps.ts";
import { blobStoreKeys, identityEpochKey } from "./keys.ts";
import { withMemoryKv } from "./testing.ts";

Deno.test("createDeps: every field is present; a Deps written by hand does not type-check", async () => {
  await withMemoryKv((kv) => {
    const config = readConfig({ DRIVE_KV: ":memory:", DRIVE_BLOB_STORE: "kv" });
    const blobs = openKvBlobStore(kv, blobStoreKeys);
    const d = createDeps(config, { kv, blobs });
    const { ids, secretsKey, events, identity, listingTurns } = d;
    for (const field of [ids, secretsKey, events, identity, listingTurns]) assert.ok(field);

    // @ts-expect-error: only createDeps can give a Deps its brand.
    const byHand: Deps = { kv, blobs, config, ids, secretsKey, events, identity, listingTurns };
    assert.ok(byHand);
    // A spread of a built one stays a Deps (tests change one field of it this way).
    const changed: Deps = { ...d, config: { ...config, versionsKeep: 2 } };
    assert.equal(changed.config.versionsKeep, 2);
    return Promise.resolve();
  });
});

Deno.test("createDeps: without a server's runtime, identity facts are read fresh and the event log is passive", async () => {
  await withMemoryKv(async (kv) => {
    const config = readConfig({ DRIVE_KV: ":memory:", DRIVE_BLOB_STORE: "kv" });
    const d = createDeps(config, { kv, blobs: openKvBlobStore(kv, blobStoreKeys) });
    await kv.atomic().sum(identityEpochKey(), 3n).set(["x"], 1).commit();
    const { epoch, entries } = await d.identity.read([["x"]]);
    assert.equal(epoch, 3n);
    assert.equal(entries[0].value, 1);
    let loads = 0;
    const load = () => Promise.resolve(++loads);
    await d.identity.fact(epoch, "k", 1, load);
    assert.equal(await d.identity.fact(epoch, "k", 1, load), 2, "loaded again, nothing kept");
    const unsubscribe = d.events.subscribe(() => assert.fail("a passive log delivers nothing"));
    await d.events.sequenceNow();
    unsubscribe();
    // Listings take turns as in a server: DRIVE_LIST_CONCURRENCY at once.
    assert.equal(d.listingTurns.concurrency, config.listConcurrency);
  });
});
