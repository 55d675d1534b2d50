/** Quotas are entered as a number and a unit; the API takes whole bytes. */

import { QUOTA_UNITS } from "../../lib/quota.ts";

export { parseQuota, QUOTA_UNITS } from "../../lib/quota.ts";

/** The largest unit that shows `bytes` as a short number, for prefilling the edit form. */
export function quotaParts(bytes: number): { amount: string; unit: string } {
  for (const u of [...QUOTA_UNITS].reverse()) {
    const v = bytes / u.bytes;
    if (v >= 1 && Number.isInteger(Math.round(v * 100) / 100)) {
      return { amount: String(Math.round(v * 100) / 100), unit: u.value };
    }
  }
  return { amount: String(Math.round((bytes / 1024 ** 2) * 100) / 100), unit: "MiB" };
}
