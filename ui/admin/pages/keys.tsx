/** API keys: issue (the key is shown once), list (paged, searched, per user), revoke. */
import { useSignal } from "@preact/signals";
import { formatDate } from "../../shared/format.ts";
import { api, type IssuedApiKey, type User } from "../api.ts";
import { ConfirmButton } from "../components/confirm.tsx";
import { Items } from "../components/data.tsx";
import { ColumnsPage, FilterSelect, Panel } from "../components/panel.tsx";
import { type NewSecret, SecretSide } from "../components/secret.tsx";
import { PagedTable, usePagedList } from "../components/paged_table.tsx";
import { UserField, userOptions, useUserChoice, useUsers } from "../components/users.tsx";
import { Form, SubmitRow, TextField, Toggle } from "../../shared/fields.tsx";
import { useForm } from "../../shared/form.ts";

function IssueKeyForm(
  { users, onIssued }: { users: User[]; onIssued: (key: IssuedApiKey) => void },
) {
  const form = useForm(["userSeq", "scopes", "label"]);
  const userSeq = useUserChoice(users);
  const write = useSignal(true);
  const label = useSignal("");
  const readAlways = useSignal(true);
  return (
    <Form
      form={form}
      label="Issue an API key"
      titled
      checks={() => ({
        userSeq: !userSeq.value && "Choose the user the key acts for.",
        label: label.value.length > 200 && "The label must be at most 200 characters.",
      })}
      send={async () => {
        const issued = await api.issueKey({
          userSeq: Number(userSeq.value),
          scopes: write.value ? ["api:read", "api:write"] : ["api:read"],
          label: label.value.trim() || null,
        });
        label.value = "";
        onIssued(issued);
      }}
    >
      <UserField form={form} label="User" users={users} value={userSeq} />
      <TextField
        form={form}
        name="label"
        label="Label (optional)"
        hint="What the key is for, e.g. “CI backup job”."
        value={label}
      />
      <fieldset>
        <legend>Scopes</legend>
        <Toggle id={`${form.id}-read`} label="api:read (always)" checked={readAlways} disabled />
        <Toggle
          id={`${form.id}-write`}
          label="api:write"
          hint="Create, change and delete files and shares."
          checked={write}
        />
      </fieldset>
      <SubmitRow form={form} busyLabel="Issuing…">Issue key</SubmitRow>
    </Form>
  );
}

export function KeysPage() {
  const users = useUsers();
  const filter = useSignal("");
  const keys = usePagedList(
    (page) => api.listKeysPage({ ...page, userSeq: Number(filter.value) || undefined }),
    [filter.value],
  );
  const issued = useSignal<NewSecret | null>(null);
  const accountOf = (seq: number) => users.accountOf(seq, `seq ${seq}`);
  return (
    <ColumnsPage
      title="API keys"
      side={
        <SecretSide shown={issued} label="API key" storage="hashed">
          <Items items={users.data.value} empty="Create a user first: a key acts for one user.">
            {(items) => (
              <IssueKeyForm
                users={items}
                onIssued={(k) => {
                  issued.value = {
                    title: `New API key for ${accountOf(k.userSeq)}`,
                    secret: k.apiKey,
                  };
                  keys.reload();
                }}
              />
            )}
          </Items>
        </SecretSide>
      }
    >
      <Panel
        id="key-list-title"
        title="Keys"
        tools={
          <FilterSelect
            id="key-filter"
            label="User"
            all="All users"
            value={filter}
            options={userOptions(users.data.value ?? [])}
          />
        }
      >
        <PagedTable
          list={keys}
          name="keys"
          searchHint="Start of a key id (exact case), or of its user's account id, e-mail or name."
          empty="No API keys."
          columns={[
            {
              label: "Key id",
              cell: (k) => (
                <>
                  <code>{k.keyId}</code>
                  {k.label && <span class="sub">{k.label}</span>}
                </>
              ),
            },
            { label: "User", cell: (k) => accountOf(k.userSeq) },
            { label: "Scopes", cell: (k) => k.scopes.join(", ") },
            {
              label: "Status",
              cell: (k) => (
                <>
                  {k.revokedAt
                    ? <span class="badge bad">revoked {formatDate(k.revokedAt)}</span>
                    : <span class="badge good">active</span>}
                  <span class="sub">created {formatDate(k.createdAt)}</span>
                </>
              ),
            },
          ]}
          rowKey={(k) => k.keyId}
          rowClass={(k) => k.revokedAt ? "revoked" : undefined}
          actions={(k) =>
            !k.revokedAt && (
              <ConfirmButton
                label="Revoke"
                accessibleLabel={`Revoke key ${k.keyId}`}
                question={`Revoke key ${k.keyId}? Clients using it stop working.`}
                confirmLabel="Revoke key"
                onConfirm={() => api.revokeKey(k.keyId).then(keys.reload)}
              />
            )}
        />
      </Panel>
    </ColumnsPage>
  );
}
