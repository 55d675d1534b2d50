/**
 * Items as a table: a header per column, each cell labelled with its column (the narrow layout
 * shows the label beside the value), and, when the rows have actions, a last column for them.
 * The console's lists and the app's account panels draw their tables with it.
 */
import type { ComponentChildren } from "preact";

export interface Column<T> {
  label: string;
  cell: (item: T) => ComponentChildren;
}

export function DataTable<T>(
  { items, columns, rowKey, rowClass, actions, actionsClass, label }: {
    items: T[];
    columns: Column<T>[];
    rowKey: (item: T) => string | number;
    rowClass?: (item: T) => string | undefined;
    actions?: (item: T) => ComponentChildren;
    /** The actions cell's class ("actions-cell" aligns the buttons to the row's end). */
    actionsClass?: string;
    /** The table's accessible name, when the page holds several. */
    label?: string;
  },
) {
  return (
    <table aria-label={label}>
      <thead>
        <tr>
          {columns.map((c) => <th key={c.label} scope="col">{c.label}</th>)}
          {actions && (
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          )}
        </tr>
      </thead>
      <tbody>
        {items.map((item) => (
          <tr key={rowKey(item)} class={rowClass?.(item)}>
            {columns.map((c) => <td key={c.label} data-label={c.label}>{c.cell(item)}</td>)}
            {actions && <td class={actionsClass}>{actions(item)}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
