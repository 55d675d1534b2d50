/**
 * Client of the drive API (/api/external/v1) through the session: the cookie goes by itself, every
 * change carries the session's CSRF token (the browser adds the Origin). Answers are the API's
 * envelope `{result, data}`; a failure becomes an ApiError with the catalog code (docs/errors.md).
 * Only what the file browser calls is here; shapes are the server's, taken with `import type`.
 */
import { ApiError, type CsrfSource, sessionFetch } from "../api.ts";

export const DRIVE_BASE = "/api/external/v1";

export type ResourceType = "FILE" | "FOLDER";

/** A row of any view: a folder listing, the trash, shared with me, search or pins. */
export interface Row {
  rs: number;
  name: string;
  type: ResourceType;
  size: number;
  updatedAt: string | null;
  /** The owner's user seq when the row is someone else's (sent as `ss`). */
  ss?: number;
  /** What the view adds: the owner's name, the search hit's folder. */
  note?: string;
}

export interface ResourceItem {
  resourceSeq: number;
  name: string;
  type: ResourceType;
  size: number;
  updatedAt: string;
  ownerSeq: number;
}

export interface Page {
  rows: Row[];
  /** The opaque position of the next page, null at the end. */
  next: string | null;
}

export type SortBy = "name" | "size" | "update";
export type SortOrder = "asc" | "desc";

export interface Crumb {
  resourceSeq: number;
  name: string;
}

export interface Details extends ResourceItem {
  path: Crumb[];
  permissions: Record<string, boolean>;
}

/** `GET /search`'s type filter (`rt` for folders, `ft` for files by extension). */
export type TypeFilter =
  | ""
  | "FOLDER"
  | "document"
  | "spreadsheet"
  | "presentation"
  | "pdf"
  | "image"
  | "note";

const rowOf = (r: ResourceItem, extra: Partial<Row> = {}): Row => ({
  rs: r.resourceSeq,
  name: r.name,
  type: r.type,
  size: r.size,
  updatedAt: r.updatedAt,
  ...extra,
});

function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) q.set(k, `${v}`);
  const s = q.toString();
  return s ? `?${s}` : "";
}

export class DriveApi {
  constructor(private readonly session: CsrfSource) {}

  /** Public so feature modules (files_api.ts) add their calls without growing this class. */
  // deno-lint-ignore no-explicit-any
  async call<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<T> {
    const res = await sessionFetch(this.session, method, `${DRIVE_BASE}${path}`, body, headers);
    const env = await res.json().catch(() => null);
    if (!res.ok || env?.result === false) {
      if (res.status === 401) this.session.lost();
      throw new ApiError(
        res.status,
        env?.errorCode ?? `HTTP_${res.status}`,
        env?.message ?? `The server answered ${res.status}`,
      );
    }
    return env?.data as T;
  }

  async list(
    folder: number | null,
    ss: number | undefined,
    sort: [SortBy, SortOrder],
    cursor: string | null,
    ps: number,
  ): Promise<Page> {
    const d = await this.call(
      "GET",
      `/resources${
        query({ pfs: folder, ss: folder ? ss : undefined, ps, cursor, sb: sort[0], so: sort[1] })
      }`,
    );
    return { rows: d.items.map((r: ResourceItem) => rowOf(r, { ss })), next: d.nextCursor };
  }

  details = (rs: number, ss?: number) =>
    this.call<Details>("GET", `/resources/${rs}${query({ ss })}`);

  async trash(cursor: string | null, ps: number): Promise<Page> {
    const d = await this.call("GET", `/trash${query({ ps, cursor })}`);
    return {
      rows: d.items.map((r: ResourceItem & { trashedAt: string }) =>
        rowOf(r, { updatedAt: r.trashedAt })
      ),
      next: d.nextCursor,
    };
  }

  async shared(sort: [SortBy, SortOrder], cursor: string | null, ps: number): Promise<Page> {
    // The shared list's cursor is three fields; the page keeps them as one JSON string.
    const c = cursor ? JSON.parse(cursor) : {};
    const d = await this.call(
      "GET",
      `/shared${query({ ps, sb: sort[0], so: sort[1], ...c })}`,
    );
    return {
      rows: d.items.map((e: SharedEntry) => ({
        rs: e.resourceSeq,
        name: e.resourceName,
        type: e.resourceType,
        size: e.size,
        updatedAt: e.updatedAt,
        ss: e.ownerSeq,
        note: e.ownerName,
      })),
      next: d.cursor ? JSON.stringify(d.cursor) : null,
    };
  }

  async search(q: string, filter: TypeFilter, cursor: string | null, ps: number): Promise<Page> {
    const rt = filter === "FOLDER" ? "FOLDER" : filter ? "FILE" : undefined;
    const ft = filter && filter !== "FOLDER" ? filter : undefined;
    const d = await this.call("GET", `/search${query({ q, rt, ft, ps, cursor })}`);
    return {
      rows: d.items.map((h: SearchHit) =>
        rowOf(h.resource, {
          ss: h.owner?.userSeq,
          note: h.owner ? h.owner.name : h.path ?? "",
        })
      ),
      next: d.nextCursor,
    };
  }

  async pinned(): Promise<Page> {
    const d = await this.call("GET", "/pinned-folders");
    return {
      rows: d.items.map((p: PinnedFolder) => ({
        rs: p.resourceSeq,
        name: p.resourceName,
        type: "FOLDER" as const,
        size: 0,
        updatedAt: p.pinnedAt,
        ss: p.sharedByUserSeq,
      })),
      next: null,
    };
  }

  newFolder = (fn: string, pfs: number | null, ss?: number) =>
    this.call<{ resourceSeq: number }>("POST", "/folders", {
      fn,
      ...(pfs ? { pfs } : {}),
      ...(pfs && ss ? { ss } : {}),
    });

  rename = (row: Row, rn: string) =>
    this.call(
      "PATCH",
      `/${row.type === "FOLDER" ? "folders" : "files"}/${row.rs}/rename`,
      { rn, ...(row.ss ? { ss: row.ss } : {}) },
    );

  moveToTrash = (row: Row) =>
    this.call(
      "PATCH",
      `/${row.type === "FOLDER" ? "folders" : "files"}/${row.rs}/delete${query({ ss: row.ss })}`,
    );

  restore = (rs: number) => this.call("POST", `/trash/${rs}/restore`);
  purge = (rs: number) => this.call("DELETE", `/trash/${rs}`);

  /** The address that downloads a file, or a folder as ZIP (a short-lived token for folders). */
  async downloadUrl(row: Row): Promise<string> {
    if (row.type === "FILE") {
      return `${DRIVE_BASE}/files/${row.rs}/download${query({ ss: row.ss })}`;
    }
    const d = await this.call<{ linkUrl: string }>(
      "GET",
      `/folders/${row.rs}/download-token${query({ ss: row.ss })}`,
    );
    return d.linkUrl;
  }

  /** The session's CSRF token, for the requests tus-js-client makes (ui/app/upload/). */
  csrf = () => this.session.csrf();
}

interface SharedEntry {
  resourceSeq: number;
  resourceName: string;
  resourceType: ResourceType;
  size: number;
  updatedAt: string;
  ownerSeq: number;
  ownerName: string;
}

interface SearchHit {
  resource: ResourceItem;
  path: string | null;
  owner: { userSeq: number; name: string } | null;
}

interface PinnedFolder {
  resourceSeq: number;
  resourceName: string;
  sharedByUserSeq: number;
  pinnedAt: string;
}

/**
 * A JSON call of the drive API through `api`'s session, for features that keep their client in
 * their own files (ui/app/share/): same envelope, same errors.
 */
// deno-lint-ignore no-explicit-any
export function driveCall<T = any>(
  api: DriveApi,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  return api["call"]<T>(method, path, body);
}
