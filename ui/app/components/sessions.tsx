/** Where I am signed in: every live session, this one marked; revoke one or all others. */
import type { SessionView } from "../api.ts";
import { api } from "../store.ts";
import { formatDate } from "../../shared/format.ts";
import { useListPanel } from "../../shared/list_panel.ts";
import { type Column, DataTable } from "../../shared/table.tsx";

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

const SESSION_COLUMNS: Column<SessionView>[] = [
  {
    label: "Browser",
    cell: (s) => (
      <>
        {browserOf(s.userAgent)} {s.current && <span class="badge good">this browser</span>}
        {s.via === "oidc" && <span class="badge">single sign-on</span>}
      </>
    ),
  },
  { label: "Address", cell: (s) => s.address },
  { label: "Signed in", cell: (s) => formatDate(s.createdAt) },
  { label: "Last seen", cell: (s) => formatDate(s.lastSeenAt) },
];

export function SessionsPanel() {
  const { items: sessions, status, act } = useListPanel(() => api.sessions());
  const revoke = (s: SessionView) =>
    act(() => api.revokeSession(s.id), `Signed out ${browserOf(s.userAgent)}.`);
  const revokeOthers = () => act(() => api.revokeOtherSessions(), "Signed out everywhere else.");
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
        <DataTable
          label="Your sessions"
          items={list}
          rowKey={(s) => s.id}
          columns={SESSION_COLUMNS}
          actionsClass="actions-cell"
          actions={(s) =>
            !s.current && (
              <button
                type="button"
                class="danger-outline"
                aria-label={`Sign out ${browserOf(s.userAgent)} (${s.address})`}
                onClick={() => revoke(s)}
              >
                Sign out
              </button>
            )}
        />
      )}
      <p class="status" role="status">{status.value}</p>
    </section>
  );
}
