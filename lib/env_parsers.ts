/**
 * Zod parsers for environment variable text (config.ts's table): each issue's message completes
 * "<VARIABLE> ...", so a bad value becomes one line naming the variable.
 */
import { Buffer } from "node:buffer";
import { z } from "zod";
import { type IpRange, parseCidr, parseIp } from "./ip.ts";

/** A whole number from `min` to `max` (both included). */
export function int(min = 0, max = Number.MAX_SAFE_INTEGER, tooLarge = `must be at most ${max}`) {
  return z.string()
    .regex(/^\d+$/, "must be a non-negative integer")
    .transform(Number)
    .refine(Number.isSafeInteger, "is too large")
    .refine((n) => n >= min, `must be at least ${min}`)
    .refine((n) => n <= max, tooLarge);
}

export const seconds = (min: number) => int(min).transform((s) => s * 1000);

export const bool = z.string()
  .refine((s) => /^(true|false|1|0)?$/i.test(s), "must be true or false")
  .transform((s) => /^(true|1)$/i.test(s));

/** One of `values`; `rule` overrides the message listing them. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T, rule?: string) {
  const names = values.map((v) => `"${v}"`);
  const message = rule ?? `must be ${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
  return z.string().refine((s) => values.includes(s), message).transform((s) => s as T[number]);
}

/** Unset or empty: null. */
export const optionalText = z.string().optional().transform((s) => s || null);

/** A host name (RFC 1123 labels) or an IPv4/IPv6 address, bracketed or not. */
const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;
export const host = z.string().refine(
  (s) => HOST_NAME.test(s) || parseIp(s.replace(/^\[(.*)\]$/, "$1")) !== null,
  "must be an IP address or a host name",
);

export const trustedProxies = z.string().transform((raw, ctx): readonly IpRange[] => {
  if (raw.trim() === "") return [];
  return raw.split(",").map((entry) => {
    const range = parseCidr(entry);
    if (!range) {
      ctx.addIssue({
        code: "custom",
        message: `: "${entry.trim()}" is not an IP address or CIDR range`,
      });
    }
    return range!;
  });
});

export const secretsKey = z.string().optional().transform((raw, ctx) => {
  if (!raw) return null;
  const bytes = /^[A-Za-z0-9+/_-]+={0,2}$/.test(raw) ? Buffer.from(raw, "base64") : null;
  if (!bytes || bytes.byteLength !== 32) {
    ctx.addIssue({ code: "custom", message: "must be 32 bytes, base64-encoded" });
  }
  return new Uint8Array(bytes ?? []);
});
