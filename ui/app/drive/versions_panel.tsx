/**
 * The versions of one file in a modal dialog: each with its size, date and who stored it, to
 * download, restore (its content becomes a new current version, as the API does it) or delete.
 * The list is read again after every change, so what shows is what the server keeps.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { Row } from "./api.ts";
import {
  deleteVersion,
  errorText,
  listVersions,
  restoreVersion,
  type Version,
  versionUrl,
} from "./files_api.ts";
import { formatDate, formatSize } from "./format.ts";
import { locale, me, t } from "../store.ts";

export function VersionsPanel(p: { row: Row; onClose: () => void; onChanged: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [versions, setVersions] = useState<Version[] | null>(null);
  const [status, setStatus] = useState("");
  const [error, setError] = useState("");

  const load = () =>
    listVersions(p.row).then(
      (v) => setVersions([...v].reverse()),
      (err) => setError(errorText(err)),
    );

  useEffect(() => {
    dialog.current!.showModal();
    load();
  }, []);

  const change = async (work: () => Promise<unknown>, done: string) => {
    setError("");
    setStatus("");
    try {
      await work();
      setStatus(done);
      p.onChanged();
      await load();
    } catch (err) {
      setError(errorText(err));
    }
  };

  const who = (v: Version) =>
    v.createdBy === me.value?.userSeq ? t("you") : v.createdByName ?? t("userN", v.createdBy);
  const loc = locale.value;
  return (
    <dialog
      ref={dialog}
      class="sheet versions"
      aria-labelledby="versions-title"
      onClose={p.onClose}
    >
      <h2 id="versions-title">{t("versionsOf", p.row.name)}</h2>
      {versions === null ? <p>{t("loading")}</p> : (
        <table>
          <thead>
            <tr>
              <th scope="col">{t("version")}</th>
              <th scope="col">{t("size")}</th>
              <th scope="col">{t("modified")}</th>
              <th scope="col">{t("by")}</th>
              <th scope="col">
                <span class="visually-hidden">{t("actions")}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {versions.map((v) => (
              <tr key={v.version} class={v.current ? "current" : undefined}>
                <th scope="row">
                  {v.version}
                  {v.current ? " " : null}
                  {v.current ? <span class="badge">{t("currentVersion")}</span> : null}
                </th>
                <td>{formatSize(v.size, loc)}</td>
                <td>{formatDate(v.createdAt, loc)}</td>
                <td>{who(v)}</td>
                <td class="version-actions">
                  <a
                    class="button"
                    href={versionUrl(p.row, v.version)}
                    download=""
                    aria-label={t("downloadVersion", v.version)}
                  >
                    {t("download")}
                  </a>
                  {v.current ? null : (
                    <>
                      <button
                        type="button"
                        class="button"
                        aria-label={t("restoreVersion", v.version)}
                        onClick={() =>
                          change(
                            () => restoreVersion(p.row, v.version),
                            t("versionRestored", v.version),
                          )}
                      >
                        {t("restore")}
                      </button>
                      <button
                        type="button"
                        class="button danger"
                        aria-label={t("deleteVersion", v.version)}
                        onClick={() =>
                          confirm(t("confirmDeleteVersion", v.version)) &&
                          change(
                            () => deleteVersion(p.row, v.version),
                            t("versionDeleted", v.version),
                          )}
                      >
                        {t("delete")}
                      </button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p role="status" class="drive-status">{status}</p>
      {error ? <p class="picker-error" role="alert">{t("error", error)}</p> : null}
      <form method="dialog">
        <button type="submit" class="button primary">{t("close")}</button>
      </form>
    </dialog>
  );
}
