/**
 * The listing worker's entry (list_pool.ts): opens its own handle on the KV file with the first
 * request, then answers each `list` with its JSON bytes (transferred, not copied), or the status
 * and message of the ProviderError it threw. It only reads.
 */
/// <reference lib="deno.worker" />
import { openKv } from "../kv/db.ts";
import { directoryJson } from "./entries.ts";
import type { ListAnswer, ListRequest } from "./list_pool.ts";
import { ProviderError } from "./responses.ts";

function serveListings(scope: typeof self) {
  let kv: Promise<Deno.Kv> | null = null;
  const encoder = new TextEncoder();
  scope.onmessage = async (e: MessageEvent<ListRequest>) => {
    const { id, kvPath, listing } = e.data;
    let answer: ListAnswer;
    try {
      kv ??= openKv(kvPath);
      const bytes = encoder.encode(await directoryJson(await kv, listing));
      answer = { id, ok: true, bytes };
    } catch (err) {
      answer = err instanceof ProviderError
        ? { id, ok: false, status: err.status, message: err.message }
        : { id, ok: false, status: 500, message: String(err) };
    }
    scope.postMessage(answer, answer.ok ? [answer.bytes.buffer] : []);
  };
}

serveListings(self);
