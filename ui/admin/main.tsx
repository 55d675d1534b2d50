/** The admin console: sign-in, then one page per area of the admin API. */
import { render } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { adminSession, adminToken, restoreSession, signOut } from "./session.ts";
import { currentPage, navigate, type PageId, PAGES } from "./router.ts";
import { SignInPage } from "./pages/signin.tsx";
import { TenantsPage } from "./pages/tenants.tsx";
import { UsersPage } from "./pages/users.tsx";
import { KeysPage } from "./pages/keys.tsx";
import { AdaptersPage } from "./pages/adapters.tsx";
import { ShareLinksPage } from "./pages/share_links.tsx";
import { LocksPage } from "./pages/locks.tsx";
import { ActivityPage } from "./pages/activity.tsx";
import { StoragePage } from "./pages/storage.tsx";
import { WebhooksPage } from "./pages/webhooks.tsx";
import { SsoPage } from "./pages/sso.tsx";

const PAGE_COMPONENT: Record<PageId, () => preact.JSX.Element> = {
  "tenants": TenantsPage,
  "users": UsersPage,
  "keys": KeysPage,
  "adapters": AdaptersPage,
  "share-links": ShareLinksPage,
  "locks": LocksPage,
  "storage": StoragePage,
  "activity": ActivityPage,
  "webhooks": WebhooksPage,
  "sso": SsoPage,
};

function Nav() {
  return (
    <nav aria-label="Console sections">
      <ul>
        {PAGES.map((p) => (
          <li key={p.id}>
            <a
              href={`/admin/${p.id}`}
              aria-current={currentPage.value === p.id ? "page" : undefined}
              onClick={(e) => {
                if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
                e.preventDefault();
                navigate(p.id);
              }}
            >
              {p.title}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function Console() {
  const page = currentPage.value;
  const main = useRef<HTMLElement>(null);
  const title = PAGES.find((p) => p.id === page)?.title ?? "Not found";
  useEffect(() => {
    document.title = `${title} · Drive admin`;
    // Move focus to the new page so keyboard and screen-reader users land on its content.
    main.current?.focus();
  }, [page]);
  const Page = page ? PAGE_COMPONENT[page] : null;
  return (
    <>
      <a class="skip-link" href="#main">Skip to content</a>
      <header class="topbar">
        <span class="brand">Drive admin</span>
        <Nav />
        {adminSession.value && (
          <span class="signed-in-as">Signed in as {adminSession.value.accountId}</span>
        )}
        <button type="button" class="signout" onClick={() => signOut()}>Sign out</button>
      </header>
      <main id="main" tabIndex={-1} ref={main}>
        {Page ? <Page key={page} /> : (
          <>
            <h1>Page not found</h1>
            <p>
              <a href="/admin/tenants">Go to tenants</a>
            </p>
          </>
        )}
      </main>
    </>
  );
}

function App() {
  return adminToken.value || adminSession.value ? <Console /> : <SignInPage />;
}

render(<App />, document.getElementById("app")!);
// A browser signed in as an administrator by name switches to the console once /me answers
// (the sign-in page is interactive meanwhile).
void restoreSession();
