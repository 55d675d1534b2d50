/**
 * The details panel: size, dates, owner, where it is, who it is shared with and its links, and
 * its versions, read from GET /resources/{rs}, the versions route and the share routes.
 */
import { useEffect, useState } from "preact/hooks";
import type { Row } from "../drive/api.ts";
import { formatDate, formatSize } from "../drive/format.ts";
import { locale, t } from "../store.ts";
import { type DetailsData, loadDetails } from "./api.ts";

function Item(props: { label: string; children: preact.ComponentChildren }) {
  return (
    <div>
      <dt>{props.label}</dt>
      <dd>{props.children}</dd>
    </div>
  );
}

export function DetailsPanel(props: { row: Row }) {
  const { row } = props;
  const [data, setData] = useState<DetailsData | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const abort = new AbortController();
    setData(null);
    setError(null);
    loadDetails(row, abort.signal).then(
      (d) => !abort.signal.aborted && setData(d),
      (err) => !abort.signal.aborted && setError((err as Error).message),
    );
    return () => abort.abort();
  }, [row.rs, row.ss]);

  const loc = locale.value;
  const body = () => {
    if (error) return <p>{t("error", error)}</p>;
    if (!data) return <p>{t("loading")}</p>;
    const { meta, versions, sharing } = data;
    const latest = versions?.find((v) => v.current) ?? versions?.at(-1);
    return (
      <dl class="details-list">
        <Item label={t("dSize")}>
          {meta.type === "FOLDER" ? t("folder") : formatSize(meta.size, loc)}
        </Item>
        <Item label={t("dOwner")}>
          {meta.isOwner ? t("dYou") : meta.ownerName ?? `#${meta.ownerSeq}`}
        </Item>
        <Item label={t("dCreated")}>{formatDate(meta.createdAt, loc)}</Item>
        <Item label={t("dModified")}>{formatDate(meta.updatedAt, loc)}</Item>
        <Item label={t("dPath")}>
          {["", ...meta.path.map((c) => c.name)].join("/") + "/"}
        </Item>
        <Item label={t("dSharing")}>
          {!sharing ? t("dNotShared") : (
            <>
              <span>{sharing.type}</span>
              {sharing.recipients.length > 0 && (
                <ul class="details-people">
                  {sharing.recipients.map((u) => <li key={u.email}>{u.name} ({u.email})</li>)}
                </ul>
              )}
              {sharing.linkUrl && (
                <a class="details-link" href={sharing.linkUrl}>{sharing.linkUrl}</a>
              )}
              {sharing.expireDate && (
                <span>{t("dExpires", formatDate(sharing.expireDate, loc))}</span>
              )}
            </>
          )}
        </Item>
        {versions && (
          <Item label={t("dVersions")}>
            {latest
              ? t(
                "dVersionsValue",
                versions.length,
                latest.version,
                formatDate(latest.createdAt, loc),
              )
              : versions.length}
          </Item>
        )}
      </dl>
    );
  };
  return (
    <section class="details" aria-labelledby="details-title" tabIndex={0}>
      <h3 id="details-title">{t("pvDetails")}</h3>
      {body()}
    </section>
  );
}
