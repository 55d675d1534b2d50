/** Display formatting shared by the admin console and the share page. */

const UNITS = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB"];

export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return "—";
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${n} ${n === 1 ? "byte" : "bytes"}`;
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${UNITS[unit]}`;
}

/** Dates arrive as ISO strings or epoch milliseconds depending on the endpoint. */
export function toDate(value: string | number | null | undefined): Date | null {
  if (value === null || value === undefined || value === "") return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}

export function formatDate(value: string | number | null | undefined, fallback = "—"): string {
  const d = toDate(value);
  if (!d) return fallback;
  return d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export function isPast(value: string | number | null | undefined, now = Date.now()): boolean {
  const d = toDate(value);
  return d !== null && d.getTime() <= now;
}

/** The words to show for a failure: an Error's message, or whatever else was thrown. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
