/**
 * What the preview, the details panel and the live feed read from the drive API through the
 * session: reads only (GET needs no CSRF token), so a plain same-origin fetch with an abort
 * signal does, which the long-poll needs and DriveApi's calls do not take.
 */
import { ApiError } from "../api.ts";
import { DRIVE_BASE, type Row } from "../drive/api.ts";

function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) q.set(k, `${v}`);
  const s = q.toString();
  return s ? `?${s}` : "";
}

// deno-lint-ignore no-explicit-any
export async function apiGet<T = any>(path: string, signal?: AbortSignal): Promise<T> {
  const res = await fetch(`${DRIVE_BASE}${path}`, {
    headers: { accept: "application/json" },
    credentials: "same-origin",
    signal,
  });
  const env = await res.json().catch(() => null);
  if (!res.ok || env?.result === false) {
    throw new ApiError(
      res.status,
      env?.errorCode ?? `HTTP_${res.status}`,
      env?.message ?? `The server answered ${res.status}`,
    );
  }
  return env?.data as T;
}

/** The rendered preview of a file (GET /files/{rs}/view): inline, range-capable. */
export const viewUrl = (row: Row) => `${DRIVE_BASE}/files/${row.rs}/view${query({ ss: row.ss })}`;

export const downloadUrl = (row: Row) =>
  `${DRIVE_BASE}/files/${row.rs}/download${query({ ss: row.ss })}`;

export interface Metadata {
  resourceSeq: number;
  name: string;
  type: "FILE" | "FOLDER";
  size: number;
  contentType: string | null;
  createdAt: string;
  updatedAt: string;
  ownerSeq: number;
  ownerName: string | null;
  isOwner: boolean;
  version: number;
  path: { resourceSeq: number; name: string }[];
}

export interface Version {
  version: number;
  size: number;
  createdAt: string;
  current: boolean;
}

export interface Sharing {
  type: string;
  linkUrl: string | null;
  expireDate: string | null;
  recipients: { name: string; email: string }[];
}

export interface DetailsData {
  meta: Metadata;
  versions: Version[] | null;
  /** null: not shared, or not the caller's to read. */
  sharing: Sharing | null;
}

/** Everything the details panel shows, from the resource, versions and share routes. */
export async function loadDetails(row: Row, signal?: AbortSignal): Promise<DetailsData> {
  const ss = query({ ss: row.ss });
  const [meta, versions, types] = await Promise.all([
    apiGet<Metadata>(`/resources/${row.rs}${ss}`, signal),
    row.type === "FILE"
      ? apiGet<{ items: Version[] }>(`/files/${row.rs}/versions${ss}`, signal)
        .then((d) => d.items, () => null)
      : Promise.resolve(null),
    apiGet<{ currentShareSeq: number | null }>(`/shares/${row.rs}/share-types${ss}`, signal)
      .catch(() => null),
  ]);
  let sharing: Sharing | null = null;
  const shareSeq = types?.currentShareSeq;
  if (shareSeq) {
    const [share, users] = await Promise.all([
      apiGet<{ shareType: string; linkUrl: string | null; expireDate: string | null }>(
        `/shares/${shareSeq}${ss}`,
        signal,
      ),
      apiGet<{ items: { name: string; email: string; status: string }[] }>(
        `/shares/${shareSeq}/users${ss}`,
        signal,
      ).then((d) => d.items.filter((u) => u.status === "ACTIVE"), () => []),
    ]).catch(() => [null, []] as const);
    if (share) {
      sharing = {
        type: share.shareType,
        linkUrl: share.linkUrl,
        expireDate: share.expireDate,
        recipients: users.map((u) => ({ name: u.name, email: u.email })),
      };
    }
  }
  return { meta, versions, sharing };
}
