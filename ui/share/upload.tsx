/**
 * Uploads through a share link (a folder link granting upload, or an upload-only file request):
 * files dropped or picked go up with tus-js-client to /public/v1/links/{token}/uploads,
 * resumable (its stored fingerprints resume an upload interrupted by a reload or a lost
 * connection). A file request's page shows only this: the visitor sees their own files' progress,
 * never the folder.
 */
import { useSignal } from "@preact/signals";
import { Upload } from "tus-js-client";
import { storedAccess } from "./api.ts";

interface Sending {
  id: number;
  name: string;
  sent: number;
  total: number;
  state: "sending" | "done" | "failed";
  message?: string;
}

/** A readable reason from a tus-js-client error (it carries the server's answer when any). */
function reasonOf(err: Error): string {
  const res = (err as { originalResponse?: { getBody(): string } | null }).originalResponse;
  try {
    const body = res ? JSON.parse(res.getBody()) : null;
    if (body?.message) return body.message;
  } catch { /* not JSON */ }
  return "The upload failed. Try again.";
}

export function Uploader(
  { token, folderSeq, onDone }: { token: string; folderSeq?: number; onDone?: () => void },
) {
  const list = useSignal<Sending[]>([]);
  const over = useSignal(false);
  const update = (id: number, patch: Partial<Sending>) => {
    list.value = list.value.map((s) => s.id === id ? { ...s, ...patch } : s);
  };
  const send = (files: Iterable<File>) => {
    for (const file of files) {
      const id = Date.now() + Math.random();
      list.value = [...list.value, {
        id,
        name: file.name,
        sent: 0,
        total: file.size,
        state: "sending",
      }];
      const access = storedAccess(token);
      const upload = new Upload(file, {
        endpoint: `/public/v1/links/${encodeURIComponent(token)}/uploads`,
        headers: access ? { "x-link-access": access } : {},
        metadata: { filename: file.name, ...(folderSeq ? { folderSeq: String(folderSeq) } : {}) },
        chunkSize: 8 * 1024 * 1024,
        retryDelays: [0, 1000, 3000, 5000],
        removeFingerprintOnSuccess: true,
        onProgress: (sent, total) => update(id, { sent, total }),
        onSuccess: () => {
          update(id, { state: "done", sent: file.size });
          onDone?.();
        },
        onError: (err) => update(id, { state: "failed", message: reasonOf(err) }),
      });
      upload.findPreviousUploads().then((previous) => {
        if (previous.length) upload.resumeFromPreviousUpload(previous[0]);
        upload.start();
      });
    }
  };
  return (
    <div class="uploader">
      <div
        class={over.value ? "dropzone over" : "dropzone"}
        // Inline: the page's stylesheet (ui/styles.css) is shared; these rules are this widget's.
        style={{
          border: `2px dashed ${over.value ? "currentColor" : "#8888"}`,
          borderRadius: "8px",
          padding: "1.25rem",
          margin: "1rem 0",
          textAlign: "center",
        }}
        onDragOver={(e) => {
          e.preventDefault();
          over.value = true;
        }}
        onDragLeave={() => over.value = false}
        onDrop={(e) => {
          e.preventDefault();
          over.value = false;
          if (e.dataTransfer?.files) send(e.dataTransfer.files);
        }}
      >
        <p>Drop files here, or</p>
        <label class="button primary">
          Choose files
          <input
            type="file"
            multiple
            class="visually-hidden"
            data-testid="link-upload-input"
            onChange={(e) => {
              const input = e.currentTarget;
              if (input.files) send([...input.files]);
              input.value = "";
            }}
          />
        </label>
      </div>
      {list.value.length > 0 && (
        <ul class="uploads" aria-live="polite">
          {list.value.map((s) => (
            <li key={s.id}>
              <span class="entry-name">{s.name}</span>
              <progress
                style={{ width: "8rem", margin: "0 .5rem" }}
                max={Math.max(1, s.total)}
                value={s.sent}
                aria-label={`Upload of ${s.name}`}
              />
              <span class="entry-meta">
                {s.state === "done" ? "Sent" : s.state === "failed" ? s.message : "Sending…"}
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The page of an upload-only file request: what it is for, and the uploader. */
export function FileRequestView(
  { token, name, expiry }: { token: string; name: string; expiry: preact.ComponentChild },
) {
  return (
    <section class="panel narrow">
      <p class="eyebrow">File request</p>
      <h1>Send files to “{name}”</h1>
      <p class="muted">
        The files you add go to the person who sent you this link. You cannot see the folder or what
        others have sent.
      </p>
      <Uploader token={token} />
      {expiry}
    </section>
  );
}
