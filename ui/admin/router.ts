/** History-based routing under /admin/<page>; the server answers every such path with the shell. */
import { signal } from "@preact/signals";

export const PAGES = [
  { id: "tenants", title: "Tenants" },
  { id: "users", title: "Users" },
  { id: "keys", title: "API keys" },
  { id: "adapters", title: "Adapters" },
  { id: "share-links", title: "Share links" },
  { id: "locks", title: "Locks" },
  { id: "storage", title: "Storage" },
  { id: "activity", title: "Activity" },
  { id: "webhooks", title: "Webhooks" },
  { id: "sso", title: "Single sign-on" },
] as const;

export type PageId = typeof PAGES[number]["id"];

function pageFromLocation(): PageId | null {
  const m = /^\/admin\/?([a-z-]*)\/?$/.exec(location.pathname);
  const id = m?.[1] || "tenants";
  return PAGES.some((p) => p.id === id) ? id as PageId : null;
}

/** The current page, or null for an unknown path. */
export const currentPage = signal<PageId | null>(pageFromLocation());

export function navigate(page: PageId): void {
  const path = `/admin/${page}`;
  if (location.pathname !== path) history.pushState(null, "", path);
  currentPage.value = page;
}

addEventListener("popstate", () => {
  currentPage.value = pageFromLocation();
});
