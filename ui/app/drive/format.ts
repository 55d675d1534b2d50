/** Sizes and dates as the app shows them, in the app's language. */
import type { Locale } from "../messages.ts";

const UNITS = ["B", "KB", "MB", "GB", "TB"];

export function formatSize(bytes: number, locale: Locale): string {
  let n = bytes;
  let u = 0;
  while (n >= 1024 && u < UNITS.length - 1) {
    n /= 1024;
    u++;
  }
  const digits = u === 0 || n >= 10 ? 0 : 1;
  return `${n.toLocaleString(locale, { maximumFractionDigits: digits })} ${UNITS[u]}`;
}

/** `short`: the date alone, for the phone layout's narrow column. */
export function formatDate(iso: string | null, locale: Locale, short = false): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (short) return d.toLocaleDateString(locale, { dateStyle: "medium" });
  return d.toLocaleString(locale, { dateStyle: "medium", timeStyle: "short" });
}
