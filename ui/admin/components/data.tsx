/** Talking to the API from a page: loading lists, running actions, and showing their state. */
import { type Signal, useSignal } from "@preact/signals";
import type { ComponentChildren } from "preact";
import { useEffect } from "preact/hooks";
import { formatBytes, messageOf } from "../../shared/format.ts";
import { humanizeMessage } from "../../shared/form.ts";

export interface Loaded<T> {
  data: Signal<T | null>;
  error: Signal<string | null>;
  loading: Signal<boolean>;
  reload: () => Promise<void>;
}

/** Runs `load` on mount and whenever `deps` change; `reload` runs it again. */
export function useLoaded<T>(load: () => Promise<T>, deps: unknown[] = []): Loaded<T> {
  const data = useSignal<T | null>(null);
  const error = useSignal<string | null>(null);
  const loading = useSignal(true);
  const reload = async () => {
    loading.value = true;
    try {
      data.value = await load();
      error.value = null;
    } catch (err) {
      error.value = humanizeMessage(messageOf(err));
    } finally {
      loading.value = false;
    }
  };
  useEffect(() => {
    reload();
  }, deps);
  return { data, error, loading, reload };
}

export interface Action {
  busy: Signal<boolean>;
  error: Signal<string | null>;
  /** Runs `task`; false when it threw (its message is then in `error`). */
  run: (task: () => Promise<void>) => Promise<boolean>;
}

/** One action at a time (a check, a confirmed removal), with its busy flag and its failure. */
export function useAction(): Action {
  const busy = useSignal(false);
  const error = useSignal<string | null>(null);
  const run = async (task: () => Promise<void>) => {
    busy.value = true;
    error.value = null;
    try {
      await task();
      return true;
    } catch (err) {
      error.value = humanizeMessage(messageOf(err));
      return false;
    } finally {
      busy.value = false;
    }
  };
  return { busy, error, run };
}

/** Loading… until `items` arrive (null until then), `empty` when there are none. */
export function Items<T>(
  { items, empty, children }: {
    items: T[] | null;
    empty: string;
    children: (items: T[]) => ComponentChildren;
  },
) {
  if (items === null) return <p class="muted" role="status">Loading…</p>;
  if (items.length === 0) return <p class="muted">{empty}</p>;
  return <>{children(items)}</>;
}

/** Renders the loaded list, or its error (with a retry) / loading / empty state. */
export function ListState<T>(
  { loaded, empty, children }: {
    loaded: Loaded<T[]>;
    empty: string;
    children: (items: T[]) => ComponentChildren;
  },
) {
  if (loaded.error.value) {
    return (
      <p class="form-error" role="alert">
        Could not load: {loaded.error.value}{" "}
        <button type="button" onClick={loaded.reload}>Retry</button>
      </p>
    );
  }
  return <Items items={loaded.data.value} empty={empty}>{children}</Items>;
}

/** A storage bar: used against quota, with the numbers in words for everyone. */
export function UsageBar({ used, quota, label }: { used: number; quota: number; label: string }) {
  const ratio = quota > 0 ? used / quota : used > 0 ? 1 : 0;
  const percent = Math.min(100, Math.round(ratio * 100));
  const level = ratio >= 0.9 ? "high" : ratio >= 0.7 ? "mid" : "low";
  return (
    <div class="usage">
      <div
        class={`usage-bar ${level}`}
        role="meter"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={`${percent}% used`}
      >
        <span style={{ width: `${percent}%` }} />
      </div>
      <span class="usage-text">
        {formatBytes(used)} of {formatBytes(quota)} ({percent}%)
      </span>
    </div>
  );
}
