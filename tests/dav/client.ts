/** Requests to the WebDAV edge of an in-process test server, as an ApiUser (Basic auth). */
import type { ApiUser } from "../helpers/api.ts";

export const basicOf = (user: string, key: string) =>
  `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode(`${user}:${key}`)))}`;

/** `path` below the user's own drive ("" is the drive root). */
export const driveUrl = (u: ApiUser, path = "") => `${u.url}/dav/files/${u.accountId}/${path}`;

export function davAs(
  u: ApiUser,
  method: string,
  url: string,
  headers: Record<string, string> = {},
  body: BodyInit | null = null,
): Promise<Response> {
  return fetch(url, {
    method,
    headers: { authorization: basicOf(u.accountId, u.apiKey), ...headers },
    body,
  });
}

/** The status of a request, its body read (so the connection is free). */
export async function statusOf(res: Response | Promise<Response>): Promise<number> {
  const r = await res;
  await r.body?.cancel();
  return r.status;
}

export const PROPFIND_ALL =
  `<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>`;
