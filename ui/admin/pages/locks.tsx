/**
 * Document locks of every surface (editor leases, storage provider and WebDAV locks), each with
 * the surface that took it; an administrator can force-release one.
 */
import { formatDate } from "../../shared/format.ts";
import { api, type DocumentLock } from "../api.ts";
import { ConfirmButton } from "../components/confirm.tsx";
import { useLoaded } from "../components/data.tsx";
import { Panel } from "../components/panel.tsx";
import { ListTable } from "../components/table.tsx";
import { useUsers } from "../components/users.tsx";

function documentName(l: DocumentLock): string {
  return l.resourceName ?? `document ${l.resourceSeq}`;
}

const SURFACE: Record<DocumentLock["source"], string> = {
  office: "Web office editor",
  provider: "Storage provider",
  webdav: "WebDAV",
};

/** The surface, and for WebDAV its scope, depth and how many shared locks. */
function surfaceOf(l: DocumentLock) {
  const w = l.webdav;
  const detail = w
    ? `${w.scope}${w.count > 1 ? ` ×${w.count}` : ""}${
      w.depth === "infinity" ? ", with everything inside" : ""
    }`
    : null;
  return (
    <>
      {SURFACE[l.source]}
      {detail && <span class="sub">{detail}</span>}
    </>
  );
}

export function LocksPage() {
  const locks = useLoaded(api.listLocks);
  const users = useUsers();
  return (
    <>
      <h1>Locks</h1>
      <Panel id="locks-title" title="Locked documents" onRefresh={locks.reload}>
        <ListTable
          loaded={locks}
          empty="No document is locked."
          columns={[
            {
              label: "Document",
              cell: (l) => (
                <>
                  <strong>{documentName(l)}</strong>
                  <span class="sub">seq {l.resourceSeq}</span>
                </>
              ),
            },
            {
              label: "Drive of",
              cell: (l) => l.ownerSeq === null ? "—" : users.accountOf(l.ownerSeq),
            },
            { label: "Surface", cell: surfaceOf },
            { label: "Held by", cell: (l) => l.holder },
            { label: "Locked", cell: (l) => formatDate(l.lockedAt) },
            { label: "Expires", cell: (l) => formatDate(l.expiresAt, "no expiry") },
          ]}
          rowKey={(l) => l.resourceSeq}
          actions={(l) => {
            const name = documentName(l);
            return (
              <ConfirmButton
                label="Force release"
                accessibleLabel={`Force-release the lock on ${name}`}
                question={`Release the lock on ${name}? Unsaved edits of the holder may conflict.`}
                confirmLabel="Release lock"
                onConfirm={() => api.releaseLock(l.resourceSeq).then(locks.reload)}
              />
            );
          }}
        />
      </Panel>
    </>
  );
}
