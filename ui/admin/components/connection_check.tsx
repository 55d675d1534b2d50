/** The adapter connection test: a run button with visible progress, then its result in words. */
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { api, type ConnectionTest, type TestProblem } from "../api.ts";
import { useForm } from "../../shared/form.ts";
import { Form, SubmitRow, TextField } from "../../shared/fields.tsx";

function validBaseUrl(raw: string): string | null {
  const t = raw.trim();
  if (!t) return null;
  try {
    const u = new URL(t);
    if (u.protocol !== "http:" && u.protocol !== "https:") return "Use an http:// or https:// URL.";
    if (u.username || u.password) return "Leave the user name and password out of the URL.";
    if (t.includes("?") || t.includes("#")) return "Leave the query and fragment out of the URL.";
  } catch {
    return "Enter a full URL, like https://drive.example.com, or leave it empty.";
  }
  return null;
}

export function TestRunner(
  { adapter, onStart, onResult }: {
    adapter: string;
    onStart: () => void;
    onResult: (r: ConnectionTest) => void;
  },
) {
  const form = useForm(["baseUrl"]);
  const baseUrl = useSignal("");
  const elapsed = useSignal(0);
  useEffect(() => {
    if (!form.busy.value) return;
    const started = Date.now();
    elapsed.value = 0;
    const timer = setInterval(() => (elapsed.value = Date.now() - started), 250);
    return () => clearInterval(timer);
  }, [form.busy.value]);
  return (
    <Form
      form={form}
      label={`Connection test of ${adapter}`}
      checks={() => ({ baseUrl: validBaseUrl(baseUrl.value) })}
      send={async () => {
        // A previous verdict must not stand next to a run in progress.
        onStart();
        onResult(await api.testAdapter(adapter, baseUrl.value.trim() || undefined));
      }}
    >
      <TextField
        form={form}
        name="baseUrl"
        label="Base URL (optional)"
        hint="Where the test sends its signed list request; empty means this server."
        type="url"
        inputMode="url"
        value={baseUrl}
      />
      <SubmitRow form={form} busyLabel="Testing…">Run connection test</SubmitRow>
      <div class="progress-area" role="status" aria-live="polite">
        {form.busy.value && (
          <>
            <div class="progress" aria-hidden="true">
              <span />
            </div>
            <span>
              Signing a list request and checking the answer… {(elapsed.value / 1000).toFixed(0)} s
            </span>
          </>
        )}
      </div>
    </Form>
  );
}

function problemText(p: TestProblem): string {
  if (typeof p === "string") return p;
  const where = p.path ? ` (${p.path})` : "";
  return `${p.message ?? p.code ?? JSON.stringify(p)}${where}`;
}

function entryCount(entries: ConnectionTest["entries"]): number | null {
  if (typeof entries === "number") return entries;
  return Array.isArray(entries) ? entries.length : null;
}

export function TestResult({ result }: { result: ConnectionTest }) {
  const entries = entryCount(result.entries);
  return (
    <section
      class={`test-result ${result.ok ? "ok" : "failed"}`}
      aria-label="Connection test result"
      data-testid="test-result"
    >
      <p class="verdict">
        <span class={`badge ${result.ok ? "good" : "bad"}`}>
          {result.ok ? "Passed" : "Failed"}
        </span>
      </p>
      <dl class="facts">
        <dt>HTTP status</dt>
        <dd>{result.status || "no answer"}</dd>
        <dt>Time</dt>
        <dd>{result.durationMs} ms</dd>
        {entries !== null && (
          <>
            <dt>Entries listed</dt>
            <dd>{entries}</dd>
          </>
        )}
      </dl>
      {result.notice && <p class="notice">{result.notice}</p>}
      {result.problems.length > 0
        ? (
          <>
            <h4>Problems found ({result.problems.length})</h4>
            <ul class="problems">
              {result.problems.map((p, i) => <li key={i}>{problemText(p)}</li>)}
            </ul>
          </>
        )
        : <p>No problems found.</p>}
    </section>
  );
}
