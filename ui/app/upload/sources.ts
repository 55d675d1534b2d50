/**
 * What the person chose to upload, as files with the folders they sit in: from the file and folder
 * pickers (a folder pick gives each file a webkitRelativePath) and from a drop, where folders are
 * walked through DataTransferItem.webkitGetAsEntry (FileSystemDirectoryEntry).
 */

/** A file to upload and the folder names between the target folder and it ([] = directly in). */
export interface Picked {
  file: File;
  dirs: string[];
}

/** Files from an <input type="file">, with their folders when it was a folder pick. */
export function fromInput(files: FileList | null): Picked[] {
  return [...files ?? []].map((file) => {
    const parts = (file.webkitRelativePath || file.name).split("/");
    return { file, dirs: parts.slice(0, -1) };
  });
}

const fileOf = (entry: FileSystemFileEntry) =>
  new Promise<File>((resolve, reject) => entry.file(resolve, reject));

/** Every entry of a directory: readEntries answers in batches until it answers none. */
async function childrenOf(dir: FileSystemDirectoryEntry): Promise<FileSystemEntry[]> {
  const reader = dir.createReader();
  const all: FileSystemEntry[] = [];
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) =>
      reader.readEntries(resolve, reject)
    );
    if (!batch.length) return all;
    all.push(...batch);
  }
}

async function walk(entry: FileSystemEntry, dirs: string[], out: Picked[]): Promise<void> {
  if (entry.isFile) {
    out.push({ file: await fileOf(entry as FileSystemFileEntry), dirs });
  } else if (entry.isDirectory) {
    const inner = [...dirs, entry.name];
    for (const child of await childrenOf(entry as FileSystemDirectoryEntry)) {
      await walk(child, inner, out);
    }
  }
}

/**
 * Files of a drop, folders walked to the bottom. The entries are taken before any await: a
 * DataTransfer's items are only readable during the drop event itself.
 */
export async function fromDrop(data: DataTransfer): Promise<Picked[]> {
  const entries: (FileSystemEntry | File)[] = [];
  for (const item of [...data.items]) {
    if (item.kind !== "file") continue;
    const entry = item.webkitGetAsEntry?.();
    const file = entry ? null : item.getAsFile();
    if (entry) entries.push(entry);
    else if (file) entries.push(file);
  }
  const out: Picked[] = [];
  for (const e of entries) {
    if (e instanceof File) out.push({ file: e, dirs: [] });
    else await walk(e, [], out);
  }
  return out;
}
