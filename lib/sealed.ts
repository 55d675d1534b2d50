/**
 * Secrets the service must use again (an HMAC or signing key), so they cannot be stored hashed:
 * sealed with AES-256-GCM under the service's secrets key (kv/secrets_key.ts). The additional
 * data binds a sealed value to what owns it, so a sealed secret copied onto another record does
 * not open. Webhook signing secrets (kv/events/webhooks.ts) and adapter secrets
 * (kv/adapters/adapters.ts) use it.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { Buffer } from "node:buffer";
import { sha256Hex } from "./secrets.ts";

export interface SealedText {
  /** Which secrets key sealed it (first 16 hex of its SHA-256), to diagnose a changed key. */
  keyId: string;
  iv: string;
  tag: string;
  data: string;
}

export const sealingKeyId = (key: Uint8Array): string => sha256Hex(key).slice(0, 16);

export function sealText(key: Uint8Array, boundTo: string, plain: string): SealedText {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(boundTo, "utf8"));
  const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return {
    keyId: sealingKeyId(key),
    iv: iv.toString("base64"),
    tag: cipher.getAuthTag().toString("base64"),
    data: data.toString("base64"),
  };
}

/** The plain text, or null when `key` or `boundTo` is not the one it was sealed with. */
export function openText(key: Uint8Array, boundTo: string, sealed: SealedText): string | null {
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(sealed.iv, "base64"));
    decipher.setAAD(Buffer.from(boundTo, "utf8"));
    decipher.setAuthTag(Buffer.from(sealed.tag, "base64"));
    return Buffer.concat([decipher.update(Buffer.from(sealed.data, "base64")), decipher.final()])
      .toString("utf8");
  } catch {
    return null;
  }
}
