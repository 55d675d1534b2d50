/** Where I am signed in: every live session, this one marked; revoke one or all others. */
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import type { SessionView } from "../api.ts";
import { api } from "../store.ts";
import { formatDate, messageOf } from "../../shared/format.ts";

/** "Firefox on Linux" from a user agent, or the raw text when nothing is recognised. */
export function browserOf(agent: string): string {
  const browser = /Edg\//.test(agent)
    ? "Edge"
    : /Firefox\//.test(agent)
    ? "Firefox"
    : /Chrom(e|ium)\//.test(agent)
    ? "Chrome"
    : /Safari\//.test(agent)
    ? "Safari"
    : /curl\//.test(agent)
    ? "curl"
    : null;
  const os = /Windows/.test(agent)
    ? "Windows"
    : /Android/.test(agent)
    ? "Android"
    : /iPhone|iPad/.test(agent)
    ? "iOS"
    : /Mac OS X/.test(agent)
    ? "macOS"
    : /Linux/.test(agent)
    ? "Linux"
    : null;
  if (!browser) return agent.slice(0, 60) || "Unknown browser";
  return os ? `${browser} on ${os}` : browser;
}

export function SessionsPanel() {
  const sessions = useSignal<SessionView[] | null>(null);
  const status = useSignal<string | null>(null);
  const load = async () => {
    try {
      sessions.value = (await api.sessions()).items;
    } catch (err) {
      status.value = messageOf(err);
    }
  };
  useEffect(() => {
    load();
  }, []);
  const revoke = async (s: SessionView) => {
    try {
      await api.revokeSession(s.id);
      status.value = `Signed out ${browserOf(s.userAgent)}.`;
      await load();
    } catch (err) {
      status.value = messageOf(err);
    }
  };
  const revokeOthers = async () => {
    try {
      await api.revokeOtherSessions();
      status.value = "Signed out everywhere else.";
      await load();
    } catch (err) {
      status.value = messageOf(err);
    }
  };
  const list = sessions.value;
  return (
    <section class="panel" aria-labelledby="sessions-title">
      <div class="panel-head">
        <h2 id="sessions-title">Where you are signed in</h2>
        {list && list.length > 1 && (
          <button type="button" class="danger-outline" onClick={revokeOthers}>
            Sign out everywhere else
          </button>
        )}
      </div>
      {list === null ? <p role="status">Loading…</p> : (
        <table>
          <caption class="visually-hidden">Your sessions</caption>
          <thead>
            <tr>
              <th scope="col">Browser</th>
              <th scope="col">Address</th>
              <th scope="col">Signed in</th>
              <th scope="col">Last seen</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((s) => (
              <tr key={s.id}>
                <td>
                  {browserOf(s.userAgent)}{" "}
                  {s.current && <span class="badge good">this browser</span>}
                  {s.via === "oidc" && <span class="badge">single sign-on</span>}
                </td>
                <td>{s.address}</td>
                <td>{formatDate(s.createdAt)}</td>
                <td>{formatDate(s.lastSeenAt)}</td>
                <td class="actions-cell">
                  {!s.current && (
                    <button
                      type="button"
                      class="danger-outline"
                      aria-label={`Sign out ${browserOf(s.userAgent)} (${s.address})`}
                      onClick={() => revoke(s)}
                    >
                      Sign out
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p class="status" role="status">{status.value}</p>
    </section>
  );
}
