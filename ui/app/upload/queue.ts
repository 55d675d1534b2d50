/**
 * The uploads of this tab: each picked file becomes an item, sent through the drive API's tus
 * endpoint with tus-js-client, PARALLEL at a time. Items wait for their folders (folders.ts) and
 * for the name-conflict decision (`decide`), then start; tus-js-client keeps each upload's URL in
 * localStorage under a fingerprint of the file and its target, so after a reload picking the same
 * file again resumes from the server's offset (HEAD) instead of starting over.
 */
import { type Signal, signal } from "@preact/signals";
import { Upload } from "tus-js-client";
import { DRIVE_BASE } from "../drive/api.ts";
import type { Picked } from "./sources.ts";
import type { Place } from "./folders.ts";

export const ENDPOINT = `${DRIVE_BASE}/uploads`;
/** Uploads running at once. */
export const PARALLEL = 3;
/** Bytes per PATCH: what a reload or a lost connection can cost at most. */
export const CHUNK_SIZE = 4 * 1024 * 1024;

export type ItemState =
  | "queued"
  | "running"
  | "paused"
  | "done"
  | "failed"
  | "canceled"
  | "skipped";

/** How a file lands: a new file (the server renames on a clash) or a new version of `rs`. */
export type Decision = { st: "duplicate" } | { st: "version"; rs: number } | { st: "skip" };

export interface Item {
  id: number;
  file: File;
  dirs: string[];
  /** The drive folder the upload was started from. */
  place: Place;
  /** The folder the file goes into (made first when it is a folder upload). */
  folder: () => Promise<number | null>;
  sent: Signal<number>;
  state: Signal<ItemState>;
  error: Signal<string | null>;
  tus: Upload | null;
}

export interface QueueHooks {
  csrf(): string | null;
  /** How to place the item in its folder (asks the person on a taken name). */
  decide(item: Item, pfs: number | null): Promise<Decision>;
  /** A file landed in folder `pfs`. */
  landed(file: { rs: number; name: string; size: number }, pfs: number | null): void;
  /** A stored upload (urlStorage key) is being resumed. */
  resumed(key: string): void;
}

export const FINGERPRINT_PREFIX = "drive-upload";

/** The stored upload's fingerprint: the file and where it goes (one file, two places: two uploads). */
export const fingerprintOf = (file: File, dirs: string[], place: Place) =>
  [
    FINGERPRINT_PREFIX,
    place.ss ?? "",
    place.pfs ?? "root",
    ...dirs,
    file.name,
    file.size,
    file.lastModified,
  ].join("/");

export class UploadQueue {
  readonly items = signal<Item[]>([]);
  private nextId = 1;

  constructor(private readonly hooks: QueueHooks) {}

  /** Queues `picked` for `place`; `folder` gives (or makes) the folder of a file's `dirs`. */
  add(picked: Picked[], place: Place, folder: (dirs: string[]) => Promise<number | null>): void {
    const added = picked.map(({ file, dirs }): Item => ({
      id: this.nextId++,
      file,
      dirs,
      place,
      folder: () => folder(dirs),
      sent: signal(0),
      state: signal<ItemState>("queued"),
      error: signal<string | null>(null),
      tus: null,
    }));
    this.items.value = [...this.items.value, ...added];
    this.pump();
  }

  private running(): number {
    return this.items.value.filter((i) => i.state.value === "running").length;
  }

  /** Starts queued items while fewer than PARALLEL run. */
  private pump(): void {
    for (const item of this.items.value) {
      if (this.running() >= PARALLEL) return;
      if (item.state.value === "queued") {
        item.state.value = "running";
        this.start(item).catch((err) => this.failed(item, err));
      }
    }
  }

  private failed(item: Item, err: unknown): void {
    if (item.state.value !== "running") return;
    item.error.value = (err as Error).message;
    item.state.value = "failed";
    this.pump();
  }

  private async start(item: Item): Promise<void> {
    const pfs = await item.folder();
    const fingerprint = fingerprintOf(item.file, item.dirs, item.place);
    const metadata: Record<string, string> = { filename: item.file.name };
    if (pfs) metadata.pfs = String(pfs);
    if (pfs && item.place.ss) metadata.ss = String(item.place.ss);
    const tus = new Upload(item.file, {
      endpoint: ENDPOINT,
      chunkSize: CHUNK_SIZE,
      metadata,
      fingerprint: () => Promise.resolve(fingerprint),
      removeFingerprintOnSuccess: true,
      retryDelays: [0, 1000, 3000],
      onBeforeRequest: (req) => {
        const csrf = this.hooks.csrf();
        if (csrf) req.setHeader("X-CSRF-Token", csrf);
      },
      onProgress: (sent) => item.sent.value = sent,
      onError: (err) => this.failed(item, err),
      onSuccess: () => this.finished(item, pfs),
    });
    item.tus = tus;
    // A file picked again after a reload resumes its stored upload (its target is already set).
    const previous = await tus.findPreviousUploads();
    if (previous.length) {
      tus.resumeFromPreviousUpload(previous[0]);
      this.hooks.resumed(previous[0].urlStorageKey);
    } else {
      const decision = await this.hooks.decide(item, pfs);
      if (decision.st === "skip") {
        item.state.value = "skipped";
        return this.pump();
      }
      if (decision.st === "version") {
        tus.options.metadata = { ...metadata, st: "version", rs: String(decision.rs) };
      }
    }
    if (item.state.value === "running") tus.start();
  }

  /** The upload's answer names the file it made (GET /uploads/{id}). */
  private async finished(item: Item, pfs: number | null): Promise<void> {
    item.sent.value = item.file.size;
    item.state.value = "done";
    this.pump();
    const res = await fetch(item.tus!.url!, { headers: { accept: "application/json" } });
    const file = (await res.json().catch(() => null))?.data?.file;
    if (file) {
      this.hooks.landed(
        { rs: file.resourceSeq, name: file.resourceName, size: item.file.size },
        pfs,
      );
    }
  }

  pause(item: Item): void {
    if (item.state.value !== "running" && item.state.value !== "queued") return;
    item.state.value = "paused";
    item.tus?.abort(false);
    this.pump();
  }

  resume(item: Item): void {
    if (item.state.value !== "paused" && item.state.value !== "failed") return;
    item.error.value = null;
    if (item.tus) {
      item.state.value = "running";
      item.tus.start();
    } else item.state.value = "queued";
    this.pump();
  }

  /** Stops the item and deletes its upload on the server (tus termination). */
  async cancel(item: Item): Promise<void> {
    const was = item.state.value;
    if (was === "done" || was === "canceled" || was === "skipped") return;
    item.state.value = "canceled";
    this.pump();
    if (item.tus?.url) await item.tus.abort(true).catch(() => undefined);
    else if (item.tus) await item.tus.abort(false);
  }

  /** Drops finished, skipped and canceled items from the panel. */
  clearFinished(): void {
    this.items.value = this.items.value.filter((i) =>
      !["done", "canceled", "skipped"].includes(i.state.value)
    );
  }
}
