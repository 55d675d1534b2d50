/**
 * A single sign-on driven with fetch instead of a browser: follows the redirects from the drive's
 * start route through the test provider's own login and consent pages (tests/helpers/
 * oidc_provider.ts: their forms are filled in as a person would, any password) back to the
 * drive's callback, and returns the callback's answer. Cookies are kept per origin, as a browser
 * would for these two servers. The Chromium test (tests/browser/oidc_test.ts) does the same
 * through the real pages; this one is for the many refusal cases.
 */
export interface CallbackAnswer {
  status: number;
  /** Where the drive sent the browser: the app, or /signin?error=<code>. */
  location: string;
  /** The drive's session cookie value, when it signed in. */
  sessionId: string | null;
}

type Jar = Map<string, Map<string, string>>;

function remember(jar: Jar, url: URL, res: Response): void {
  const cookies = jar.get(url.origin) ?? new Map<string, string>();
  jar.set(url.origin, cookies);
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const eq = pair.indexOf("=");
    const value = pair.slice(eq + 1);
    if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === "") {
      cookies.delete(pair.slice(0, eq));
    } else cookies.set(pair.slice(0, eq), value);
  }
}

async function send(jar: Jar, url: URL, init: RequestInit = {}): Promise<Response> {
  const cookies = [...(jar.get(url.origin) ?? new Map()).entries()].map(([k, v]) => `${k}=${v}`);
  const headers = new Headers(init.headers);
  if (cookies.length) headers.set("cookie", cookies.join("; "));
  const res = await fetch(url, { ...init, headers, redirect: "manual" });
  remember(jar, url, res);
  return res;
}

/** The first form of a provider page: its action and its inputs' names and values. */
function formOf(html: string, base: URL): { action: URL; fields: URLSearchParams } {
  const form = html.match(/<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/i);
  if (!form) throw new Error(`no form on the provider's page:\n${html.slice(0, 500)}`);
  const fields = new URLSearchParams();
  for (const input of form[2].matchAll(/<input[^>]*>/gi)) {
    const name = input[0].match(/name="([^"]+)"/)?.[1];
    if (name) fields.set(name, input[0].match(/value="([^"]*)"/)?.[1] ?? "");
  }
  return { action: new URL(form[1].replaceAll("&amp;", "&"), base), fields };
}

/**
 * Signs in as `login` starting at `startUrl` (the drive's /auth/v1/oidc/{tenantId}/start) and
 * stops at the drive's callback answer. Throws if the provider's pages lead anywhere else.
 */
export async function ssoWithFetch(startUrl: string, login: string): Promise<CallbackAnswer> {
  const jar: Jar = new Map();
  const drive = new URL(startUrl).origin;
  let url = new URL(startUrl);
  let init: RequestInit = {};
  for (let hop = 0; hop < 20; hop++) {
    const res = await send(jar, url, init);
    init = {};
    const location = res.headers.get("location");
    if (url.origin === drive && url.pathname.endsWith("/oidc/callback")) {
      await res.body?.cancel();
      const sessionId = jar.get(drive)?.get("drive_session") ?? null;
      return { status: res.status, location: location ?? "", sessionId };
    }
    if (location) {
      await res.body?.cancel();
      url = new URL(location, url);
      continue;
    }
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    const { action, fields } = formOf(await res.text(), url);
    if (fields.has("login")) {
      fields.set("login", login);
      fields.set("password", "any password: the development login takes any");
    }
    init = {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: fields.toString(),
    };
    url = action;
  }
  throw new Error("the sign-in did not come back to the drive in 20 hops");
}
