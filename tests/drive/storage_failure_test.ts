/**
 * Content whose bytes vanished between lookup and read (an overwrite racing a download deletes
 * the old blob) answers "temporary, retry" in both protocols, never a 500.
 */
import assert from "node:assert/strict";
import { getResource } from "../../kv/tree/resources.ts";
import { forEachBlobStore } from "../helpers/server.ts";
import { newApiUser } from "../helpers/api.ts";
import { newProviderAdapter } from "../helpers/provider.ts";

forEachBlobStore(
  "a download whose bytes are gone answers 503 SERVICE_002 / provider 503",
  async (server) => {
    const alice = await newApiUser(server, "alice");
    const up = await alice.upload("gone.txt", "bytes that will vanish");
    assert.equal(up.status, 201);
    const rs = up.body.data.resourceSeq;
    const adapter = await newProviderAdapter(server, "host", { userSeq: alice.userSeq });

    await server.blobs.delete((await getResource(server.kv, rs))!.blobId!);

    const res = await alice.fetch(`/files/${rs}/download`);
    assert.equal(res.status, 503);
    const body = await res.json();
    assert.equal(body.errorCode, "SERVICE_002");
    assert.match(body.message, /retry/);

    const got = await adapter.client.get(["gone.txt"]);
    assert.equal(got.ok, false);
    assert.equal(got.status, 503);
  },
);
