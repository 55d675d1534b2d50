/**
 * Start-up messages of main.ts: the start line names the address actually bound, and a busy
 * port is one line naming the variable plus exit code 3, not a stack trace.
 */
import assert from "node:assert/strict";
import { listeningAt } from "../../serve.ts";
import { MAIN, startMain } from "../helpers/process.ts";

Deno.test("the start line shows the address bound: the real port for PORT=0, the host as bound", async () => {
  const dir = await Deno.makeTempDir({ prefix: "drive-start-" });
  try {
    const main = await startMain({ DRIVE_DATA_DIR: dir, DRIVE_LOG_FORMAT: "text" });
    const shown = /listening on (http:\/\/\S+)/.exec(main.out)?.[1] ?? "";
    assert.match(shown, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(new URL(shown).port, "0");
    const res = await fetch(`${shown}/healthz`);
    assert.equal(res.status, 200);
    await res.body?.cancel();
    assert.equal((await main.stop()).code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  // Every interface is said so (not "localhost"); IPv6 hosts get brackets.
  const at = (hostname: string) => listeningAt({ transport: "tcp", hostname, port: 8000 });
  assert.equal(at("0.0.0.0"), "http://0.0.0.0:8000 (all interfaces)");
  assert.equal(at("::"), "http://[::]:8000 (all interfaces)");
  assert.equal(at("::1"), "http://[::1]:8000");
});

Deno.test("a busy port: one line naming the port and PORT, exit code 3, no stack trace", async () => {
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN],
      env: {
        PORT: String(taken.addr.port),
        HOST: "127.0.0.1",
        DRIVE_KV: ":memory:",
        DRIVE_BLOB_STORE: "kv",
        DRIVE_LOG_FORMAT: "text",
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 3);
    const lines = new TextDecoder().decode(out.stderr).split("\n").filter((l) => l.trim() !== "");
    assert.equal(lines.length, 1, lines.join("\n"));
    assert.match(lines[0], new RegExp(`^port ${taken.addr.port} is already in use .*\\(PORT\\)`));
    assert.doesNotMatch(new TextDecoder().decode(out.stdout), /listening on|Uncaught|AddrInUse/);
  } finally {
    taken.close();
  }
});

Deno.test("`deno task start:small` serves with V8's heap capped (docs/operations.md)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "drive-small-" });
  const heapLimit = async (url: string) => {
    const text = await (await fetch(`${url}/metrics`)).text();
    return Number(/^deno_memory_heap_bytes\{kind="limit"\} (\d+)$/m.exec(text)?.[1]);
  };
  try {
    const small = await startMain({ DRIVE_DATA_DIR: dir }, { task: "start:small" });
    const plain = await startMain({ DRIVE_DATA_DIR: `${dir}/plain` });
    try {
      const res = await fetch(`${small.url}/healthz`);
      assert.equal(res.status, 200);
      await res.body?.cancel();
      // 64 MiB of old space plus the young generation; V8's own default here is gigabytes.
      const capped = await heapLimit(small.url);
      assert.ok(capped >= 64 * 2 ** 20 && capped < 80 * 2 ** 20, `limit ${capped}`);
      assert.ok((await heapLimit(plain.url)) > 512 * 2 ** 20);
    } finally {
      await small.stop();
      await plain.stop();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
