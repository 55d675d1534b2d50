/**
 * Uploads a reload interrupted: tus-js-client keeps each unfinished upload's URL in localStorage
 * (its urlStorage) under our fingerprint (queue.ts fingerprintOf). The panel lists them; picking
 * the same file again for the same folder resumes it, and discarding one deletes it on the server.
 */
import { defaultOptions } from "tus-js-client";
import { FINGERPRINT_PREFIX } from "./queue.ts";

export interface Interrupted {
  key: string;
  name: string;
  size: number;
  url: string | null;
}

export async function interruptedUploads(): Promise<Interrupted[]> {
  const all = await defaultOptions.urlStorage.findAllUploads();
  return all
    .filter((u) => u.urlStorageKey.startsWith(`tus::${FINGERPRINT_PREFIX}/`))
    .map((u) => ({
      key: u.urlStorageKey,
      name: u.metadata.filename ?? "",
      size: u.size ?? 0,
      url: u.uploadUrl ?? null,
    }));
}

/** Forgets an interrupted upload here and ends it on the server (tus termination). */
export async function discard(i: Interrupted, csrf: string | null): Promise<void> {
  await defaultOptions.urlStorage.removeUpload(i.key);
  if (!i.url) return;
  const headers: Record<string, string> = { "Tus-Resumable": "1.0.0" };
  if (csrf) headers["X-CSRF-Token"] = csrf;
  await fetch(i.url, { method: "DELETE", headers }).catch(() => undefined);
}
