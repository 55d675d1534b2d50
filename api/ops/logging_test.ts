import assert from "node:assert/strict";
import { getJsonLinesFormatter, type LogRecord } from "@logtape/logtape";
import { lineFormatter, stdoutLines } from "./logging.ts";

function record(over: Partial<LogRecord>): LogRecord {
  const message = over.message ?? ["GET /healthz 200"];
  return {
    category: ["drive", "http"],
    level: "info",
    timestamp: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
    message,
    rawMessage: message.join(""),
    properties: {},
    ...over,
  } as LogRecord;
}

Deno.test("the JSON line is LogTape's JSON Lines line, fast path or not", () => {
  const logtape = getJsonLinesFormatter({ properties: "flatten" });
  const ours = lineFormatter("json");
  const records = [
    // The request line: the fast path.
    record({
      properties: {
        requestId: "r-1",
        method: "GET",
        route: "/healthz",
        status: 200,
        durationMs: 0.42,
        bytesIn: 0,
        bytesOut: 15,
        actor: null,
        aborted: undefined,
        keep: true,
        ratio: Number.NaN,
      },
    }),
    record({ level: "warning", properties: { note: 'quotes " and \\ and\nnew line, 보고서' } }),
    // Escaped by LogTape beyond JSON.stringify.
    record({ properties: { odd: "a\u0085b\u007f" } }),
    // Not plain: an error, a nested object, a bigint, a placeholder message.
    record({ level: "error", properties: { error: new Error("disk on fire") } }),
    record({ properties: { nested: { a: [1, 2] } } }),
    record({ properties: { big: 12n } }),
    record({ message: ["value ", 42, ""], properties: { value: 42 } }),
  ];
  for (const r of records) assert.equal(ours(r), logtape(r));
});

Deno.test("stdout lines: one write per turn of the event loop, in order, whole; flush writes at once", async () => {
  const writes: string[] = [];
  const out = stdoutLines((text) => writes.push(text));
  out.add("a\n");
  out.add("b\n");
  await Promise.resolve();
  assert.deepEqual(writes, [], "nothing is written before the turn ends");
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.deepEqual(writes, ["a\nb\n"]);
  out.add("c\n");
  out.flush();
  assert.deepEqual(writes, ["a\nb\n", "c\n"]);
  // No second write of what was flushed.
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.deepEqual(writes, ["a\nb\n", "c\n"]);
});

Deno.test("stdout lines on a full disk (/dev/full): the lines are lost, the process lives on", async () => {
  const script = `
    import { stdoutLines } from ${JSON.stringify(new URL("./logging.ts", import.meta.url).href)};
    const out = stdoutLines();
    for (let i = 0; i < 100; i++) out.add("a line that finds no room\\n");
    await new Promise((r) => setTimeout(r, 50));
    console.error("alive");
  `;
  const { code, stderr } = await new Deno.Command("sh", {
    args: ["-c", `"${Deno.execPath()}" eval "$0" > /dev/full`, script],
    stderr: "piped",
  }).output();
  const err = new TextDecoder().decode(stderr);
  assert.equal(code, 0, err);
  assert.match(err, /alive/);
});
