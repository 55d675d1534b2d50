/** The checks every outbound URL the service is configured with shares. */

/** What each caller says when a URL fails a check, in its own words. */
interface HttpUrlProblems {
  unparsable: string;
  scheme: (scheme: string) => string;
  userInfo: string;
}

/**
 * `raw` parsed as an absolute http: or https: URL without a user name or password (credentials
 * in a configured URL would be sent to, or logged with, every request), or the problem.
 */
export function parseHttpUrl(
  raw: string,
  say: HttpUrlProblems,
): { url: URL } | { problem: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { problem: say.unparsable };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { problem: say.scheme(url.protocol.slice(0, -1)) };
  }
  if (url.username || url.password) return { problem: say.userInfo };
  return { url };
}
