/** A titled panel of a console page, with its tools (a filter, a refresh button) beside the title. */
import type { Signal } from "@preact/signals";
import type { ComponentChildren } from "preact";
import type { Option } from "../../shared/fields.tsx";

export function Panel(
  { id, title, tools, children }: {
    /** Id of the title, which names the panel for screen readers. */
    id: string;
    title: string;
    tools?: ComponentChildren;
    children: ComponentChildren;
  },
) {
  const heading = <h2 id={id}>{title}</h2>;
  return (
    <section class="panel" aria-labelledby={id}>
      {tools ? <div class="panel-head">{heading}{tools}</div> : heading}
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
