/** Document locks (editor leases and provider locks); an administrator can force-release one. */
import { formatDate } from "../../shared/format.ts";
import { api } from "../api.ts";
import { ConfirmButton } from "../components/confirm.tsx";
import { ListState, useLoaded } from "../components/data.tsx";

export function LocksPage() {
  const locks = useLoaded(api.listLocks);
  const users = useLoaded(() => api.listUsers());
  const accountOf = (seq: number | null) =>
    seq === null
      ? "—"
      : users.data.value?.find((u) => u.userSeq === seq)?.accountId ?? `user ${seq}`;
  return (
    <>
      <h1>Locks</h1>
      <section class="panel" aria-labelledby="locks-title">
        <div class="panel-head">
          <h2 id="locks-title">Locked documents</h2>
          <button type="button" onClick={locks.reload}>Refresh</button>
        </div>
        <ListState loaded={locks} empty="No document is locked.">
          {(items) => (
            <table>
              <thead>
                <tr>
                  <th scope="col">Document</th>
                  <th scope="col">Drive of</th>
                  <th scope="col">Held by</th>
                  <th scope="col">Locked</th>
                  <th scope="col">Expires</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {items.map((l) => {
                  const name = l.resourceName ?? `document ${l.resourceSeq}`;
                  return (
                    <tr key={l.resourceSeq}>
                      <td data-label="Document">
                        <strong>{name}</strong>
                        <span class="sub">seq {l.resourceSeq}</span>
                      </td>
                      <td data-label="Drive of">{accountOf(l.ownerSeq)}</td>
                      <td data-label="Held by">
                        {l.holder}
                        <span class="sub">{l.source} lock</span>
                      </td>
                      <td data-label="Locked">{formatDate(l.lockedAt)}</td>
                      <td data-label="Expires">{formatDate(l.expiresAt, "no expiry")}</td>
                      <td>
                        <ConfirmButton
                          label="Force release"
                          accessibleLabel={`Force-release the lock on ${name}`}
                          question={`Release the lock on ${name}? Unsaved edits of the holder may conflict.`}
                          confirmLabel="Release lock"
                          onConfirm={async () => {
                            await api.releaseLock(l.resourceSeq);
                            await locks.reload();
                          }}
                        />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
        </ListState>
      </section>
    </>
  );
}
