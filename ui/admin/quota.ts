/** Quotas are entered as a number and a unit; the API takes whole bytes. */

export const QUOTA_UNITS = [
  { value: "MiB", label: "MiB", bytes: 1024 ** 2 },
  { value: "GiB", label: "GiB", bytes: 1024 ** 3 },
  { value: "TiB", label: "TiB", bytes: 1024 ** 4 },
];

/** Bytes for "12.5" GiB, or an error sentence. */
export function parseQuota(amount: string, unit: string): number | string {
  const t = amount.trim();
  if (!/^\d+(\.\d+)?$/.test(t)) return "Enter the quota as a non-negative number, e.g. 10 or 2.5.";
  const u = QUOTA_UNITS.find((x) => x.value === unit);
  if (!u) return "Choose a unit.";
  const bytes = Math.round(Number(t) * u.bytes);
  if (!Number.isSafeInteger(bytes)) return "That quota is too large.";
  return bytes;
}

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
