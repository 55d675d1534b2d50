/**
 * A panel's list that the user acts on (the app's sessions and app passwords): loaded on mount,
 * each action followed by a reload, and every outcome or failure said in the panel's status line.
 */
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { messageOf } from "./format.ts";

export function useListPanel<T>(fetchItems: () => Promise<{ items: T[] }>) {
  const items = useSignal<T[] | null>(null);
  const status = useSignal<string | null>(null);
  const load = async () => {
    try {
      items.value = (await fetchItems()).items;
    } catch (err) {
      status.value = messageOf(err);
    }
  };
  useEffect(() => {
    load();
  }, []);
  /** Runs `task`; then says `done` and loads the list again, or says why it failed. */
  const act = async (task: () => Promise<unknown>, done: string) => {
    try {
      await task();
      status.value = done;
      await load();
    } catch (err) {
      status.value = messageOf(err);
    }
  };
  return { items, status, load, act };
}
