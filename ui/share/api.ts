/**
 * Client of the public share-link API (/public/v1/links/{token}). No API key: a password link
 * hands out a short-lived access token that later calls carry in X-Link-Access.
 */

export interface LinkPermissions {
  canView: boolean;
  canEdit: boolean;
  canDownload: boolean;
  canUpload: boolean;
  canShare?: boolean;
}

export interface SharedResource {
  resourceSeq: number;
  name: string;
  type: "FILE" | "FOLDER";
  size: number;
  contentType: string | null;
  updatedAt: string;
}

export interface LinkInfo {
  shareType: string;
  passwordRequired: boolean;
  expireDate: string | number | null;
  /** An upload-only file request: the page offers only the uploader. */
  fileRequest?: boolean;
  resource?: SharedResource;
  permissions?: LinkPermissions;
}

export interface FolderListing {
  folder: SharedResource;
  path: { resourceSeq: number; name: string }[];
  items: SharedResource[];
  /** Set when the folder has more entries than one page. */
  cursor?: string | null;
}

export class LinkError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds to wait, from Retry-After on 429. */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

const ACCESS_KEY = (token: string) => `drive.linkAccess.${token}`;

/** The access token of this link, kept for the tab's session only. */
export function storedAccess(token: string): string | null {
  try {
    const raw = sessionStorage.getItem(ACCESS_KEY(token));
    if (!raw) return null;
    const { accessToken, expiresAt } = JSON.parse(raw);
    if (expiresAt && new Date(expiresAt).getTime() <= Date.now()) return null;
    return typeof accessToken === "string" ? accessToken : null;
  } catch {
    return null;
  }
}

export function forgetAccess(token: string): void {
  sessionStorage.removeItem(ACCESS_KEY(token));
}

function base(token: string): string {
  return `/public/v1/links/${encodeURIComponent(token)}`;
}

async function call<T>(
  token: string,
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<T> {
  const access = storedAccess(token);
  let res: Response;
  try {
    res = await fetch(`${base(token)}${path}`, {
      method: init.method ?? "GET",
      headers: {
        ...(access ? { "x-link-access": access } : {}),
        ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  } catch {
    throw new LinkError(0, "NETWORK", "The server cannot be reached. Try again later.");
  }
  let envelope: { data?: T; message?: string; errorCode?: string } = {};
  try {
    envelope = await res.json();
  } catch { /* not JSON */ }
  if (!res.ok) {
    const retry = Number(res.headers.get("retry-after"));
    throw new LinkError(
      res.status,
      envelope.errorCode ?? `HTTP_${res.status}`,
      envelope.message ?? `The server answered ${res.status}`,
      Number.isFinite(retry) && retry > 0 ? retry : null,
    );
  }
  return envelope.data as T;
}

export const linkApi = {
  info: (token: string) => call<LinkInfo>(token, ""),
  async unlock(token: string, password: string): Promise<void> {
    const data = await call<{ accessToken: string; expiresAt: string | number }>(
      token,
      "/access",
      { method: "POST", body: { password } },
    );
    sessionStorage.setItem(ACCESS_KEY(token), JSON.stringify(data));
  },
  items(token: string, folderSeq?: number, cursor?: string): Promise<FolderListing> {
    const q = new URLSearchParams();
    if (folderSeq) q.set("folderSeq", String(folderSeq));
    if (cursor) q.set("cursor", cursor);
    return call<FolderListing>(token, `/items${q.size ? `?${q}` : ""}`);
  },
  /** The folder (default: the link's) as one ZIP. */
  zipUrl(token: string, folderSeq?: number): string {
    const q = new URLSearchParams();
    if (folderSeq) q.set("folderSeq", String(folderSeq));
    const access = storedAccess(token);
    if (access) q.set("access", access);
    return `${base(token)}/zip${q.size ? `?${q}` : ""}`;
  },
  thumbnailUrl(token: string, resourceSeq: number): string {
    const access = storedAccess(token);
    return `${base(token)}/files/${resourceSeq}/thumbnail?size=256${
      access ? `&access=${encodeURIComponent(access)}` : ""
    }`;
  },
  downloadUrl(token: string, resourceSeq: number): string {
    const access = storedAccess(token);
    return `${base(token)}/files/${resourceSeq}/download${
      access ? `?access=${encodeURIComponent(access)}` : ""
    }`;
  },
};
