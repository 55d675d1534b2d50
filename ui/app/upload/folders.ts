/**
 * The folders a folder upload needs, made through the drive API before their files: each path is
 * created once (concurrent files of one new folder share one request), and a name that is already
 * a folder there (RESOURCE_003) is merged into: its seq is looked up in the parent's listing.
 */
import type { DriveApi } from "../drive/api.ts";
import { ApiError } from "../api.ts";

/** Listing page size when looking for a taken folder name (the API's largest). */
const LOOKUP_PAGE = 1000;

/** Where files go: a folder of a drive (pfs null = the caller's root; ss = a sharer's drive). */
export interface Place {
  pfs: number | null;
  ss?: number;
}

/** The entries of folder `place` by name, every page of its listing. */
export async function namesIn(
  drive: DriveApi,
  place: Place,
): Promise<Map<string, { rs: number; folder: boolean }>> {
  const names = new Map<string, { rs: number; folder: boolean }>();
  let cursor: string | null = null;
  do {
    const page = await drive.list(place.pfs, place.ss, ["name", "asc"], cursor, LOOKUP_PAGE);
    for (const row of page.rows) names.set(row.name, { rs: row.rs, folder: row.type === "FOLDER" });
    cursor = page.next;
  } while (cursor);
  return names;
}

export class FolderMaker {
  private readonly made = new Map<string, Promise<number>>();

  /**
   * @param onCreated called for each folder made directly in the target (the open folder shows
   *   it at once).
   */
  constructor(
    private readonly drive: DriveApi,
    private readonly base: Place,
    private readonly onCreated: (rs: number, name: string) => void,
  ) {}

  /** The seq of the folder at `dirs` under the base, made (or found) on the way. */
  folder(dirs: string[]): Promise<number | null> {
    if (!dirs.length) return Promise.resolve(this.base.pfs);
    const key = JSON.stringify(dirs);
    let p = this.made.get(key);
    if (!p) {
      p = this.folder(dirs.slice(0, -1)).then((parent) => this.make(parent, dirs.at(-1)!, dirs));
      this.made.set(key, p);
    }
    return p;
  }

  private async make(parent: number | null, name: string, dirs: string[]): Promise<number> {
    try {
      const d = await this.drive.newFolder(name, parent, this.base.ss);
      if (dirs.length === 1) this.onCreated(d.resourceSeq, name);
      return d.resourceSeq;
    } catch (err) {
      if (!(err instanceof ApiError && err.code === "RESOURCE_003")) throw err;
      const taken = (await namesIn(this.drive, { pfs: parent, ss: this.base.ss })).get(name);
      if (!taken?.folder) throw err;
      return taken.rs;
    }
  }
}
