/**
 * The activity log (docs/changes.md "Activity"): changes, downloads, link opens and admin
 * actions, newest first, filtered by tenant, user, resource, kind and time, with "Older" paging.
 */
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { formatDate } from "../../shared/format.ts";
import { errorsOf, parseWhole, useForm } from "../../shared/form.ts";
import { Form, SelectField, SubmitRow, TextField } from "../../shared/fields.tsx";
import { type Column, DataTable } from "../../shared/table.tsx";
import { type ActivityEntry, type ActivityFilter, api, EVENT_KINDS } from "../api.ts";
import { Items, useAction } from "../components/data.tsx";
import { Panel } from "../components/panel.tsx";

const FIELDS = ["tenantId", "userSeq", "rs", "kind", "from", "to"] as const;

function actorOf(e: ActivityEntry): string {
  const a = e.actor;
  if (a.admin) return "admin";
  if (a.adapter) return `adapter ${a.adapter}${a.userSeq !== null ? ` (user ${a.userSeq})` : ""}`;
  if (a.link) return `link ${a.link}`;
  if (a.userSeq !== null) return `user ${a.userSeq}${a.keyId ? ` (key ${a.keyId})` : ""}`;
  return "—";
}

function whatOf(e: ActivityEntry): string {
  const parts: string[] = [];
  if (e.resource) parts.push(`${e.resource.name} (seq ${e.resource.rs})`);
  if (e.before && e.resource && e.before.name !== e.resource.name) {
    parts.push(`was ${e.before.name}`);
  }
  if (e.share) parts.push(`share ${e.share.shareSeq}`);
  for (const [k, v] of Object.entries(e.detail ?? {})) parts.push(`${k}: ${v}`);
  return parts.join(" · ") || "—";
}

const ACTIVITY_COLUMNS: Column<ActivityEntry>[] = [
  { label: "When", cell: (e) => formatDate(e.at) },
  { label: "Kind", cell: (e) => e.kind.replaceAll("_", " ") },
  { label: "By", cell: actorOf },
  { label: "What", cell: whatOf },
];

export function ActivityPage() {
  const form = useForm(FIELDS);
  const values = {
    tenantId: useSignal(""),
    userSeq: useSignal(""),
    rs: useSignal(""),
    kind: useSignal(""),
    from: useSignal(""),
    to: useSignal(""),
  };
  const items = useSignal<ActivityEntry[] | null>(null);
  const next = useSignal<string | null>(null);
  const filter = useSignal<ActivityFilter>({});
  const older = useAction();

  const load = async (f: ActivityFilter, cursor?: string) => {
    const page = await api.listActivity(f, cursor);
    items.value = cursor ? [...(items.value ?? []), ...page.items] : page.items;
    next.value = page.nextCursor;
  };

  const apply = (e: Event | null) =>
    form.submit(e, () => {
      const seq = (name: "tenantId" | "userSeq" | "rs") => {
        const raw = values[name].value.trim();
        return raw !== "" && !parseWhole(raw) ? "Enter a positive whole number" : null;
      };
      const date = (name: "from" | "to") => {
        const raw = values[name].value.trim();
        return raw !== "" && Number.isNaN(Date.parse(raw)) ? "Enter a date, e.g. 2026-01-31" : null;
      };
      return errorsOf({
        tenantId: seq("tenantId"),
        userSeq: seq("userSeq"),
        rs: seq("rs"),
        from: date("from"),
        to: date("to"),
      });
    }, async () => {
      const f: ActivityFilter = {};
      for (const name of FIELDS) {
        const raw = values[name].value.trim();
        if (raw !== "") f[name] = raw;
      }
      filter.value = f;
      await load(f);
    });

  useEffect(() => {
    apply(null);
  }, []);

  return (
    <>
      <h1>Activity</h1>
      <Panel id="activity-filter-title" title="Filter">
        <Form form={form} label="Filter the activity" onSubmit={apply}>
          <TextField
            form={form}
            name="tenantId"
            label="Tenant id"
            inputMode="numeric"
            value={values.tenantId}
          />
          <TextField
            form={form}
            name="userSeq"
            label="User seq"
            hint="By the user, or about their drive"
            inputMode="numeric"
            value={values.userSeq}
          />
          <TextField
            form={form}
            name="rs"
            label="Resource seq"
            inputMode="numeric"
            value={values.rs}
          />
          <SelectField
            form={form}
            name="kind"
            label="Kind"
            placeholder="Any kind"
            options={EVENT_KINDS.map((k) => ({ value: k, label: k.replaceAll("_", " ") }))}
            value={values.kind}
          />
          <TextField
            form={form}
            name="from"
            label="From"
            placeholder="2026-01-01"
            value={values.from}
          />
          <TextField
            form={form}
            name="to"
            label="Before"
            placeholder="2026-02-01"
            value={values.to}
          />
          <SubmitRow form={form} busyLabel="Loading…">Show</SubmitRow>
        </Form>
      </Panel>
      <Panel id="activity-title" title="Entries, newest first">
        <Items items={items.value} empty="No activity matches.">
          {(entries) => (
            <DataTable
              items={entries}
              rowKey={(e) => e.id}
              columns={ACTIVITY_COLUMNS}
            />
          )}
        </Items>
        {older.error.value && <p class="error" role="alert">{older.error.value}</p>}
        {next.value && (
          <div class="actions">
            <button
              type="button"
              disabled={older.busy.value}
              onClick={() => older.run(() => load(filter.value, next.value!))}
            >
              {older.busy.value ? "Loading…" : "Older"}
            </button>
          </div>
        )}
      </Panel>
    </>
  );
}
