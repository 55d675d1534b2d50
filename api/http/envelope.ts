/** The external API's JSON envelope: {result, code, message, data}. */
import type { Context, TypedResponse } from "hono";
import type { JSONParsed } from "hono/utils/types";
import { ERROR_CATALOG, type ErrorCode } from "../../kv/errors.ts";
import { jsonResponse } from "./json_response.ts";

const STATUS_TEXT: Record<number, string> = { 200: "OK", 201: "Created" };

interface OkEnvelope<T> {
  result: true;
  code: 200 | 201;
  message: string;
  data: T;
}

/**
 * Spelled out rather than inferred from `c.json`: inferring it anew in every importing file
 * that an incremental type check revisits can exceed TypeScript's instantiation depth
 * (TS2589 with no location).
 */
type OkResponse<T> = Response & TypedResponse<JSONParsed<OkEnvelope<T>>, 200 | 201, "json">;

export function ok<T>(c: Context, data: T, status: 200 | 201 = 200): OkResponse<T> {
  const envelope: OkEnvelope<T> = {
    result: true,
    code: status,
    message: STATUS_TEXT[status],
    data,
  };
  // With its Content-Length, which the request log reads (api/http/json_response.ts).
  return jsonResponse(c, envelope, status) as OkResponse<T>;
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
