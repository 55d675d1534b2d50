import assert from "node:assert/strict";
import { isoTime } from "./iso_time.ts";

const DAY = 86_400_000;

Deno.test("isoTime equals toISOString at the edges of days, months, leap years and the range", () => {
  const edges = [
    0,
    1,
    999,
    DAY - 1,
    DAY,
    Date.UTC(2000, 1, 29, 23, 59, 59, 999), // leap day of a 400-year
    Date.UTC(2100, 1, 28, 12),
    Date.UTC(2100, 2, 1), // 2100 is no leap year
    Date.UTC(2024, 11, 31, 23, 59, 59, 999),
    Date.UTC(2025, 0, 1),
    253_402_300_799_999, // 9999-12-31T23:59:59.999Z
  ];
  for (const ms of edges) assert.equal(isoTime(ms), new Date(ms).toISOString(), String(ms));
});

Deno.test("isoTime equals toISOString on 100,000 random times", () => {
  for (let i = 0; i < 100_000; i++) {
    const ms = Math.floor(Math.random() * 253_402_300_800_000);
    assert.equal(isoTime(ms), new Date(ms).toISOString());
  }
});

Deno.test("isoTime falls back to V8 outside 1970-9999 and for fractions; invalid throws", () => {
  for (const ms of [-1, -DAY * 400, 253_402_300_800_000, 1.5]) {
    assert.equal(isoTime(ms), new Date(ms).toISOString());
  }
  assert.throws(() => isoTime(NaN), RangeError);
});
