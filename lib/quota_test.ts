import assert from "node:assert/strict";
import { parseQuota, parseQuotaText } from "./quota.ts";

Deno.test("parseQuota: a number and one of the console's units", () => {
  assert.equal(parseQuota("2.5", "GiB"), 2.5 * 1024 ** 3);
  assert.equal(parseQuota("1", "TiB"), 1024 ** 4);
  assert.equal(typeof parseQuota("ten", "GiB"), "string");
  assert.equal(typeof parseQuota("1", "GB"), "string");
});

Deno.test("parseQuotaText: whole bytes, or a number with the same units as the console", () => {
  assert.equal(parseQuotaText("5GiB"), 5 * 1024 ** 3);
  assert.equal(parseQuotaText("5 gib"), 5 * 1024 ** 3);
  assert.equal(parseQuotaText("2.5TiB"), 2.5 * 1024 ** 4);
  assert.equal(parseQuotaText("512MiB"), 512 * 1024 ** 2);
  assert.equal(parseQuotaText("5368709120"), 5368709120);
  for (const bad of ["5GB", "GiB", "-1GiB", "1e9", "", "99999999999999999999"]) {
    assert.equal(typeof parseQuotaText(bad), "string", bad);
  }
});
