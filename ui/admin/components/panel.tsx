/** Page layout: titled panels, with their tools (a filter, a refresh button) beside the title. */
import type { Signal } from "@preact/signals";
import type { ComponentChildren } from "preact";
import type { Option } from "../../shared/fields.tsx";

/** A page of two columns: its list (`children`) and, beside it, the `side` panels stacked. */
export function ColumnsPage(
  { title, side, children }: {
    title: string;
    side: ComponentChildren;
    children: ComponentChildren;
  },
) {
  return (
    <>
      <h1>{title}</h1>
      <div class="columns">
        {children}
        <div class="stack">{side}</div>
      </div>
    </>
  );
}

export function Panel(
  { id, title, tools, onRefresh, children }: {
    /** Id of the title, which names the panel for screen readers. */
    id: string;
    title: string;
    tools?: ComponentChildren;
    /** Adds a Refresh button to the tools. */
    onRefresh?: () => void;
    children: ComponentChildren;
  },
) {
  const heading = <h2 id={id}>{title}</h2>;
  const refresh = onRefresh && <button type="button" onClick={onRefresh}>Refresh</button>;
  return (
    <section class="panel" aria-labelledby={id}>
      {tools || refresh ? <div class="panel-head">{heading}{tools}{refresh}</div> : heading}
      {children}
    </section>
  );
}

/** Narrows the panel's list to one value; the first option, `all`, shows everything. */
export function FilterSelect(
  { id, label, all, value, options }: {
    id: string;
    label: string;
    all: string;
    value: Signal<string>;
    options: Option[];
  },
) {
  return (
    <div class="field inline">
      <label for={id}>{label}</label>
      <select id={id} value={value.value} onChange={(e) => (value.value = e.currentTarget.value)}>
        <option value="">{all}</option>
        {options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
      </select>
    </div>
  );
}
