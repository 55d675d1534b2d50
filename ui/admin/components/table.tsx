/** A loaded list as a table (ui/shared/table.tsx), with its loading, error and empty states. */
import type { ComponentChildren } from "preact";
import { type Column, DataTable } from "../../shared/table.tsx";
import { ListState, type Loaded } from "./data.tsx";

export type { Column };

/** Rows per page of a paged list (components/paged_table.tsx). */
export const PAGE_SIZE = 20;

/** The rows of `loaded`; a list the server pages and searches is a PagedTable around it. */
export function ListTable<T>(
  { loaded, empty, actions, ...table }: {
    loaded: Loaded<T[]>;
    /** What the table says instead when the list is empty. */
    empty: string;
    columns: Column<T>[];
    rowKey: (item: T) => string | number;
    rowClass?: (item: T) => string | undefined;
    actions: (item: T) => ComponentChildren;
    /** The table's accessible name, when the page holds several. */
    label?: string;
  },
) {
  return (
    <ListState loaded={loaded} empty={empty}>
      {(items) => <DataTable items={items} actions={actions} {...table} />}
    </ListState>
  );
}

/** The row action that opens the row in the editor beside the list; pressed while it is open. */
export function EditButton(
  { label, editing, onEdit }: { label: string; editing: boolean; onEdit: () => void },
) {
  return (
    <button type="button" aria-label={label} aria-pressed={editing} onClick={onEdit}>
      Edit
    </button>
  );
}
