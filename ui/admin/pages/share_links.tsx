/** Active share links across the service; revoking one makes its URL stop resolving. */
import { formatDate, isPast } from "../../shared/format.ts";
import { api, type ShareType } from "../api.ts";
import { ConfirmButton } from "../components/confirm.tsx";
import { useLoaded } from "../components/data.tsx";
import { Panel } from "../components/panel.tsx";
import { ListTable } from "../components/table.tsx";
import { useUsers } from "../components/users.tsx";

const TYPE_LABEL: Record<ShareType, string> = {
  SPECIFIC_USERS: "specific users",
  ORG_LINK: "organization",
  PUBLIC_LINK: "public",
};

function expiry(expireDate: string | number | null): string {
  if (!expireDate) return "never";
  return `${formatDate(expireDate)}${isPast(expireDate) ? " (expired)" : ""}`;
}

export function ShareLinksPage() {
  const links = useLoaded(api.listShareLinks);
  const users = useUsers();
  return (
    <>
      <h1>Share links</h1>
      <Panel
        id="links-title"
        title="Active links"
        tools={<button type="button" onClick={links.reload}>Refresh</button>}
      >
        <ListTable
          loaded={links}
          empty="No active share links."
          columns={[
            {
              label: "Resource",
              cell: (l) => (
                <>
                  <strong>{l.resourceName}</strong>
                  <a class="sub link-url" href={l.url} target="_blank" rel="noreferrer">
                    {l.url}
                  </a>
                </>
              ),
            },
            { label: "Owner", cell: (l) => users.accountOf(l.ownerSeq) },
            { label: "Kind", cell: (l) => TYPE_LABEL[l.shareType] ?? l.shareType },
            { label: "Expires", cell: (l) => expiry(l.expireDate) },
            { label: "Password", cell: (l) => l.isPasswordEnabled ? "yes" : "no" },
          ]}
          rowKey={(l) => l.shareSeq}
          actions={(l) => (
            <ConfirmButton
              label="Revoke"
              accessibleLabel={`Revoke the link to ${l.resourceName}`}
              question={`Revoke the link to ${l.resourceName}? It stops working at once.`}
              confirmLabel="Revoke link"
              onConfirm={() => api.revokeShareLink(l.shareSeq).then(links.reload)}
            />
          )}
        />
      </Panel>
    </>
  );
}
