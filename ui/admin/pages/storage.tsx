/**
 * Storage maintenance: the orphan blob sweep. "Check" is a dry run that only counts; removing
 * asks once more and runs the real sweep with the same minimum age.
 */
import { useSignal } from "@preact/signals";
import { formatBytes } from "../../shared/format.ts";
import { api, type BlobSweep } from "../api.ts";
import { ConfirmButton } from "../components/confirm.tsx";
import { useAction } from "../components/data.tsx";
import { Panel } from "../components/panel.tsx";

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function StoragePage() {
  const found = useSignal<BlobSweep | null>(null);
  const outcome = useSignal<string | null>(null);
  const checking = useAction();
  const check = () => {
    outcome.value = null;
    return checking.run(async () => {
      found.value = await api.sweepBlobs(true);
    });
  };

  const f = found.value;
  return (
    <>
      <h1>Storage</h1>
      <Panel
        id="sweep-title"
        title="Unused stored bytes"
        tools={
          <button type="button" onClick={check} disabled={checking.busy.value}>
            {checking.busy.value ? "Checking…" : "Check"}
          </button>
        }
      >
        <p class="muted">
          Bytes no file or version points at: left by a crash between storing an upload and
          recording it, or by a failed delete. Only bytes stored more than 24 hours ago are
          considered, so uploads in progress are never touched.
        </p>
        {checking.error.value && (
          <p class="form-error" role="alert">Could not check: {checking.error.value}</p>
        )}
        {f && (
          <>
            <dl class="facts" aria-label="Check result">
              <dt>Stored blobs</dt>
              <dd>{f.blobs}</dd>
              <dt>Too recent to judge</dt>
              <dd>{f.tooYoung}</dd>
              <dt>Unused</dt>
              <dd>{plural(f.orphans, "blob", "blobs")}, {formatBytes(f.orphanBytes)}</dd>
            </dl>
            {f.orphans === 0 ? <p class="muted">Nothing to remove.</p> : (
              <ConfirmButton
                label="Remove unused"
                question={`Remove ${plural(f.orphans, "unused blob", "unused blobs")} (${
                  formatBytes(f.orphanBytes)
                })? They cannot be recovered.`}
                confirmLabel="Remove"
                onConfirm={async () => {
                  const done = await api.sweepBlobs(false);
                  found.value = null;
                  outcome.value = `Removed ${
                    plural(done.removed, "unused blob", "unused blobs")
                  } (${formatBytes(done.orphanBytes)}) and cleared ${
                    plural(done.abandonedWrites, "unfinished write", "unfinished writes")
                  }.`;
                }}
              />
            )}
          </>
        )}
        <p class="status" role="status">{outcome.value}</p>
      </Panel>
    </>
  );
}
