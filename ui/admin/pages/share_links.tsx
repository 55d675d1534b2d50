/** Active share links across the service; revoking one makes its URL stop resolving. */
import { formatDate, isPast } from "../../shared/format.ts";
import { api, type ShareType } from "../api.ts";
import { ConfirmButton } from "../components/confirm.tsx";
import { ListState, useLoaded } from "../components/data.tsx";

const TYPE_LABEL: Record<ShareType, string> = {
  SPECIFIC_USERS: "specific users",
  ORG_LINK: "organization",
  PUBLIC_LINK: "public",
};

export function ShareLinksPage() {
  const links = useLoaded(api.listShareLinks);
  const users = useLoaded(() => api.listUsers());
  const accountOf = (seq: number) =>
    users.data.value?.find((u) => u.userSeq === seq)?.accountId ?? `user ${seq}`;
  return (
    <>
      <h1>Share links</h1>
      <section class="panel" aria-labelledby="links-title">
        <div class="panel-head">
          <h2 id="links-title">Active links</h2>
          <button type="button" onClick={links.reload}>Refresh</button>
        </div>
        <ListState loaded={links} empty="No active share links.">
          {(items) => (
            <table>
              <thead>
                <tr>
                  <th scope="col">Resource</th>
                  <th scope="col">Owner</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Password</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {items.map((l) => (
                  <tr key={l.shareSeq}>
                    <td data-label="Resource">
                      <strong>{l.resourceName}</strong>
                      <a class="sub link-url" href={l.url} target="_blank" rel="noreferrer">
                        {l.url}
                      </a>
                    </td>
                    <td data-label="Owner">{accountOf(l.ownerSeq)}</td>
                    <td data-label="Kind">{TYPE_LABEL[l.shareType] ?? l.shareType}</td>
                    <td data-label="Expires">
                      {l.expireDate
                        ? `${formatDate(l.expireDate)}${isPast(l.expireDate) ? " (expired)" : ""}`
                        : "never"}
                    </td>
                    <td data-label="Password">{l.isPasswordEnabled ? "yes" : "no"}</td>
                    <td>
                      <ConfirmButton
                        label="Revoke"
                        accessibleLabel={`Revoke the link to ${l.resourceName}`}
                        question={`Revoke the link to ${l.resourceName}? It stops working at once.`}
                        confirmLabel="Revoke link"
                        onConfirm={async () => {
                          await api.revokeShareLink(l.shareSeq);
                          await links.reload();
                        }}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </ListState>
      </section>
    </>
  );
}
