/**
 * Quotas as people write them: a number and a unit (MiB, GiB, TiB; binary units), turned into
 * the whole bytes the API stores. The admin console's quota field (ui/admin/quota.ts) and the
 * admin CLI's `--quota` share this, so both accept the same units.
 */

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

/**
 * Bytes for one piece of text: whole bytes ("5368709120") or a number and a unit ("5GiB",
 * "2.5 TiB"; the unit's case is free); else an error sentence naming what is accepted.
 */
export function parseQuotaText(text: string): number | string {
  const t = text.trim();
  if (/^\d+$/.test(t)) {
    return Number.isSafeInteger(Number(t)) ? Number(t) : "That quota is too large.";
  }
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]+)$/i.exec(t);
  const unit = m && QUOTA_UNITS.find((u) => u.value.toLowerCase() === m[2].toLowerCase());
  if (!m || !unit) {
    const units = QUOTA_UNITS.map((u) => u.value).join(", ");
    return `Give the quota in bytes or as a number with a unit (${units}), e.g. 5GiB or 2.5TiB.`;
  }
  return parseQuota(m[1], unit.value);
}
