/**
 * `admin export-user USER_SEQ --out FILE.zip`: a user's drive as one ZIP, for handing a user
 * their data or moving it elsewhere. Every live (not trashed) file and folder under `files/`
 * with its folder path, then `manifest.json` describing each entry (resource seq, size, SHA-256,
 * media type, times) so the receiver can verify the bytes. Streamed with client-zip (as the
 * folder ZIP download does), one blob open at a time: memory holds the manifest lines only.
 */
import { downloadZip } from "client-zip";
import type { Deps } from "../deps.ts";
import { requireUser, type UserIdentity, userIdentity } from "../identity/users.ts";
import { iterateChildren } from "../tree/listing.ts";
import { MAX_DEPTH, type Resource, toIso } from "../tree/resources.ts";

interface ManifestEntry {
  /** Path inside the archive, below `files/`. */
  path: string;
  type: Resource["type"];
  rs: number;
  size: number;
  sha256: string | null;
  mime: string | null;
  version: number;
  createdAt: string;
  updatedAt: string;
}

interface ExportManifest {
  format: "drive-user-export";
  formatVersion: 1;
  exportedAt: string;
  user: UserIdentity;
  files: number;
  folders: number;
  bytes: number;
  entries: ManifestEntry[];
}

/** Every live resource of the drive, each folder before its contents, with its path parts. */
async function* walkDrive(
  kv: Deno.Kv,
  ownerSeq: number,
  parent: Resource | null,
  below: string[],
): AsyncGenerator<{ resource: Resource; path: string[] }> {
  for await (const child of iterateChildren(kv, ownerSeq, parent?.rs ?? null)) {
    const path = [...below, child.name];
    yield { resource: child, path };
    if (child.type === "FOLDER" && path.length <= MAX_DEPTH) {
      yield* walkDrive(kv, ownerSeq, child, path);
    }
  }
}

/**
 * The archive as a stream, and the manifest once the stream has been read to its end. Fails
 * with USER_001 before anything is streamed when the user does not exist.
 */
export async function exportUserZip(
  d: Deps,
  userSeq: number,
): Promise<{ body: ReadableStream<Uint8Array>; manifest: Promise<ExportManifest> }> {
  const user = await requireUser(d.kv, userSeq);
  const manifest: ExportManifest = {
    format: "drive-user-export",
    formatVersion: 1,
    exportedAt: new Date().toISOString(),
    user: userIdentity(user),
    files: 0,
    folders: 0,
    bytes: 0,
    entries: [],
  };
  let finished!: (m: ExportManifest) => void;
  let failed!: (err: unknown) => void;
  const done = new Promise<ExportManifest>((resolve, reject) => {
    finished = resolve;
    failed = reject;
  });
  done.catch(() => {});

  async function* entries() {
    try {
      for await (const { resource: r, path } of walkDrive(d.kv, userSeq, null, [])) {
        const name = ["files", ...path].join("/");
        manifest.entries.push({
          path: path.join("/"),
          type: r.type,
          rs: r.rs,
          size: r.size,
          sha256: r.sha256,
          mime: r.mime,
          version: r.version,
          createdAt: toIso(r.createdAt),
          updatedAt: toIso(r.updatedAt),
        });
        if (r.type === "FOLDER") {
          manifest.folders++;
          yield { name: `${name}/`, lastModified: new Date(r.updatedAt) };
          continue;
        }
        manifest.files++;
        manifest.bytes += r.size;
        yield {
          name,
          lastModified: new Date(r.updatedAt),
          size: r.size,
          input: await d.blobs.read(r.blobId!),
        };
      }
      yield {
        name: "manifest.json",
        lastModified: new Date(),
        input: JSON.stringify(manifest, null, 2),
      };
      finished(manifest);
    } catch (err) {
      failed(err);
      throw err;
    }
  }
  return { body: downloadZip(entries()).body!, manifest: done };
}
