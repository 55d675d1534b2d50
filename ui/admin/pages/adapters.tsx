/**
 * Adapters of the storage provider protocol: register one for a user's drive or folder (its
 * secret shown once), rotate the secret, run the connection test, delete.
 */
import { useSignal } from "@preact/signals";
import { formatDate } from "../../shared/format.ts";
import {
  type Adapter,
  ADAPTER_OPERATIONS,
  type AdapterOperation,
  api,
  type ConnectionTest,
  type CreatedAdapter,
  type User,
} from "../api.ts";
import { ConfirmButton } from "../components/confirm.tsx";
import { TestResult, TestRunner } from "../components/connection_check.tsx";
import { Items, ListState, useLoaded } from "../components/data.tsx";
import { ColumnsPage, Panel } from "../components/panel.tsx";
import { type NewSecret, SecretSide } from "../components/secret.tsx";
import { UserField, useUserChoice, useUsers } from "../components/users.tsx";
import { FieldGroup, Form, SubmitRow, TextField, Toggle } from "../../shared/fields.tsx";
import { parseWhole, useForm } from "../../shared/form.ts";

/** lock and unlock are one switch: the protocol enables them together. */
const OPERATION_SWITCHES: { id: string; label: string; ops: AdapterOperation[] }[] = [
  { id: "list", label: "list", ops: ["list"] },
  { id: "put", label: "put", ops: ["put"] },
  { id: "lock", label: "lock / unlock", ops: ["lock", "unlock"] },
  { id: "mkdir", label: "mkdir", ops: ["mkdir"] },
  { id: "rename", label: "rename", ops: ["rename"] },
  { id: "delete", label: "delete", ops: ["delete"] },
];

function validAdapterName(name: string): string | null {
  const t = name.trim();
  if (!t) return "Enter the adapter name.";
  if (t.length > 128) return "The name must be at most 128 characters.";
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(t)) {
    return "Use letters, digits, '.', '_' and '-' only, starting with a letter or digit.";
  }
  return null;
}

/** The server's rule: 32 to 1024 UTF-8 bytes (it is the HMAC key of every request). */
function validSecret(secret: string): string | null {
  if (secret === "") return null;
  const bytes = new TextEncoder().encode(secret).byteLength;
  if (bytes < 32) {
    return `A chosen secret needs at least 32 bytes (this one has ${bytes}); leave it empty to generate one.`;
  }
  if (bytes > 1024) return "The secret must be at most 1024 bytes.";
  return null;
}

function RegisterForm(
  { users, onRegistered }: {
    users: User[];
    onRegistered: (a: CreatedAdapter) => void;
  },
) {
  const form = useForm(["name", "userSeq", "folderSeq", "secret", "operations", "readOnly"]);
  const name = useSignal("");
  const userSeq = useUserChoice(users);
  const folderSeq = useSignal("");
  const secret = useSignal("");
  const readOnly = useSignal(false);
  const switches = Object.fromEntries(
    OPERATION_SWITCHES.map((s) => [s.id, useSignal(true)]),
  );
  const operations = () =>
    OPERATION_SWITCHES.filter((s) => switches[s.id].value).flatMap((s) => s.ops);
  return (
    <Form
      form={form}
      label="Register an adapter"
      titled
      checks={() => ({
        name: validAdapterName(name.value),
        userSeq: !userSeq.value && "Choose the user whose drive the adapter serves.",
        folderSeq: folderSeq.value.trim() !== "" && !parseWhole(folderSeq.value) &&
          "Enter a folder seq (a positive whole number) or leave it empty.",
        secret: validSecret(secret.value),
      })}
      send={async () => {
        const created = await api.registerAdapter({
          name: name.value.trim(),
          userSeq: Number(userSeq.value),
          ...(folderSeq.value.trim() ? { folderSeq: Number(folderSeq.value.trim()) } : {}),
          ...(secret.value ? { secret: secret.value } : {}),
          operations: operations(),
          readOnly: readOnly.value,
        });
        name.value = folderSeq.value = secret.value = "";
        onRegistered(created);
      }}
    >
      <TextField
        form={form}
        name="name"
        label="Adapter name"
        hint="The document host signs its requests with this name."
        required
        value={name}
      />
      <UserField form={form} label="User (whose drive it serves)" users={users} value={userSeq} />
      <TextField
        form={form}
        name="folderSeq"
        label="Folder seq (optional)"
        hint="Limit the adapter to one folder of the drive; empty serves the whole drive."
        inputMode="numeric"
        value={folderSeq}
      />
      <TextField
        form={form}
        name="secret"
        label="Secret (optional)"
        hint="Leave empty to have a strong secret generated."
        type="password"
        autoComplete="new-password"
        value={secret}
      />
      <FieldGroup
        form={form}
        name="operations"
        legend="Optional operations"
        hint="A disabled operation answers 501 Not Implemented."
      >
        <div class="switch-grid">
          {OPERATION_SWITCHES.map((s) => (
            <Toggle
              key={s.id}
              id={`${form.id}-op-${s.id}`}
              label={s.label}
              checked={switches[s.id]}
              asSwitch
            />
          ))}
        </div>
      </FieldGroup>
      <Toggle
        id={`${form.id}-readOnly`}
        label="Read-only"
        hint="Every writing operation answers 403."
        checked={readOnly}
        asSwitch
      />
      {form.errors.value.readOnly && <p class="field-error">{form.errors.value.readOnly}</p>}
      <SubmitRow form={form} busyLabel="Registering…">Register adapter</SubmitRow>
    </Form>
  );
}

function AdapterRow(
  { adapter, owner, onSecret, onChanged }: {
    adapter: Adapter;
    owner: string;
    onSecret: (title: string, secret: string) => void;
    onChanged: () => void;
  },
) {
  const testing = useSignal(false);
  const result = useSignal<ConnectionTest | null>(null);
  const ops = adapter.operations ?? [...ADAPTER_OPERATIONS];
  return (
    <li class="adapter">
      <div class="adapter-head">
        <h3>{adapter.name}</h3>
        {adapter.readOnly && <span class="badge">read-only</span>}
      </div>
      <dl class="facts">
        <dt>Root</dt>
        <dd>
          {owner}'s drive{adapter.folderSeq ? `, folder ${adapter.folderSeq}` : ""}
        </dd>
        <dt>Operations</dt>
        <dd>{ops.length === ADAPTER_OPERATIONS.length ? "all" : ops.join(", ") || "none"}</dd>
        {adapter.createdAt !== undefined && (
          <>
            <dt>Registered</dt>
            <dd>{formatDate(adapter.createdAt)}</dd>
          </>
        )}
        {adapter.secretUpdatedAt !== undefined && (
          <>
            <dt>Secret set</dt>
            <dd>{formatDate(adapter.secretUpdatedAt)}</dd>
          </>
        )}
      </dl>
      <div class="row-actions">
        <button
          type="button"
          aria-expanded={testing.value}
          aria-label={`Connection test of ${adapter.name}`}
          onClick={() => (testing.value = !testing.value)}
        >
          Connection test
        </button>
        <ConfirmButton
          label="Rotate secret"
          accessibleLabel={`Rotate the secret of ${adapter.name}`}
          question="Issue a new secret? The old one stops working at once."
          confirmLabel="Rotate secret"
          onConfirm={async () => {
            const r = await api.rotateAdapterSecret(adapter.name);
            onSecret(`New secret of adapter ${r.name}`, r.secret);
            onChanged();
          }}
        />
        <ConfirmButton
          label="Delete"
          accessibleLabel={`Delete adapter ${adapter.name}`}
          question={`Delete adapter ${adapter.name}?`}
          confirmLabel="Delete adapter"
          onConfirm={async () => {
            await api.deleteAdapter(adapter.name);
            onChanged();
          }}
        />
      </div>
      {testing.value && (
        <div class="test-panel">
          <TestRunner
            adapter={adapter.name}
            onStart={() => (result.value = null)}
            onResult={(r) => (result.value = r)}
          />
          {result.value && <TestResult result={result.value} />}
        </div>
      )}
    </li>
  );
}

export function AdaptersPage() {
  const users = useUsers();
  const adapters = useLoaded(api.listAdapters);
  const shown = useSignal<NewSecret | null>(null);
  return (
    <ColumnsPage
      title="Adapters"
      side={
        <SecretSide shown={shown} label="Adapter secret" storage="sealed">
          <Items
            items={users.data.value}
            empty="Create a user first: an adapter serves a user's drive."
          >
            {(items) => (
              <RegisterForm
                users={items}
                onRegistered={(a) => {
                  shown.value = { title: `Secret of adapter ${a.name}`, secret: a.secret };
                  adapters.reload();
                }}
              />
            )}
          </Items>
        </SecretSide>
      }
    >
      <Panel id="adapter-list-title" title="Registered adapters">
        <ListState loaded={adapters} empty="No adapters registered.">
          {(items) => (
            <ul class="cards">
              {items.map((a) => (
                <AdapterRow
                  key={a.name}
                  adapter={a}
                  owner={users.accountOf(a.userSeq)}
                  onSecret={(title, secret) => (shown.value = { title, secret })}
                  onChanged={adapters.reload}
                />
              ))}
            </ul>
          )}
        </ListState>
      </Panel>
    </ColumnsPage>
  );
}
