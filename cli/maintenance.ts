/**
 * Admin CLI commands that look after the stored data: usage recount, fsck, the orphan blob
 * sweep, a user's export, backup and restore, and the schema migrations. Each works while
 * servers run on the same KV (see the modules each calls for how).
 */
import { type Command, InvalidArgumentError } from "commander";
import { DEFAULT_SWEEP_MIN_AGE_MS, sweepOrphanBlobs } from "../kv/tree/blob_sweep.ts";
import { exportUserZip } from "../kv/ops/export_user.ts";
import { fsck } from "../kv/ops/fsck.ts";
import { recountUsage } from "../kv/ops/usage_recount.ts";
import { openBackupFile, writeBackupFile } from "../kv/backup/file.ts";
import { restoreBackup } from "../kv/backup/restore.ts";
import { migrationStatus, readSchemaVersion, SCHEMA_VERSION } from "../kv/migrations/migrations.ts";
import { CliExit, EXIT, print, table, withDeps } from "./context.ts";
import { positiveInt } from "./identity.ts";

interface JsonOption {
  json?: boolean;
}

function hoursArg(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 8760) {
    throw new InvalidArgumentError("--min-age-hours must be a whole number from 1 to 8760");
  }
  return n;
}

/** Opens `path` for a new file, refusing to overwrite one (a usage error, before any work). */
async function createOutput(path: string): Promise<Deno.FsFile> {
  try {
    return await Deno.open(path, { write: true, createNew: true });
  } catch (err) {
    if (err instanceof Deno.errors.AlreadyExists) {
      throw new CliExit(EXIT.usage, `${path} exists already; name a new file`);
    }
    throw err;
  }
}

/** Streams `body` into a new file at `path`; on failure the partial file is removed. */
async function streamToNewFile(
  path: string,
  write: (out: WritableStream<Uint8Array>) => Promise<unknown>,
): Promise<void> {
  const file = await createOutput(path);
  try {
    await write(file.writable);
  } catch (err) {
    await Deno.remove(path).catch(() => {});
    throw err;
  }
}

export function addMaintenanceCommands(program: Command): void {
  program.command("usage")
    .description(
      "compare each user's stored usage with the bytes of their stored versions; with " +
        "--recompute, store the exact sums (safe while servers write)",
    )
    .option("--recompute", "store the recounted usage where it differs")
    .option("--user <userSeq>", "only this user", positiveInt("--user"))
    .option("--json", 'print {"items": [...]} as JSON')
    .action(async (opts: JsonOption & { recompute?: boolean; user?: number }) => {
      const items = await withDeps((d) =>
        recountUsage(d.kv, {
          userSeqs: opts.user === undefined ? undefined : [opts.user],
          dryRun: !opts.recompute,
        })
      );
      print(opts.json, { items }, () =>
        table(
          ["USER", "STORED", "ACTUAL", "RESULT"],
          items.map((u) => [
            u.userSeq,
            u.storedBytes,
            u.actualBytes,
            u.storedBytes === u.actualBytes ? "ok" : u.fixed ? "fixed" : "differs",
          ]),
        ));
      if (items.some((u) => u.storedBytes !== u.actualBytes && !u.fixed)) {
        throw new CliExit(EXIT.problems, "usage differs (run with --recompute to fix it)");
      }
    });

  program.command("fsck")
    .description(
      "check the tree: parents, name and list indexes, usage, referenced blobs; count orphans " +
        "(exit 1 when problems are left)",
    )
    .option("--repair", "fix what is safe: indexes, usage, versions of vanished resources")
    .option("--json", "print the report as JSON")
    .action(async (opts: JsonOption & { repair?: boolean }) => {
      const report = await withDeps((d) => fsck(d, { repair: opts.repair === true }));
      print(opts.json, report, () => [
        `${report.resources} resources, ${report.versions} versions, ${report.users} users, ` +
        `${report.blobs} blobs`,
        `orphan blobs: ${report.orphanBlobs} (${report.orphanBlobBytes} bytes; ` +
        `"admin sweep" removes them)`,
        ...report.problems.map((p) =>
          `${p.repaired ? "repaired" : "PROBLEM"} ${p.kind}: ${p.detail}`
        ),
        report.unrepaired === 0
          ? "fsck: no problems left"
          : `fsck: ${report.unrepaired} problem(s) left${opts.repair ? "" : " (try --repair)"}`,
      ]);
      if (report.unrepaired > 0) throw new CliExit(EXIT.problems, "");
    });

  program.command("sweep")
    .description("remove stored bytes nothing references, older than the minimum age")
    .option("--dry-run", "only count what would be removed")
    .option(
      "--min-age-hours <hours>",
      `only blobs at least this old (default ${DEFAULT_SWEEP_MIN_AGE_MS / 3_600_000})`,
      hoursArg,
    )
    .option("--json", "print the result as JSON")
    .action(async (opts: JsonOption & { dryRun?: boolean; minAgeHours?: number }) => {
      const result = await withDeps((d) =>
        sweepOrphanBlobs(d, {
          dryRun: opts.dryRun === true,
          minAgeMs: opts.minAgeHours === undefined
            ? DEFAULT_SWEEP_MIN_AGE_MS
            : opts.minAgeHours * 3_600_000,
        })
      );
      print(opts.json, result, () => [
        `${result.blobs} blobs, ${result.tooYoung} too young to judge`,
        `orphans: ${result.orphans} (${result.orphanBytes} bytes), removed: ${result.removed}` +
        (result.dryRun ? " (dry run)" : ""),
        `abandoned writes ${result.dryRun ? "found" : "cleared"}: ${result.abandonedWrites}`,
      ]);
    });

  program.command("export-user")
    .description("write a user's files, with their folder paths and a manifest, to a ZIP file")
    .argument("<userSeq>", "the user's seq", positiveInt("userSeq"))
    .requiredOption("--out <file>", "the ZIP file to create (must not exist)")
    .option("--json", "print the manifest summary as JSON")
    .action(async (userSeq: number, opts: JsonOption & { out: string }) => {
      const summary = await withDeps(async (d) => {
        const { body, manifest } = await exportUserZip(d, userSeq);
        await streamToNewFile(opts.out, (out) => body.pipeTo(out));
        const m = await manifest;
        return { out: opts.out, userSeq, files: m.files, folders: m.folders, bytes: m.bytes };
      });
      print(opts.json, summary, () => [
        `exported user ${userSeq}: ${summary.files} files, ${summary.folders} folders, ` +
        `${summary.bytes} bytes to ${summary.out}`,
      ]);
    });

  program.command("backup")
    .description("write a consistent backup of all KV state and the referenced bytes to a file")
    .requiredOption("--out <file>", "the backup file to create (must not exist)")
    .option(
      "--kv-file <file>",
      "with a remote KV: the KV server's own SQLite file (denokv --sqlite-path), copied at one " +
        "point in time while every host writes (without it a busy remote KV fails the backup)",
    )
    .option("--json", "print the backup manifest as JSON")
    .action(async (opts: JsonOption & { out: string; kvFile?: string }) => {
      const manifest = await withDeps((d) =>
        // Written to <out>.partial and renamed once verified: <out> is always a whole backup.
        writeBackupFile(d, opts.out, { kvFile: opts.kvFile }).catch((err) => {
          if (err instanceof Deno.errors.AlreadyExists) throw new CliExit(EXIT.usage, err.message);
          throw err;
        })
      );
      print(opts.json, manifest, () => [
        `backup written to ${opts.out}: ${manifest.kvEntries} KV entries, ${manifest.blobs} ` +
        `blobs (${manifest.blobBytes} bytes)`,
      ]);
    });

  program.command("restore")
    .description("restore a backup into an empty data directory or KV")
    .requiredOption("--from <file>", "the backup file")
    .option("--json", "print the restore summary as JSON")
    .action(async (opts: JsonOption & { from: string }) => {
      let file: Deno.FsFile;
      try {
        file = await openBackupFile(opts.from);
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) {
          throw new CliExit(EXIT.usage, `${opts.from} does not exist`);
        }
        throw err;
      }
      const summary = await withDeps((d) => restoreBackup(d, file.readable));
      print(opts.json, summary, () => [
        `restored ${summary.kvEntries} KV entries and ${summary.blobs} blobs ` +
        `(${summary.blobBytes} bytes); adapter secrets key: ${summary.secretsKey}`,
      ]);
    });

  program.command("migrations")
    .description("show the schema version and the start-up migrations that ran")
    .option("--json", "print {schemaVersion, knownVersion, items} as JSON")
    .action(async (opts: JsonOption) => {
      const status = await withDeps(async (d) => ({
        schemaVersion: await readSchemaVersion(d.kv),
        knownVersion: SCHEMA_VERSION,
        items: await migrationStatus(d.kv),
      }));
      print(opts.json, status, () => [
        `schema version ${status.schemaVersion} (this release: ${status.knownVersion})`,
        ...table(
          ["VERSION", "NAME", "APPLIED", "WHAT"],
          status.items.map((m) => [m.version, m.name, m.appliedAt, m.description]),
        ),
      ]);
    });
}
