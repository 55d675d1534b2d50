/**
 * The admin token generated at a first start goes through the logger (api/ops/logging.ts): in
 * JSON mode one JSON line holding it in `adminToken`, before the start line, also when
 * DRIVE_LOG_LEVEL is error; nothing is printed beside the log lines. (Deploy mode never prints
 * it: tests/runtime/deploy_mode_test.ts.)
 */
import assert from "node:assert/strict";
import { MAIN, startMain } from "../helpers/process.ts";

Deno.test("first start: the generated admin token is one JSON log line, before the start line", async () => {
  const dir = await Deno.makeTempDir({ prefix: "drive-token-log-" });
  try {
    const main = await startMain({
      DRIVE_DATA_DIR: dir,
      DRIVE_LOG_FORMAT: "json",
      DRIVE_LOG_LEVEL: "error",
    });
    const lines = main.out.split("\n").filter((l) => l.trim() !== "");
    const records = lines.map((line) => {
      try {
        return JSON.parse(line);
      } catch {
        throw new Error(`not a JSON line: ${line}`);
      }
    });
    const withToken = records.filter((r) => "adminToken" in r);
    assert.equal(withToken.length, 1, main.out);
    const [record] = withToken;
    assert.match(record.adminToken, /^adm_[A-Za-z0-9_-]{20,}$/);
    assert.equal(record.message, "admin token generated (shown once, store it now)");
    assert.equal(record.logger, "drive.main");
    const tokenAt = records.indexOf(record);
    const startAt = records.findIndex((r) => /listening on/.test(r.message));
    assert.ok(tokenAt >= 0 && tokenAt < startAt, "the token comes before the start line");
    assert.equal(lines.filter((l) => l.includes(record.adminToken)).length, 1, "printed once");

    const res = await fetch(`${main.url}/admin/api/tenants`, {
      headers: { authorization: `Bearer ${record.adminToken}` },
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    assert.equal((await main.stop()).code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a first start that cannot listen (port busy, exit 3) still prints the token it stored", async () => {
  const dir = await Deno.makeTempDir({ prefix: "drive-token-busy-" });
  const busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const failed = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN],
      env: {
        HOST: "127.0.0.1",
        PORT: String(busy.addr.port),
        DRIVE_DATA_DIR: dir,
        DRIVE_LOG_FORMAT: "json",
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(failed.code, 3);
    assert.match(new TextDecoder().decode(failed.stderr), /already in use/);
    // It was printed only once the server listened: stored, never shown, the admin locked out.
    const token = /"adminToken":"([^"]+)"/.exec(new TextDecoder().decode(failed.stdout))?.[1];
    assert.ok(token, "the stored token was not printed");

    const main = await startMain({ DRIVE_DATA_DIR: dir });
    assert.doesNotMatch(main.out, /admin token generated/);
    const res = await fetch(`${main.url}/admin/api/tenants`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    assert.equal((await main.stop()).code, 0);
  } finally {
    busy.close();
    await Deno.remove(dir, { recursive: true });
  }
});
