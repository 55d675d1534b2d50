/**
 * The signed-in start page. The file browser takes this place in the next issue; until then it
 * leads to what a signed-in person can use: their account, the API reference for their app
 * passwords, and the console for administrators.
 */
import { me } from "../store.ts";
import { linkClick } from "../router.ts";

export function HomePage() {
  const user = me.value!;
  return (
    <>
      <h1>Hello, {user.name}</h1>
      <div class="cards">
        <section class="panel">
          <h2>My account</h2>
          <p>Change your password, see where you are signed in, create app passwords.</p>
          <a class="button primary" href="/account" onClick={(e) => linkClick(e, "/account")}>
            Open my account
          </a>
        </section>
        <section class="panel">
          <h2>Your files from programs</h2>
          <p>
            Sync tools and scripts reach your drive through the drive API with an app password.
          </p>
          <a class="button" href="/api/external/v1/docs">API reference</a>
        </section>
        {user.roles.includes("admin") && (
          <section class="panel">
            <h2>Administration</h2>
            <p>Tenants, users, invitations, keys and the activity log.</p>
            <a class="button" href="/admin">Admin console</a>
          </section>
        )}
      </div>
    </>
  );
}
