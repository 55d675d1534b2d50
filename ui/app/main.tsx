/**
 * The end-user app at `/`: sign-in, invitation and reset links, the start page and "My account".
 * Routes in router.ts, state in store.ts, the API client in api.ts; the file browser joins them
 * in the next issue as more routes and pages.
 */
import { render } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { linkClick, navigate, NEEDS_SESSION, route } from "./router.ts";
import { loadSession, me, signOut } from "./store.ts";
import { SignInPage } from "./pages/signin.tsx";
import { InvitationPage } from "./pages/invitation.tsx";
import { AccountPage } from "./pages/account.tsx";
import { HomePage } from "./pages/home.tsx";

const TITLES: Record<string, string> = {
  home: "Home",
  signin: "Sign in",
  account: "My account",
  invitation: "Set your password",
  "not-found": "Not found",
};

function Header() {
  const user = me.value;
  const page = route.value.page;
  return (
    <header class="topbar">
      <a class="brand" href="/" onClick={(e) => linkClick(e, "/")}>Drive</a>
      {user && (
        <nav aria-label="App sections">
          <ul>
            <li>
              <a
                href="/"
                aria-current={page === "home" ? "page" : undefined}
                onClick={(e) => linkClick(e, "/")}
              >
                Home
              </a>
            </li>
            <li>
              <a
                href="/account"
                aria-current={page === "account" ? "page" : undefined}
                onClick={(e) => linkClick(e, "/account")}
              >
                My account
              </a>
            </li>
          </ul>
        </nav>
      )}
      {user && (
        <span class="whoami">
          {user.name}
          <button
            type="button"
            class="signout"
            onClick={async () => {
              await signOut();
              navigate("/signin", true);
            }}
          >
            Sign out
          </button>
        </span>
      )}
    </header>
  );
}

function Footer() {
  return (
    <footer class="app-footer">
      <a href="/api/external/v1/docs">API reference</a>
      <a href="/admin">Admin console</a>
      <a href="/start">About this server</a>
    </footer>
  );
}

function Page() {
  const r = route.value;
  if (r.page === "invitation") {
    return <InvitationPage key={r.token} token={r.token} kind={r.kind} />;
  }
  if (me.value === undefined) return <p role="status">Loading…</p>;
  if (r.page === "signin") return <SignInPage error={r.error} returnTo={r.returnTo} />;
  if (NEEDS_SESSION.has(r.page) && !me.value) {
    const here = `${location.pathname}${location.search}`;
    return <SignInPage error={null} returnTo={here} />;
  }
  if (r.page === "home") return <HomePage />;
  if (r.page === "account") return <AccountPage />;
  return (
    <>
      <h1>Page not found</h1>
      <p>
        <a href="/" onClick={(e) => linkClick(e, "/")}>Go to the start page</a>
      </p>
    </>
  );
}

function App() {
  const main = useRef<HTMLElement>(null);
  const page = route.value.page;
  useEffect(() => {
    document.title = `${TITLES[page] ?? "Drive"} · Drive`;
    main.current?.focus();
  }, [page]);
  return (
    <>
      <a class="skip-link" href="#main">Skip to content</a>
      <Header />
      <main id="main" tabIndex={-1} ref={main}>
        <Page />
      </main>
      <Footer />
    </>
  );
}

loadSession();
render(<App />, document.getElementById("app")!);
