/**
 * Webhooks (docs/changes.md "Webhooks"): create one (its signing secret shown once), see each
 * endpoint's state (one disabled for failing says so), its deliveries with their status codes,
 * retry a delivery, send a test, disable, enable, delete.
 */
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { formatDate } from "../../shared/format.ts";
import { FieldGroup, Form, SubmitRow, TextField, Toggle } from "../../shared/fields.tsx";
import { parseWhole, useForm } from "../../shared/form.ts";
import {
  api,
  type CreatedWebhook,
  EVENT_KINDS,
  type Webhook,
  type WebhookDelivery,
  type WebhookEventFilter,
} from "../api.ts";
import { ConfirmButton } from "../components/confirm.tsx";
import { ListState, useAction, useLoaded } from "../components/data.tsx";
import { DisableButton } from "../components/lifecycle.tsx";
import { ColumnsPage, Panel } from "../components/panel.tsx";
import { type NewSecret, SecretSide } from "../components/secret.tsx";
import { ListTable } from "../components/table.tsx";

function validUrl(raw: string): string | null {
  const t = raw.trim();
  if (!t) return "Enter the URL that receives the deliveries.";
  try {
    const url = new URL(t);
    if (url.protocol !== "http:" && url.protocol !== "https:") return "Use an http or https URL.";
  } catch {
    return "Enter a full URL, such as https://hooks.example.com/drive.";
  }
  return null;
}

function CreateForm({ onCreated }: { onCreated: (w: CreatedWebhook) => void }) {
  const form = useForm(["url", "events", "tenantId"]);
  const url = useSignal("");
  const tenantId = useSignal("");
  const all = useSignal(true);
  const kinds = Object.fromEntries(EVENT_KINDS.map((k) => [k, useSignal(false)]));
  const chosen = (): WebhookEventFilter[] =>
    all.value ? ["*"] : EVENT_KINDS.filter((k) => kinds[k].value);
  return (
    <Form
      form={form}
      label="Create a webhook"
      titled
      checks={() => ({
        url: validUrl(url.value),
        events: chosen().length === 0 && "Choose at least one kind of event, or all.",
        tenantId: tenantId.value.trim() !== "" && !parseWhole(tenantId.value) &&
          "Enter a tenant id (a positive whole number) or leave it empty.",
      })}
      send={async () => {
        const created = await api.createWebhook({
          url: url.value.trim(),
          events: chosen(),
          ...(tenantId.value.trim() ? { tenantId: Number(tenantId.value.trim()) } : {}),
        });
        url.value = tenantId.value = "";
        onCreated(created);
      }}
    >
      <TextField
        form={form}
        name="url"
        label="Receiver URL"
        hint="Deliveries are POSTed here and nowhere else; redirects are not followed."
        type="url"
        inputMode="url"
        required
        value={url}
      />
      <TextField
        form={form}
        name="tenantId"
        label="Tenant id (optional)"
        hint="Only this tenant's events; empty sends every tenant's."
        inputMode="numeric"
        value={tenantId}
      />
      <FieldGroup
        form={form}
        name="events"
        legend="Events"
        hint="Which kinds of event are delivered (docs/changes.md lists them)."
      >
        <Toggle id={`${form.id}-all`} label="All events" checked={all} asSwitch />
        {!all.value && (
          <div class="switch-grid">
            {EVENT_KINDS.map((k) => (
              <Toggle key={k} id={`${form.id}-kind-${k}`} label={k} checked={kinds[k]} />
            ))}
          </div>
        )}
      </FieldGroup>
      <SubmitRow form={form} busyLabel="Creating…">Create webhook</SubmitRow>
    </Form>
  );
}

function StateBadge({ webhook }: { webhook: Webhook }) {
  if (webhook.disabledAt) {
    const why = webhook.disabledReason === "failing" ? "disabled: kept failing" : "disabled";
    return <span class="badge bad">{why}</span>;
  }
  if (webhook.failingSince) return <span class="badge bad">failing</span>;
  return <span class="badge good">enabled</span>;
}

function DeliveryList({ webhook }: { webhook: Webhook }) {
  const deliveries = useLoaded(() => api.listWebhookDeliveries(webhook.id).then((p) => p.items));
  const action = useAction();
  // While a delivery is still being tried, look again every second for its outcome.
  useEffect(() => {
    if (!deliveries.data.value?.some((d) => d.status === "pending")) return;
    const timer = setTimeout(deliveries.reload, 1000);
    return () => clearTimeout(timer);
  }, [deliveries.data.value]);
  const retry = (d: WebhookDelivery) =>
    action.run(async () => {
      await api.retryWebhookDelivery(webhook.id, d.id);
      await deliveries.reload();
    });
  return (
    <div class="test-panel">
      <div class="panel-head">
        <h4>Deliveries</h4>
        <button type="button" onClick={deliveries.reload}>Refresh</button>
      </div>
      {action.error.value && <p class="form-error" role="alert">{action.error.value}</p>}
      <ListTable
        loaded={deliveries}
        empty="Nothing delivered yet."
        label={`Deliveries to ${webhook.url}`}
        columns={[
          { label: "Event", cell: (d) => d.type },
          { label: "Queued", cell: (d) => formatDate(d.createdAt) },
          { label: "Status", cell: (d) => d.status },
          { label: "Attempts", cell: (d) => <Attempts delivery={d} /> },
          { label: "Last answer", cell: (d) => d.lastStatus ?? d.lastError ?? "—" },
        ]}
        rowKey={(d) => d.id}
        actions={(d) => (
          <button
            type="button"
            disabled={action.busy.value || webhook.disabledAt !== null}
            aria-label={`Retry delivery ${d.type} of ${formatDate(d.createdAt)}`}
            onClick={() => retry(d)}
          >
            Retry
          </button>
        )}
      />
    </div>
  );
}

/**
 * A delivery's attempts, newest first, behind its count: when, the status or the error, how
 * long it took, the start of the answer and when the next try is due (as Svix and GitHub show).
 */
/** An attempt's time: to the second, since retries come seconds apart. */
const attemptTime = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });

function Attempts({ delivery }: { delivery: WebhookDelivery }) {
  if (delivery.attemptLog.length === 0) return <>{delivery.attempts}</>;
  return (
    <details class="attempts">
      <summary>{delivery.attempts}</summary>
      <ol aria-label={`Attempts of delivery ${delivery.type} of ${formatDate(delivery.createdAt)}`}>
        {delivery.attemptLog.map((a) => (
          <li key={a.at}>
            <span>{formatDate(a.at)}</span> <strong>{a.status ?? "no answer"}</strong>
            {a.error && a.error !== `answered ${a.status}` && <span>: {a.error}</span>}{" "}
            <span>({a.durationMs} ms)</span>
            {a.nextAttemptAt && <span>; next try {attemptTime(a.nextAttemptAt)}</span>}
            {a.response && <pre>{a.response}</pre>}
          </li>
        ))}
      </ol>
    </details>
  );
}

function WebhookCard({ webhook, onChanged }: { webhook: Webhook; onChanged: () => void }) {
  const open = useSignal(false);
  const action = useAction();
  const notice = useSignal<string | null>(null);
  const disabled = webhook.disabledAt !== null;
  return (
    <li class="adapter" data-webhook={webhook.id}>
      <div class="adapter-head">
        <h3>{webhook.url}</h3>
        <StateBadge webhook={webhook} />
      </div>
      <dl class="facts">
        <dt>Events</dt>
        <dd>{webhook.events.includes("*") ? "all" : webhook.events.join(", ")}</dd>
        <dt>Tenant</dt>
        <dd>{webhook.tenantId ?? "every tenant"}</dd>
        <dt>Created</dt>
        <dd>{formatDate(webhook.createdAt)}</dd>
        {webhook.failingSince && (
          <>
            <dt>Failing since</dt>
            <dd>{formatDate(webhook.failingSince)}</dd>
          </>
        )}
        {disabled && (
          <>
            <dt>Disabled</dt>
            <dd>
              {formatDate(webhook.disabledAt)}
              {webhook.disabledReason === "failing"
                ? ": every attempt failed for a whole retry window. Fix the receiver, then enable."
                : " by an administrator."}
            </dd>
          </>
        )}
      </dl>
      <div class="row-actions">
        <button
          type="button"
          aria-expanded={open.value}
          aria-label={`Deliveries of ${webhook.url}`}
          onClick={() => (open.value = !open.value)}
        >
          Deliveries
        </button>
        <button
          type="button"
          disabled={disabled || action.busy.value}
          aria-label={`Send a test to ${webhook.url}`}
          onClick={() =>
            action.run(async () => {
              await api.testWebhook(webhook.id);
              notice.value = "Test queued: see its outcome under Deliveries.";
            })}
        >
          Send test
        </button>
        <DisableButton
          disabled={disabled}
          what={webhook.url}
          onToggle={(off) => api.setWebhookDisabled(webhook.id, off).then(onChanged)}
        />
        <ConfirmButton
          label="Delete"
          accessibleLabel={`Delete webhook ${webhook.url}`}
          question="Delete this webhook and its deliveries?"
          confirmLabel="Delete webhook"
          onConfirm={async () => {
            await api.deleteWebhook(webhook.id);
            onChanged();
          }}
        />
      </div>
      <p class="status" role="status">{notice.value}</p>
      {action.error.value && <p class="form-error" role="alert">{action.error.value}</p>}
      {open.value && <DeliveryList webhook={webhook} />}
    </li>
  );
}

export function WebhooksPage() {
  const webhooks = useLoaded(api.listWebhooks);
  const shown = useSignal<NewSecret | null>(null);
  return (
    <ColumnsPage
      title="Webhooks"
      side={
        <SecretSide shown={shown} label="Webhook signing secret" storage="sealed">
          <CreateForm
            onCreated={(w) => {
              shown.value = { title: `Signing secret of ${w.url}`, secret: w.secret };
              webhooks.reload();
            }}
          />
        </SecretSide>
      }
    >
      <Panel id="webhook-list-title" title="Webhooks" onRefresh={webhooks.reload}>
        <ListState loaded={webhooks} empty="No webhooks yet.">
          {(items) => (
            <ul class="cards">
              {items.map((w) => <WebhookCard key={w.id} webhook={w} onChanged={webhooks.reload} />)}
            </ul>
          )}
        </ListState>
      </Panel>
    </ColumnsPage>
  );
}
