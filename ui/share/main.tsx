/**
 * The public share-link page at /s/{token}: password prompt when the link has one, then the
 * shared file (download button only when the share grants download) or folder (browse its
 * subfolders). Everything shown comes from the public link API, which confines it to the
 * shared subtree.
 */
import { signal, useSignal } from "@preact/signals";
import { render } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { formatBytes, formatDate, isPast } from "../shared/format.ts";
import { Form, SubmitButton } from "../shared/fields.tsx";
import { CurrentPasswordField } from "../shared/sign_in_fields.tsx";
import { errorsOf, useForm } from "../shared/form.ts";
import {
  type FolderListing,
  forgetAccess,
  linkApi,
  LinkError,
  type LinkInfo,
  type SharedResource,
} from "./api.ts";
import { FileRequestView, Uploader } from "./upload.tsx";
import { EntryVisual } from "./entry_visual.tsx";

const token = decodeURIComponent(location.pathname.replace(/^\/s\//, "").replace(/\/+$/, ""));

type View =
  | { kind: "loading" }
  | { kind: "gone" }
  | { kind: "org-only" }
  | { kind: "outside" }
  | { kind: "error"; message: string }
  | { kind: "password"; info: LinkInfo }
  | { kind: "request"; info: LinkInfo }
  | { kind: "file"; info: LinkInfo; file: SharedResource }
  | { kind: "folder"; info: LinkInfo; listing: FolderListing };

const view = signal<View>({ kind: "loading" });

function folderFromUrl(): number | undefined {
  const n = Number(new URLSearchParams(location.search).get("folder"));
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

function showError(err: unknown, info?: LinkInfo): void {
  if (err instanceof LinkError) {
    // Asked for something outside the shared subtree (a hand-edited ?folder=).
    if (err.code === "RESOURCE_002") return void (view.value = { kind: "outside" });
    if (err.status === 404) return void (view.value = { kind: "gone" });
    if (err.code === "LINK_003") return void (view.value = { kind: "org-only" });
    if (err.code === "LINK_004" && info) {
      // The access token expired: ask for the password again.
      forgetAccess(token);
      return void (view.value = { kind: "password", info: { ...info, resource: undefined } });
    }
  }
  view.value = { kind: "error", message: err instanceof Error ? err.message : String(err) };
}

async function load(): Promise<void> {
  let info: LinkInfo;
  try {
    info = await linkApi.info(token);
  } catch (err) {
    return showError(err);
  }
  if (isPast(info.expireDate)) return void (view.value = { kind: "gone" });
  if (!info.resource) return void (view.value = { kind: "password", info });
  if (info.fileRequest) return void (view.value = { kind: "request", info });
  if (info.resource.type === "FILE") {
    return void (view.value = { kind: "file", info, file: info.resource });
  }
  try {
    const listing = await linkApi.items(token, folderFromUrl());
    view.value = { kind: "folder", info, listing };
  } catch (err) {
    showError(err, info);
  }
}

function openFolder(seq: number | undefined): void {
  const url = seq ? `${location.pathname}?folder=${seq}` : location.pathname;
  history.pushState(null, "", url);
  load();
}

addEventListener("popstate", () => load());

function PasswordPrompt({ info }: { info: LinkInfo }) {
  const form = useForm(["password"]);
  const password = useSignal("");
  const waitUntil = useSignal(0);
  const now = useSignal(Date.now());
  useEffect(() => {
    if (waitUntil.value <= Date.now()) return;
    const timer = setInterval(() => {
      now.value = Date.now();
      if (now.value >= waitUntil.value) clearInterval(timer);
    }, 500);
    return () => clearInterval(timer);
  }, [waitUntil.value]);
  const waitSeconds = Math.max(0, Math.ceil((waitUntil.value - now.value) / 1000));
  return (
    <section class="panel narrow">
      <h1>This link is protected</h1>
      <p>Enter the password you were given to open it.</p>
      <Form
        form={form}
        label="Unlock the shared link"
        onSubmit={(e) => {
          if (waitSeconds > 0) return e.preventDefault();
          form.submit(
            e,
            () => errorsOf({ password: !password.value && "Enter the password." }),
            async () => {
              try {
                await linkApi.unlock(token, password.value);
              } catch (err) {
                if (err instanceof LinkError && err.code === "LINK_001") {
                  throw Object.assign(new Error("Wrong password. Try again."), {
                    field: "password",
                  });
                }
                if (err instanceof LinkError && err.status === 429) {
                  const seconds = err.retryAfter ?? 60;
                  waitUntil.value = Date.now() + seconds * 1000;
                  now.value = Date.now();
                  throw Object.assign(
                    new Error(`Too many attempts. Wait ${seconds} seconds, then try again.`),
                    { field: "password" },
                  );
                }
                if (err instanceof LinkError && err.status === 404) showError(err);
                throw err;
              }
              password.value = "";
              await load();
            },
          );
        }}
      >
        <CurrentPasswordField form={form} value={password} />
        <div class="actions">
          {waitSeconds > 0
            ? (
              <button type="submit" class="primary" disabled>
                Wait {waitSeconds} s
              </button>
            )
            : <SubmitButton form={form} busyLabel="Checking…">Open</SubmitButton>}
        </div>
      </Form>
      <Expiry info={info} />
    </section>
  );
}

function Expiry({ info }: { info: LinkInfo }) {
  if (!info.expireDate) return null;
  return <p class="muted">This link expires {formatDate(info.expireDate)}.</p>;
}

function DownloadLink({ file, canDownload }: { file: SharedResource; canDownload: boolean }) {
  if (!canDownload) return null;
  return (
    <a
      class="button primary"
      href={linkApi.downloadUrl(token, file.resourceSeq)}
      download={file.name}
      aria-label={`Download ${file.name}`}
    >
      Download
    </a>
  );
}

function FileView({ info, file }: { info: LinkInfo; file: SharedResource }) {
  const canDownload = info.permissions?.canDownload === true;
  return (
    <section class="panel narrow">
      <p class="eyebrow">Shared file</p>
      <h1 class="file-name">{file.name}</h1>
      <dl class="facts">
        <dt>Size</dt>
        <dd>{formatBytes(file.size)}</dd>
        <dt>Type</dt>
        <dd>{file.contentType ?? "unknown"}</dd>
        <dt>Modified</dt>
        <dd>{formatDate(file.updatedAt)}</dd>
      </dl>
      <div class="actions">
        <DownloadLink file={file} canDownload={canDownload} />
      </div>
      {!canDownload && <p class="muted">The owner shared this file for viewing only.</p>}
      <Expiry info={info} />
    </section>
  );
}

function FolderView({ info, listing }: { info: LinkInfo; listing: FolderListing }) {
  const canDownload = info.permissions?.canDownload === true;
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [listing.folder.resourceSeq]);
  const crumbs = listing.path.length ? listing.path : [listing.folder];
  // Further pages, fetched on demand, are appended to the first.
  const more = useSignal<{ items: SharedResource[]; cursor: string | null }>({
    items: [],
    cursor: listing.cursor ?? null,
  });
  const moreError = useSignal<string | null>(null);
  const all = [...listing.items, ...more.value.items];
  const folders = all.filter((i) => i.type === "FOLDER");
  const files = all.filter((i) => i.type !== "FOLDER");
  const loadMore = async () => {
    try {
      const page = await linkApi.items(
        token,
        listing.folder.resourceSeq,
        more.value.cursor ?? undefined,
      );
      more.value = { items: [...more.value.items, ...page.items], cursor: page.cursor ?? null };
      moreError.value = null;
    } catch (err) {
      moreError.value = err instanceof Error ? err.message : String(err);
    }
  };
  return (
    <section class="panel">
      <p class="eyebrow">Shared folder</p>
      {crumbs.length > 1 && (
        <nav aria-label="Folder path" class="crumbs">
          <ol>
            {crumbs.map((c, i) => {
              const last = i === crumbs.length - 1;
              const seq = i === 0 ? undefined : c.resourceSeq;
              return (
                <li key={c.resourceSeq}>
                  {last ? <span aria-current="page">{c.name}</span> : (
                    <a
                      href={seq ? `?folder=${seq}` : location.pathname}
                      onClick={(e) => {
                        e.preventDefault();
                        openFolder(seq);
                      }}
                    >
                      {c.name}
                    </a>
                  )}
                </li>
              );
            })}
          </ol>
        </nav>
      )}
      <h1 tabIndex={-1} ref={heading}>{listing.folder.name}</h1>
      {canDownload && all.length > 0 && (
        <a class="button" href={linkApi.zipUrl(token, listing.folder.resourceSeq)} download>
          Download all as ZIP
        </a>
      )}
      {all.length === 0 ? <p class="muted">This folder is empty.</p> : (
        <ul class="entries">
          {[...folders, ...files].map((item) => (
            <li key={item.resourceSeq} class={item.type === "FOLDER" ? "folder" : "file"}>
              <EntryVisual token={token} item={item} />
              {item.type === "FOLDER"
                ? (
                  <a
                    class="entry-name"
                    href={`?folder=${item.resourceSeq}`}
                    onClick={(e) => {
                      e.preventDefault();
                      openFolder(item.resourceSeq);
                    }}
                  >
                    {item.name}
                  </a>
                )
                : <span class="entry-name">{item.name}</span>}
              <span class="entry-meta">
                {item.type === "FOLDER" ? "folder" : formatBytes(item.size)}
              </span>
              {item.type !== "FOLDER" && <DownloadLink file={item} canDownload={canDownload} />}
            </li>
          ))}
        </ul>
      )}
      {more.value.cursor && (
        <div class="actions">
          <button type="button" onClick={loadMore}>Show more</button>
        </div>
      )}
      {moreError.value && <p class="form-error" role="alert">{moreError.value}</p>}
      {info.permissions?.canUpload && (
        <Uploader
          token={token}
          folderSeq={listing.folder.resourceSeq}
          onDone={() => load()}
        />
      )}
      <Expiry info={info} />
    </section>
  );
}

function Message({ title, children }: { title: string; children: string }) {
  return (
    <section class="panel narrow">
      <h1>{title}</h1>
      <p>{children}</p>
    </section>
  );
}

function SharePage() {
  const v = view.value;
  switch (v.kind) {
    case "loading":
      return <p class="muted" role="status">Opening the link…</p>;
    case "gone":
      return (
        <Message title="Link not available">
          This link does not exist, was revoked, or has expired. Ask its owner for a new one.
        </Message>
      );
    case "org-only":
      return (
        <Message title="For organization members only">
          This link opens only for signed-in members of the owner's organization.
        </Message>
      );
    case "outside":
      return (
        <section class="panel narrow">
          <h1>Not in this shared folder</h1>
          <p>That folder is not part of what was shared with this link.</p>
          <p>
            <a
              href={location.pathname}
              onClick={(e) => {
                e.preventDefault();
                openFolder(undefined);
              }}
            >
              Back to the shared folder
            </a>
          </p>
        </section>
      );
    case "error":
      return <Message title="Something went wrong">{v.message}</Message>;
    case "password":
      return <PasswordPrompt info={v.info} />;
    case "request":
      return (
        <FileRequestView
          token={token}
          name={v.info.resource!.name}
          expiry={<Expiry info={v.info} />}
        />
      );
    case "file":
      return <FileView info={v.info} file={v.file} />;
    case "folder":
      return <FolderView key={v.listing.folder.resourceSeq} info={v.info} listing={v.listing} />;
  }
}

function App() {
  return (
    <>
      <header class="topbar">
        <span class="brand">Drive</span>
      </header>
      <main id="main" class="share">
        <SharePage />
      </main>
    </>
  );
}

render(<App />, document.getElementById("app")!);
load();
