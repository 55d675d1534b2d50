/**
 * `admin config` prints the effective configuration from config.ts's table: every variable,
 * its value and source, secrets masked; a bad value refuses it like any command (exit 3).
 */
import assert from "node:assert/strict";
import { variables } from "../../config.ts";
import { expectCli, freshEnv } from "./run.ts";

Deno.test("admin config: every variable with its effective value and source, secrets masked", async () => {
  const env = await freshEnv();
  try {
    const secret = "adm_do-not-print-me";
    const key = btoa("k".repeat(32));
    const vars = { ...env, PORT: "9100", DRIVE_ADMIN_TOKEN: secret, DRIVE_SECRETS_KEY: key };
    const run = await expectCli(vars, 0, "config", "--json");
    const items: { name: string; value: string | null; from: string }[] = run.json().items;
    assert.deepEqual(items.map((i) => i.name), variables().map((v) => v.name));
    const of = (name: string) => items.find((i) => i.name === name);
    assert.deepEqual(of("PORT"), { name: "PORT", value: "9100", from: "environment" });
    assert.deepEqual(of("DRIVE_PUBLIC_URL"), {
      name: "DRIVE_PUBLIC_URL",
      value: "http://localhost:9100",
      from: "default",
    });
    assert.equal(of("DRIVE_ADMIN_TOKEN")?.value, "(set, not shown)");
    const text = await expectCli(vars, 0, "config");
    for (const out of [run.stdout, text.stdout]) {
      assert.ok(!out.includes(secret) && !out.includes(key), "a secret was printed");
    }
    assert.match(text.stdout, /^DRIVE_KV\s+\S+\/kv\.sqlite3\s+environment$/m);

    const bad = await expectCli({ ...env, HOST: "not a host" }, 3, "config");
    assert.equal(bad.stderr.trim().split("\n").length, 1, bad.stderr);
    assert.match(bad.stderr, /HOST must be an IP address or a host name/);
  } finally {
    await Deno.remove(env.DRIVE_DATA_DIR, { recursive: true });
  }
});
