/** A destructive action that asks once more, inline, before it runs. */
import { useSignal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import { useAction } from "./data.tsx";

export function ConfirmButton(
  { label, question, confirmLabel, onConfirm, accessibleLabel }: {
    label: string;
    question: string;
    confirmLabel: string;
    onConfirm: () => Promise<unknown>;
    /** Names the target for screen readers, e.g. "Revoke key abc". */
    accessibleLabel?: string;
  },
) {
  const asking = useSignal(false);
  const action = useAction();
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
          action.error.value = null;
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
        disabled={action.busy.value}
        onClick={() =>
          action.run(async () => {
            await onConfirm();
            asking.value = false;
          })}
      >
        {action.busy.value ? "Working…" : confirmLabel}
      </button>
      <button type="button" onClick={() => (asking.value = false)} disabled={action.busy.value}>
        Cancel
      </button>
      {action.error.value && <span class="field-error" role="alert">{action.error.value}</span>}
    </span>
  );
}
