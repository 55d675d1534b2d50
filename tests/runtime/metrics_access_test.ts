/**
 * GET /metrics is open unless DRIVE_METRICS_TOKEN is set, and the start-up log says so when it
 * is open (docs/security.md, "In front of the service"); with the token set it says nothing and
 * /metrics wants the token.
 */
import assert from "node:assert/strict";
import { startMain } from "../helpers/process.ts";

const OPEN_LINE = /GET \/metrics is open to anyone who can reach the service.*DRIVE_METRICS_TOKEN/;

Deno.test("the start-up log says /metrics is open when DRIVE_METRICS_TOKEN is not set", async () => {
  const dir = await Deno.makeTempDir({ prefix: "drive-metrics-" });
  try {
    const open = await startMain({ DRIVE_DATA_DIR: `${dir}/open`, DRIVE_LOG_FORMAT: "text" });
    try {
      assert.match(open.out, OPEN_LINE);
      const res = await fetch(`${open.url}/metrics`);
      assert.equal(res.status, 200);
      assert.match(await res.text(), /^# TYPE drive_http_requests_total counter$/m);
    } finally {
      await open.stop();
    }
    const token = "metrics-token-0123456789abcdef";
    const shut = await startMain({
      DRIVE_DATA_DIR: `${dir}/shut`,
      DRIVE_LOG_FORMAT: "text",
      DRIVE_METRICS_TOKEN: token,
    });
    try {
      assert.doesNotMatch(shut.out, /\/metrics is open/);
      const refused = await fetch(`${shut.url}/metrics`);
      assert.equal(refused.status, 401);
      assert.equal((await refused.json()).error, "OPS_001");
      const res = await fetch(`${shut.url}/metrics`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(res.status, 200);
      await res.body?.cancel();
    } finally {
      await shut.stop();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
