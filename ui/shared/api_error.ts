/**
 * An error answer of a server API, as the admin console and the app show it: the status, the
 * catalog code, the sentence, and the field at fault when the server names one.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    /** Seconds to wait (Retry-After), when the server throttles. */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}
