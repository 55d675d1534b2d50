/**
 * The end-user app at `/`: the file browser (drive/page.tsx), sign-in, invitation and reset
 * links, and "My account". Routes in router.ts, state and the language in store.ts, the API
 * clients in api.ts and drive/api.ts.
 */
import { render } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { linkClick, navigate, NEEDS_SESSION, route } from "./router.ts";
import { NavLinks } from "./nav_links.tsx";
import { loadSession, locale, me, setLocale, signOut, t } from "./store.ts";
import { type Locale, LOCALES } from "./messages.ts";
import { SignInPage } from "./pages/signin.tsx";
import { InvitationPage } from "./pages/invitation.tsx";
import { AccountPage } from "./pages/account.tsx";
import { DrivePage } from "./drive/page.tsx";

const TITLES: Record<string, string> = {
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
        <NavLinks
          label="App sections"
          links={[
            { href: "/", label: t("myDrive"), current: page === "drive" },
            { href: "/account", label: t("myAccount"), current: page === "account" },
          ]}
        />
      )}
      <label class="lang">
        <span class="visually-hidden">{t("language")}</span>
        <select
          value={locale.value}
          onChange={(e) => setLocale(e.currentTarget.value as Locale)}
        >
          {Object.entries(LOCALES).map(([code, name]) => (
            <option key={code} value={code} lang={code}>{name}</option>
          ))}
        </select>
      </label>
      {user && (
        <span class="whoami">
          <span class="name">{user.name}</span>
          <button
            type="button"
            class="signout"
            onClick={async () => {
              await signOut();
              navigate("/signin", true);
            }}
          >
            {t("signOut")}
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
  if (r.page === "drive") return <DrivePage r={r} />;
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
    // The file browser names the tab after the open folder itself.
    if (page !== "drive") document.title = `${TITLES[page] ?? "Drive"} · Drive`;
    main.current?.focus();
  }, [page]);
  useEffect(() => {
    document.documentElement.lang = locale.value;
  }, [locale.value]);
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
