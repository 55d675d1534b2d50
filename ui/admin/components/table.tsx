/**
 * A loaded list as a table: a header per column, each cell labelled with its column (the narrow
 * layout shows the label beside the value), and a last column of row actions.
 */
import type { ComponentChildren } from "preact";
import { ListState, type Loaded } from "./data.tsx";

/** Rows per page of a paged list (components/paged_table.tsx). */
export const PAGE_SIZE = 20;

export interface Column<T> {
  label: string;
  cell: (item: T) => ComponentChildren;
}

/** The rows of `loaded`; a list the server pages and searches is a PagedTable around it. */
export function ListTable<T>(
  { loaded, empty, columns, rowKey, rowClass, actions, label }: {
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
  const table = (items: T[]) => (
    <table aria-label={label}>
      <thead>
        <tr>
          {columns.map((c) => <th key={c.label} scope="col">{c.label}</th>)}
          <th scope="col">
            <span class="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {items.map((item) => (
          <tr key={rowKey(item)} class={rowClass?.(item)}>
            {columns.map((c) => <td key={c.label} data-label={c.label}>{c.cell(item)}</td>)}
            <td>{actions(item)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
  return <ListState loaded={loaded} empty={empty}>{table}</ListState>;
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
