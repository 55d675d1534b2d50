/**
 * The app's routes, history-based: the server answers each of these paths with the app shell
 * (api/public/static.ts APP_PATHS). Invitation and reset links carry their token in the
 * fragment (`/#/invitation/<token>`, `/#/reset/<token>`), so it never reaches a server log or a
 * Referer; they are routes too. The file browser lives at `/` with its place in the query
 * (`?folder=12&ss=3`, `?view=trash`, `?view=search&q=plan&type=pdf`): the server answers only
 * `/`, `/signin` and `/account` with the shell, so a reload or a shared address must stay on them.
 */
import { signal } from "@preact/signals";
import type { TypeFilter } from "./drive/api.ts";

export type DriveView =
  | "mine"
  | "shared"
  | "starred"
  | "recent"
  | "pinned"
  | "trash"
  | "search";
const VIEWS: readonly DriveView[] = [
  "mine",
  "shared",
  "starred",
  "recent",
  "pinned",
  "trash",
  "search",
];
/** The type filters a search offers (the toolbar's choices; "" is "any type"). */
export const TYPE_FILTERS: readonly Exclude<TypeFilter, "">[] = [
  "FOLDER",
  "document",
  "spreadsheet",
  "presentation",
  "pdf",
  "image",
  "note",
];
const FILTERS: readonly TypeFilter[] = ["", ...TYPE_FILTERS];

export interface DriveRoute {
  page: "drive";
  view: DriveView;
  /** The open folder (null: the drive's root, or a view without folders). */
  folder: number | null;
  /** The folder's owner when it is someone else's. */
  ss?: number;
  q: string;
  type: TypeFilter;
}

export type Route =
  | DriveRoute
  | { page: "signin"; error: string | null; returnTo: string | null }
  | { page: "account" }
  | { page: "invitation"; token: string; kind: "invitation" | "reset" }
  | { page: "not-found" };

/** Pages that need a session; the others are for signing in. */
export const NEEDS_SESSION: ReadonlySet<Route["page"]> = new Set(["drive", "account"]);

const positive = (v: string | null) => {
  const n = Number(v);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
};

function driveRoute(search: string): DriveRoute {
  const q = new URLSearchParams(search);
  const view = q.get("view") as DriveView;
  const type = q.get("type") as TypeFilter;
  return {
    page: "drive",
    view: VIEWS.includes(view) ? view : "mine",
    folder: positive(q.get("folder")) ?? null,
    ss: positive(q.get("ss")),
    q: q.get("q") ?? "",
    type: FILTERS.includes(type) ? type : "",
  };
}

/** The address of a place in the file browser. */
export function drivePath(to: Partial<Omit<DriveRoute, "page">>): string {
  const q = new URLSearchParams();
  if (to.view && to.view !== "mine") q.set("view", to.view);
  if (to.folder) q.set("folder", `${to.folder}`);
  if (to.folder && to.ss) q.set("ss", `${to.ss}`);
  if (to.view === "search") {
    q.set("q", to.q ?? "");
    if (to.type) q.set("type", to.type);
  }
  const s = q.toString();
  return s ? `/?${s}` : "/";
}

export function routeOf(loc: Pick<Location, "pathname" | "search" | "hash">): Route {
  const link = /^#\/(invitation|reset)\/([A-Za-z0-9_-]{1,200})$/.exec(loc.hash);
  if (link) return { page: "invitation", kind: link[1] as "invitation" | "reset", token: link[2] };
  const path = loc.pathname.replace(/\/+$/, "") || "/";
  if (path === "/") return driveRoute(loc.search);
  if (path === "/account") return { page: "account" };
  if (path === "/signin") {
    const q = new URLSearchParams(loc.search);
    return { page: "signin", error: q.get("error"), returnTo: q.get("returnTo") };
  }
  return { page: "not-found" };
}

export const route = signal<Route>(routeOf(location));

/** Opens `path` (a path of the app, with its query) without reloading. */
export function navigate(path: string, replace = false): void {
  const url = new URL(path, location.origin);
  if (`${location.pathname}${location.search}${location.hash}` !== path) {
    if (replace) history.replaceState(null, "", path);
    else history.pushState(null, "", path);
  }
  route.value = routeOf(url);
}

/** A click on an in-app link: handled here unless the user asked for a new tab or window. */
export function linkClick(e: MouseEvent, path: string): void {
  if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(path);
}

addEventListener("popstate", () => {
  route.value = routeOf(location);
});
addEventListener("hashchange", () => {
  route.value = routeOf(location);
});
