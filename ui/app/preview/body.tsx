/**
 * The middle of the preview overlay: one file shown the way its kind allows. Text is fetched
 * with a byte cap and shown as text (never parsed as HTML); office documents are asked for their
 * rendered PDF first, so a server without a converter gives a message rather than a download.
 */
import { useEffect, useState } from "preact/hooks";
import type { Row } from "../drive/api.ts";
import { formatSize } from "../drive/format.ts";
import { locale, t } from "../store.ts";
import { viewUrl } from "./api.ts";
import { previewKind, TEXT_CAP } from "./kinds.ts";

type Loaded =
  | { state: "loading" }
  | { state: "text"; text: string; truncated: boolean }
  | { state: "pdf" }
  | { state: "none"; message: string };

/** Reads the first TEXT_CAP bytes of a text file through the view route (a Range request). */
async function readText(url: string, signal: AbortSignal): Promise<Loaded> {
  const res = await fetch(url, {
    credentials: "same-origin",
    headers: { range: `bytes=0-${TEXT_CAP - 1}` },
    signal,
  });
  if (!res.ok) throw new Error(`The server answered ${res.status}`);
  const bytes = new Uint8Array(await res.arrayBuffer());
  const total = Number(res.headers.get("content-range")?.split("/")[1] ?? bytes.length);
  return {
    state: "text",
    text: new TextDecoder().decode(bytes.subarray(0, TEXT_CAP)),
    truncated: total > TEXT_CAP || bytes.length > TEXT_CAP,
  };
}

/** Whether the view route answers a PDF for an office document (headers only, body dropped). */
async function officeRendition(url: string, signal: AbortSignal): Promise<Loaded> {
  const res = await fetch(url, { credentials: "same-origin", signal });
  await res.body?.cancel();
  if (res.ok && res.headers.get("content-type")?.startsWith("application/pdf")) {
    return { state: "pdf" };
  }
  return { state: "none", message: t("pvNoRendition") };
}

export function PreviewBody(props: { row: Row }) {
  const { row } = props;
  const kind = previewKind(row.name);
  const url = viewUrl(row);
  const [loaded, setLoaded] = useState<Loaded>({ state: "loading" });

  useEffect(() => {
    const abort = new AbortController();
    setLoaded({ state: "loading" });
    const load = kind === "text"
      ? readText(url, abort.signal)
      : kind === "office"
      ? officeRendition(url, abort.signal)
      : null;
    load?.then(
      (l) => !abort.signal.aborted && setLoaded(l),
      (err) =>
        !abort.signal.aborted &&
        setLoaded({ state: "none", message: t("error", (err as Error).message) }),
    );
    return () => abort.abort();
  }, [url, kind]);

  const frame = <iframe class="preview-frame" src={url} title={t("pvDocument", row.name)} />;
  switch (kind) {
    case "image":
      return <img class="preview-image" src={url} alt={row.name} />;
    case "pdf":
      return frame;
    case "audio":
      return <audio class="preview-media" src={url} controls preload="metadata" />;
    case "video":
      return <video class="preview-media" src={url} controls preload="metadata" />;
    case "text":
    case "office":
      if (loaded.state === "loading") return <p class="preview-note">{t("loading")}</p>;
      if (loaded.state === "none") return <p class="preview-note">{loaded.message}</p>;
      if (loaded.state === "pdf") return frame;
      return (
        <div class="preview-text-wrap">
          {loaded.truncated && (
            <p class="preview-note">{t("pvTruncated", formatSize(TEXT_CAP, locale.value))}</p>
          )}
          <pre class="preview-text" tabIndex={0} aria-label={row.name}>{loaded.text}</pre>
        </div>
      );
    default:
      return <p class="preview-note">{t("pvCannot")}</p>;
  }
}
