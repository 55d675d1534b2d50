/**
 * Holds the server to what works on every host of a scale-out (docs/scale-out.md): no Deno KV
 * queue (`enqueue`, `listenQueue`: KV Connect and the new Deno Deploy have none) and no
 * `kv.watch` (a local SQLite KV does not tell one process about another's commits,
 * denoland/deno#21640). Cross-host work goes through KV keys that every process polls: the
 * webhook outbox (kv/events/webhook_outbox.ts) and the event log poller (kv/events/runtime.ts).
 */
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Folders that are not the server: tools, tests, benches and the built UI. */
const NOT_SERVER = new Set(["tests", "bench", "scripts", "static", "node_modules", ".git", "ui"]);

/**
 * Uses allowed anyway, each with its reason: `file: receiver.method`. A ReadableStream
 * controller's `enqueue` is not KV's and is allowed everywhere (`controller.enqueue`).
 */
const ALLOWED: Record<string, string> = {};

const CALL = /([A-Za-z_$][\w$]*)\s*(?:\(\s*\))?\s*\.(enqueue|listenQueue|watch)\s*\(/g;

async function* serverFiles(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const path = join(dir, e.name);
    if (e.isDirectory) {
      if (!NOT_SERVER.has(e.name) && !e.name.startsWith(".")) yield* serverFiles(path);
    } else if (e.name.endsWith(".ts") && !e.name.endsWith("_test.ts")) yield path;
  }
}

/** Every KV queue or watch call in `source`, as `receiver.method`. */
export function queueAndWatchCalls(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
  const found: string[] = [];
  for (const m of code.matchAll(CALL)) {
    if (m[2] === "enqueue" && m[1] === "controller") continue;
    found.push(`${m[1]}.${m[2]}`);
  }
  return found;
}

Deno.test("the matcher finds KV queues and watches, not stream controllers", () => {
  assert.deepEqual(queueAndWatchCalls("op.enqueue(m, {});\nkv.listenQueue(h);"), [
    "op.enqueue",
    "kv.listenQueue",
  ]);
  assert.deepEqual(queueAndWatchCalls("const w = kv.watch([k]);"), ["kv.watch"]);
  assert.deepEqual(queueAndWatchCalls("d.kv.atomic().enqueue(x)"), ["atomic.enqueue"]);
  assert.deepEqual(queueAndWatchCalls("controller.enqueue(bytes); // kv.watch(x)"), []);
});

Deno.test("no server code uses KV queues or kv.watch outside the allow-list", async () => {
  const found: string[] = [];
  for await (const path of serverFiles(ROOT)) {
    const file = relative(ROOT, path);
    for (const call of queueAndWatchCalls(await Deno.readTextFile(path))) {
      if (!ALLOWED[`${file}: ${call}`]) found.push(`${file}: ${call}`);
    }
  }
  assert.deepEqual(found, [], "use the outbox or the event-log poller (docs/scale-out.md)");
});
