/**
 * The request id every log line and response carries (`X-Request-Id`). An incoming id is kept
 * when it is well-formed, so a proxy's or client's id follows the request through; anything else
 * (absent, too long, odd characters that could forge log fields) is replaced by a fresh UUID.
 */

export const REQUEST_ID_HEADER = "X-Request-Id";

/** Well-formed: 1 to 128 characters of letters, digits, `.`, `_`, `:` and `-`. */
const REQUEST_ID_SHAPE = /^[A-Za-z0-9._:-]{1,128}$/;

/** The incoming id when well-formed, else a new random UUID. */
export function requestIdFrom(incoming: string | undefined | null): string {
  return incoming && REQUEST_ID_SHAPE.test(incoming) ? incoming : crypto.randomUUID();
}
