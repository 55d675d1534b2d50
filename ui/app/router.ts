/**
 * The app's routes, history-based: the server answers each of these paths with the app shell
 * (api/public/static.ts APP_PATHS). Invitation and reset links carry their token in the
 * fragment (`/#/invitation/<token>`, `/#/reset/<token>`), so it never reaches a server log or a
 * Referer; they are routes too. The file browser's routes (/files/...) join ROUTES next.
 */
import { signal } from "@preact/signals";

export type Route =
  | { page: "home" }
  | { page: "signin"; error: string | null; returnTo: string | null }
  | { page: "account" }
  | { page: "invitation"; token: string; kind: "invitation" | "reset" }
  | { page: "not-found" };

/** Pages that need a session; the others are for signing in. */
export const NEEDS_SESSION: ReadonlySet<Route["page"]> = new Set(["home", "account"]);

export function routeOf(loc: Pick<Location, "pathname" | "search" | "hash">): Route {
  const link = /^#\/(invitation|reset)\/([A-Za-z0-9_-]{1,200})$/.exec(loc.hash);
  if (link) return { page: "invitation", kind: link[1] as "invitation" | "reset", token: link[2] };
  const path = loc.pathname.replace(/\/+$/, "") || "/";
  if (path === "/") return { page: "home" };
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
