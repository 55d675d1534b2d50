/**
 * Waiting on a condition rather than for a fixed time: a loaded machine makes any fixed sleep
 * too short, so tests poll for what they need, with a deadline that fails them.
 */
import assert from "node:assert/strict";
import type { WriterLease } from "../../blobs/leases.ts";
import { blobStoreKeys } from "../../kv/keys.ts";

/** Polls `probe` until it returns a value other than null and returns it; fails after `ms`. */
export async function untilValue<T>(
  what: string,
  probe: () => Promise<T | null>,
  ms = 15_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const got = await probe();
    if (got !== null) return got;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Polls `done` until it holds; fails after `ms`. */
export async function until(what: string, done: () => Promise<boolean>, ms = 15_000) {
  await untilValue(what, async () => (await done()) ? true : null, ms);
}

/**
 * Waits until the one writer lease in `kv` has been renewed more than one whole lease period
 * past the end of the lease it held when first seen: the write has then stalled far longer than
 * its lease reaches, measured by the writer's own renewals rather than by a fixed sleep (which
 * a slow machine can make too short, or a late renewal timer make look like a dead writer).
 */
export async function outliveWriterLease(kv: Deno.Kv): Promise<void> {
  const lease = async () => {
    const all = await Array.fromAsync(kv.list<WriterLease>({ prefix: blobStoreKeys.lease() }));
    assert.equal(all.length, 1, "one writer");
    return all[0].value;
  };
  const first = await lease();
  const period = first.expiresAt - first.renewedAt;
  await until(
    "the writer to renew its lease a period past its first one",
    async () => (await lease()).renewedAt > first.expiresAt + period,
  );
}
