/** The external API's JSON envelope: {result, code, message, data}. */
import type { Context } from "hono";
import { ERROR_CATALOG, type ErrorCode } from "../kv/errors.ts";

const STATUS_TEXT: Record<number, string> = { 200: "OK", 201: "Created" };

export function ok<T>(c: Context, data: T, status: 200 | 201 = 200) {
  return c.json(
    { result: true as const, code: status, message: STATUS_TEXT[status], data },
    status,
  );
}

export interface ErrorEnvelope {
  result: false;
  code: number;
  message: string;
  errorCode: ErrorCode;
  data: null;
}

export function errorEnvelope(code: ErrorCode, message: string): ErrorEnvelope {
  return { result: false, code: ERROR_CATALOG[code].status, message, errorCode: code, data: null };
}
