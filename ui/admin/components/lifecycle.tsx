/**
 * Row actions of a tenant or user's lifecycle: disable (data kept; keys, adapters and links stop)
 * or enable again, and delete for good behind an inline confirmation. The API asks the deletion
 * to repeat the accountId or tenant name; the console sends it once the administrator confirmed.
 */
import type { Signal } from "@preact/signals";
import { ConfirmButton } from "./confirm.tsx";
import { useAction } from "./data.tsx";
import { EditButton } from "./table.tsx";

/**
 * A tenant or user row's actions: open it in the editor (`selected` names the row being edited),
 * disable or enable it, delete it. The list is read again after a change; deleting the row being
 * edited closes the editor.
 */
export function LifecycleActions(
  { what, id, selected, disabled, setDisabled, consequence, remove, reload }: {
    /** "user ana", "tenant Acme". */
    what: string;
    /** The row's id: a tenant id or a userSeq. */
    id: number;
    selected: Signal<number | null>;
    disabled: boolean;
    setDisabled: (disable: boolean) => Promise<unknown>;
    /** What goes with it when deleted, in words. */
    consequence: string;
    remove: () => Promise<unknown>;
    reload: () => Promise<void>;
  },
) {
  return (
    <span class="row-actions">
      <EditButton
        label={`Edit ${what}`}
        editing={selected.value === id}
        onEdit={() => (selected.value = id)}
      />
      <DisableButton
        disabled={disabled}
        what={what}
        onToggle={(off) => setDisabled(off).then(reload)}
      />
      <DeleteButton
        what={what}
        consequence={consequence}
        onDelete={() =>
          remove().then(() => {
            if (selected.value === id) selected.value = null;
            return reload();
          })}
      />
    </span>
  );
}

export function DisableButton(
  { disabled, what, onToggle }: {
    disabled: boolean;
    /** Names the target for screen readers: "user ana". */
    what: string;
    onToggle: (disable: boolean) => Promise<unknown>;
  },
) {
  const action = useAction();
  return (
    <>
      <button
        type="button"
        aria-label={`${disabled ? "Enable" : "Disable"} ${what}`}
        disabled={action.busy.value}
        onClick={() =>
          action.run(async () => {
            await onToggle(!disabled);
          })}
      >
        {disabled ? "Enable" : "Disable"}
      </button>
      {action.error.value && <span class="field-error" role="alert">{action.error.value}</span>}
    </>
  );
}

function DeleteButton(
  { what, consequence, onDelete }: {
    /** "user ana", "tenant Acme". */
    what: string;
    /** What goes with it, in words. */
    consequence: string;
    onDelete: () => Promise<unknown>;
  },
) {
  return (
    <ConfirmButton
      label="Delete"
      accessibleLabel={`Delete ${what}`}
      question={`Delete ${what} for good? ${consequence} This cannot be undone.`}
      confirmLabel={`Delete ${what}`}
      onConfirm={onDelete}
    />
  );
}

/** "disabled" badge for a row, or nothing. */
export function DisabledBadge({ disabledAt }: { disabledAt: string | null | undefined }) {
  return disabledAt ? <span class="badge bad">disabled</span> : null;
}
