/**
 * Active share links across the service, paged and searched by the server; revoking one makes
 * its URL stop resolving.
 */
import { formatDate, isPast } from "../../shared/format.ts";
import { api, type ShareType } from "../api.ts";
import { ConfirmButton } from "../components/confirm.tsx";
import { Panel } from "../components/panel.tsx";
import { PagedTable, usePagedList } from "../components/paged_table.tsx";

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
  // Expired links no longer open, so "Active links" asks the server for the others only.
  const links = usePagedList((page) => api.listShareLinksPage({ ...page, active: true }));
  return (
    <>
      <h1>Share links</h1>
      <Panel id="links-title" title="Active links" onRefresh={links.reload}>
        <PagedTable
          list={links}
          name="links"
          searchHint="Start of the file or folder name (or a word of it), or of its owner."
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
            { label: "Owner", cell: (l) => l.ownerAccountId ?? `user ${l.ownerSeq}` },
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
