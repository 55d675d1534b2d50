/** A destructive action that asks once more, inline, before it runs. */
import { useSignal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";

export function ConfirmButton(
  { label, question, confirmLabel, onConfirm, accessibleLabel }: {
    label: string;
    question: string;
    confirmLabel: string;
    onConfirm: () => Promise<void>;
    /** Names the target for screen readers, e.g. "Revoke key abc". */
    accessibleLabel?: string;
  },
) {
  const asking = useSignal(false);
  const busy = useSignal(false);
  const error = useSignal<string | null>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking.value) confirmRef.current?.focus();
  }, [asking.value]);

  if (!asking.value) {
    return (
      <button
        type="button"
        class="danger-outline"
        aria-label={accessibleLabel}
        onClick={() => {
          error.value = null;
          asking.value = true;
        }}
      >
        {label}
      </button>
    );
  }
  return (
    <span class="confirm" role="group" aria-label={question}>
      <span class="confirm-question">{question}</span>
      <button
        type="button"
        class="danger"
        ref={confirmRef}
        disabled={busy.value}
        onClick={async () => {
          busy.value = true;
          error.value = null;
          try {
            await onConfirm();
            asking.value = false;
          } catch (err) {
            error.value = err instanceof Error ? err.message : String(err);
          } finally {
            busy.value = false;
          }
        }}
      >
        {busy.value ? "Working…" : confirmLabel}
      </button>
      <button type="button" onClick={() => (asking.value = false)} disabled={busy.value}>
        Cancel
      </button>
      {error.value && <span class="field-error" role="alert">{error.value}</span>}
    </span>
  );
}
