/**
 * Backup files on disk, all or nothing. `writeBackupFile` writes to `<out>.partial`, flushes it
 * to disk (fsync), reads it back through every check of read.ts, and only then gives it its name
 * (a hard link, which refuses an existing name, then the partial name goes), and fsyncs the
 * directory. A backup killed at any point leaves at most `<out>.partial`, never a file under the
 * name a restore or a rotation script looks for. The partial file is locked while it is written
 * (flock), so a second backup to the same name is refused while the first runs, and a stale one
 * left by a killed run is taken over and rewritten.
 *
 * `openBackupFile` is the restore side's quick check: a complete file ends with the manifest
 * entry and tar's end blocks, so a truncated one is refused before anything is written.
 */
import { dirname } from "node:path";
import type { Deps } from "../deps.ts";
import { BackupError, type BackupManifest, MANIFEST_ENTRY } from "./format.ts";
import { verifyBackup } from "./read.ts";
import { writeBackup, type WriteBackupOptions } from "./write.ts";

export const PARTIAL_SUFFIX = ".partial";

const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);

/** A sink onto `file` that leaves it open (writeBackup closes its stream when done). */
function keepOpen(file: Deno.FsFile): WritableStream<Uint8Array> {
  return new WritableStream({
    async write(chunk) {
      for (let off = 0; off < chunk.byteLength;) off += await file.write(chunk.subarray(off));
    },
  });
}

/** Flushes a directory entry change (the rename) to disk; file systems that cannot, skip it. */
async function syncDir(dir: string): Promise<void> {
  const handle = await Deno.open(dir, { read: true }).catch(() => null);
  try {
    await handle?.sync().catch(() => {});
  } finally {
    handle?.close();
  }
}

/** Gives `from` the name `to`, refusing to replace a file that appeared there meanwhile. */
async function publish(from: string, to: string): Promise<void> {
  try {
    await Deno.link(from, to);
    await Deno.remove(from);
  } catch (err) {
    if (err instanceof Deno.errors.AlreadyExists) throw existsError(to);
    // No hard links on this file system: a rename, after a last look at the name.
    if (await exists(to)) throw existsError(to);
    await Deno.rename(from, to);
  }
}

const existsError = (path: string) =>
  new Deno.errors.AlreadyExists(`${path} exists already; name a new file`);

/**
 * Writes a verified backup to a new file `path` (mode 0600: it holds secrets.key, token hashes
 * and sealed secrets). Throws `Deno.errors.AlreadyExists` when `path` exists or another backup is
 * writing it; any other failure removes the partial file.
 */
export async function writeBackupFile(
  d: Deps,
  path: string,
  opts: WriteBackupOptions = {},
): Promise<BackupManifest> {
  if (await exists(path)) throw existsError(path);
  const partial = path + PARTIAL_SUFFIX;
  const file = await Deno.open(partial, { write: true, create: true, mode: 0o600 });
  let published = false;
  try {
    if (!(await file.tryLock(true))) {
      throw new Deno.errors.AlreadyExists(`${partial} is being written by another backup`);
    }
    try {
      // What a killed run left is rewritten from the start, owner-only whoever made it.
      await file.truncate(0);
      await Deno.chmod(partial, 0o600);
      const manifest = await writeBackup(d, keepOpen(file), opts);
      await file.sync();
      const check = await verifyBackup((await Deno.open(partial, { read: true })).readable);
      if (JSON.stringify(check.manifest) !== JSON.stringify(manifest)) {
        throw new BackupError("invalid-file", `${partial} does not read back as it was written`);
      }
      await publish(partial, path);
      published = true;
      await syncDir(dirname(path));
      return manifest;
    } finally {
      if (!published) await Deno.remove(partial).catch(() => {});
    }
  } finally {
    file.close();
  }
}

/** The end of a complete backup: a ustar header named manifest.json, its data, zero blocks. */
async function endsWithManifest(file: Deno.FsFile, size: number): Promise<boolean> {
  const BLOCK = 512;
  if (size % BLOCK !== 0 || size < 4 * BLOCK) return false;
  const tailSize = Math.min(size, 16 * BLOCK);
  const tail = new Uint8Array(tailSize);
  await file.seek(size - tailSize, Deno.SeekMode.Start);
  for (let off = 0; off < tailSize;) {
    const n = await file.read(tail.subarray(off));
    if (n === null) return false;
    off += n;
  }
  await file.seek(0, Deno.SeekMode.Start);
  const text = (a: number, b: number) =>
    new TextDecoder().decode(tail.subarray(a, b)).replace(/\0.*$/s, "");
  for (let at = tailSize - 3 * BLOCK; at >= 0; at -= BLOCK) {
    if (text(at, at + 100) !== MANIFEST_ENTRY || text(at + 257, at + 262) !== "ustar") continue;
    const dataSize = parseInt(text(at + 124, at + 136).trim(), 8);
    const end = at + BLOCK + Math.ceil(dataSize / BLOCK) * BLOCK;
    // After the manifest only zero blocks, at least the two that end a tar.
    return tailSize - end >= 2 * BLOCK && tail.subarray(end).every((b) => b === 0);
  }
  return false;
}

/**
 * Opens a backup file for restore, refusing one that does not end as a complete backup (cut off
 * by a crash, a full disk, or a copy in progress) before anything is written. Its content is
 * checked entry by entry as the restore reads it.
 */
export async function openBackupFile(path: string): Promise<Deno.FsFile> {
  const file = await Deno.open(path, { read: true });
  try {
    const size = (await file.stat()).size;
    if (!(await endsWithManifest(file, size))) {
      const hint = path.endsWith(PARTIAL_SUFFIX)
        ? " (a backup that did not finish leaves its file under the .partial name)"
        : "";
      throw new BackupError(
        "invalid-file",
        `${path} is not a complete backup: it does not end with its manifest${hint}; ` +
          `nothing was restored`,
      );
    }
    return file;
  } catch (err) {
    file.close();
    throw err;
  }
}
