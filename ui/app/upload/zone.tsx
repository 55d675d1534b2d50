/**
 * Uploads in the file browser: the file and folder pickers (in the toolbar), dropping files and
 * folders on the list, the upload panel and the name-conflict dialog. The queue lives as long as
 * the browser page, so moving between folders and views does not stop uploads; a file that lands
 * in the folder on screen joins its listing at once.
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { Row } from "../drive/api.ts";
import type { Listing } from "../drive/listing.ts";
import type { DriveRoute } from "../router.ts";
import { drive, t } from "../store.ts";
import { type Decision, type Item, UploadQueue } from "./queue.ts";
import { FolderMaker, type Place } from "./folders.ts";
import { fromDrop, fromInput, type Picked } from "./sources.ts";
import { UploadPanel } from "./panel.tsx";
import { discard, type Interrupted, interruptedUploads } from "./resume.ts";
import { ConflictAsker } from "./conflict.tsx";

export function UploadZone(props: { r: DriveRoute; listing: Listing }) {
  const here = useRef({ r: props.r, listing: props.listing });
  here.current = { r: props.r, listing: props.listing };
  const [interrupted, setInterrupted] = useState<Interrupted[]>([]);
  const asker = useMemo(() => new ConflictAsker(drive), []);
  const queue = useMemo(() =>
    new UploadQueue({
      csrf: () => drive.csrf(),
      decide: (item: Item, pfs: number | null): Promise<Decision> => asker.decide(item, pfs),
      landed: (file, pfs) => {
        const { r, listing } = here.current;
        if ((r.folder ?? null) !== pfs || r.view !== "mine") return;
        show(listing, {
          rs: file.rs,
          name: file.name,
          type: "FILE",
          size: file.size,
          updatedAt: new Date().toISOString(),
        });
      },
      resumed: (key) => setInterrupted((list) => list.filter((i) => i.key !== key)),
    }), []);
  const files = useRef<HTMLInputElement>(null);
  const folders = useRef<HTMLInputElement>(null);
  const zone = useRef<HTMLDivElement>(null);
  const [over, setOver] = useState(false);
  const mine = props.r.view === "mine";

  useEffect(() => {
    interruptedUploads().then(setInterrupted, () => undefined);
  }, []);

  const upload = (picked: Picked[]) => {
    const { r } = here.current;
    if (!picked.length || r.view !== "mine") return;
    const place: Place = { pfs: r.folder ?? null, ss: r.folder ? r.ss : undefined };
    asker.reset();
    const maker = new FolderMaker(drive, place, (rs, name) => {
      const now = here.current;
      if ((now.r.folder ?? null) !== place.pfs || now.r.view !== "mine") return;
      show(now.listing, { rs, name, type: "FOLDER", size: 0, updatedAt: new Date().toISOString() });
    });
    queue.add(picked, place, (dirs) => maker.folder(dirs));
  };

  // Dropping on the file list (the whole browser column) uploads there.
  useEffect(() => {
    const target = zone.current?.closest(".drive-main") as HTMLElement | null;
    if (!target || !mine) return;
    const hasFiles = (e: DragEvent) => e.dataTransfer?.types.includes("Files") ?? false;
    const onOver = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      e.dataTransfer!.dropEffect = "copy";
      setOver(true);
    };
    const onLeave = (e: DragEvent) => {
      if (!target.contains(e.relatedTarget as Node | null)) setOver(false);
    };
    const onDrop = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      setOver(false);
      fromDrop(e.dataTransfer!).then(upload, () => undefined);
    };
    target.addEventListener("dragover", onOver);
    target.addEventListener("dragleave", onLeave);
    target.addEventListener("drop", onDrop);
    return () => {
      target.removeEventListener("dragover", onOver);
      target.removeEventListener("dragleave", onLeave);
      target.removeEventListener("drop", onDrop);
    };
  }, [mine]);

  useEffect(() => {
    const target = zone.current?.closest(".drive-main");
    target?.classList.toggle("drop-over", over);
  }, [over]);

  const picker = (input: HTMLInputElement) => {
    upload(fromInput(input.files));
    input.value = "";
  };
  return (
    <div class="upload-tools" ref={zone}>
      {mine && (
        <>
          <input
            ref={files}
            id="upload-files"
            type="file"
            multiple
            hidden
            onChange={(e) => picker(e.currentTarget)}
          />
          <input
            ref={folders}
            id="upload-folder"
            type="file"
            hidden
            {...{ webkitdirectory: true }}
            onChange={(e) => picker(e.currentTarget)}
          />
          <button type="button" class="button primary" onClick={() => files.current!.click()}>
            {t("upFilesButton")}
          </button>
          <button type="button" class="button" onClick={() => folders.current!.click()}>
            {t("upFolderButton")}
          </button>
        </>
      )}
      <UploadPanel
        queue={queue}
        interrupted={interrupted}
        onDiscard={(i) => {
          setInterrupted((list) => list.filter((x) => x.key !== i.key));
          discard(i, drive.csrf());
        }}
      />
      {asker.render()}
    </div>
  );
}

/**
 * Puts `row` at the top of the listing, or updates it when it is there already (a new version of
 * a listed file; a live update may also have brought it).
 */
function show(listing: Listing, row: Row): void {
  if (!listing.rows.value.some((x) => x.rs === row.rs)) {
    listing.rows.value = [row, ...listing.rows.value];
  } else if (row.type === "FILE") {
    listing.update(row.rs, { size: row.size, updatedAt: row.updatedAt });
  }
}
