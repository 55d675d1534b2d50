/**
 * What GET /readyz checks before a load balancer sends this process traffic: KV takes a write and
 * reads it back, the blob store takes a new blob, and (fs store) the disk under it has at least
 * DRIVE_MIN_FREE_BYTES free. Each check has a deadline, so a hung store answers "not ready"
 * instead of hanging the probe. /healthz stays the liveness check (the process answers at all).
 */
import { statfs } from "node:fs/promises";
import type { Config } from "../../config.ts";
import type { Deps } from "../../kv/deps.ts";
import { kvRoundTrip } from "../../kv/db.ts";
import { driveLogger } from "../../lib/logger.ts";

const log = driveLogger("readiness");

/** A check that takes longer than this fails. */
const CHECK_DEADLINE_MS = 5_000;

export interface CheckResult {
  name: "kv" | "blobStore" | "disk";
  ok: boolean;
  /** Why it failed, for the operator; absent when ok. */
  reason?: string;
}

export interface Readiness {
  ready: boolean;
  checks: CheckResult[];
}

function deadline<T>(work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new NotReady(`no answer within ${CHECK_DEADLINE_MS} ms`)),
      CHECK_DEADLINE_MS,
    );
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** Errors our own checks throw carry a message meant for the answer. */
class NotReady extends Error {}

/**
 * Runs one check. The answer names the failure without the store's own message (which holds
 * file paths); the full error goes to the server log.
 */
async function check(
  name: CheckResult["name"],
  failure: string,
  work: () => Promise<void>,
): Promise<CheckResult> {
  try {
    await deadline(work());
    return { name, ok: true };
  } catch (err) {
    log.warn("a readiness check failed", { check: name, error: String(err) });
    const reason = err instanceof NotReady
      ? err.message
      : `${failure} (${err instanceof Error ? err.name : "error"})`;
    return { name, ok: false, reason };
  }
}

/** Writes a one-byte blob and deletes it: the store's whole write path (temp file, rename). */
async function blobWritable(d: Deps): Promise<void> {
  const blob = await d.blobs.write(
    new ReadableStream({
      pull(controller) {
        controller.enqueue(new Uint8Array([0x2e]));
        controller.close();
      },
    }),
    { expectedSize: 1 },
  );
  await d.blobs.delete(blob.blobId);
}

/** Free space for unprivileged writers on the file system holding the fs blob store. */
async function diskFree(d: Deps): Promise<void> {
  const fs = await statfs(d.config.dataDir);
  const free = fs.bavail * fs.bsize;
  if (free < d.config.minFreeBytes) {
    throw new NotReady(
      `${free} bytes free under DRIVE_DATA_DIR, below DRIVE_MIN_FREE_BYTES ${d.config.minFreeBytes}`,
    );
  }
}

/**
 * At start (fs blob store): a DRIVE_MIN_FREE_BYTES the disk cannot meet keeps /readyz at 503
 * from the first probe, which otherwise looks like a broken deployment with no hint why (a small
 * volume under the 256 MiB default). Logged at warning, with the figures; never fails the start.
 */
export async function warnOfUnmetFreeSpace(
  config: Pick<Config, "dataDir" | "minFreeBytes" | "kvReserveBytes">,
): Promise<void> {
  let fs;
  try {
    fs = await statfs(config.dataDir);
  } catch (err) {
    log.warn("the free space under DRIVE_DATA_DIR is unknown", { error: String(err) });
    return;
  }
  const size = fs.blocks * fs.bsize;
  const free = fs.bavail * fs.bsize;
  const figures = {
    DRIVE_MIN_FREE_BYTES: config.minFreeBytes,
    DRIVE_KV_RESERVE_BYTES: config.kvReserveBytes,
    diskBytes: size,
    freeBytes: free,
  };
  if (config.minFreeBytes > size) {
    log.warn(
      "DRIVE_MIN_FREE_BYTES ({DRIVE_MIN_FREE_BYTES}) is above the size of the disk under " +
        "DRIVE_DATA_DIR ({diskBytes} bytes): /readyz answers 503 until it is lowered",
      figures,
    );
  } else if (config.minFreeBytes > free) {
    log.warn(
      "DRIVE_MIN_FREE_BYTES ({DRIVE_MIN_FREE_BYTES}) is above the free space under " +
        "DRIVE_DATA_DIR ({freeBytes} bytes): /readyz answers 503 until space is freed",
      figures,
    );
  }
  if (config.kvReserveBytes > free) {
    log.warn(
      "less than DRIVE_KV_RESERVE_BYTES ({DRIVE_KV_RESERVE_BYTES}) is free under DRIVE_DATA_DIR " +
        "({freeBytes} bytes): uploads answer 507 until space is freed",
      figures,
    );
  }
}

export async function readiness(d: Deps): Promise<Readiness> {
  const checks = await Promise.all([
    check("kv", "KV did not take a write and read it back", () => kvRoundTrip(d.kv)),
    check("blobStore", "the blob store did not take a new blob", () => blobWritable(d)),
    // The kv blob store lives in KV: its free space is KV's, which the kv check covers.
    ...(d.blobs.kind === "fs"
      ? [check("disk", "the free space under DRIVE_DATA_DIR is unknown", () => diskFree(d))]
      : []),
  ]);
  return { ready: checks.every((c) => c.ok), checks };
}
