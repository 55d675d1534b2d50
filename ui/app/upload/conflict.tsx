/**
 * A taken name: the API itself never refuses one (a new file with a taken name is renamed, POST
 * /files's st=duplicate), so the app looks first in the target folder's listing and asks the
 * person: keep both (the server's renamed copy), replace (st=version: a new version of the file,
 * the old content stays in its versions), or skip, optionally for every later clash of the batch.
 */
import { signal } from "@preact/signals";
import { useEffect, useRef, useState } from "preact/hooks";
import type { DriveApi } from "../drive/api.ts";
import { t } from "../store.ts";
import { namesIn, type Place } from "./folders.ts";
import type { Decision, Item } from "./queue.ts";

type Choice = "keep" | "replace" | "skip";

interface Question {
  name: string;
  answer: (choice: Choice, all: boolean) => void;
}

export class ConflictAsker {
  readonly question = signal<Question | null>(null);
  private names = new Map<string, Promise<Map<string, { rs: number; folder: boolean }>>>();
  private always: Choice | null = null;
  /** One question at a time: each waits for the one before. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(private readonly drive: DriveApi) {}

  /** A new batch: its folders are read again and "apply to all" starts unset. */
  reset(): void {
    this.names = new Map();
    this.always = null;
  }

  private namesOf(place: Place) {
    const key = `${place.ss ?? ""}:${place.pfs ?? ""}`;
    let p = this.names.get(key);
    if (!p) {
      p = namesIn(this.drive, place);
      this.names.set(key, p);
    }
    return p;
  }

  async decide(item: Item, pfs: number | null): Promise<Decision> {
    const place = { pfs, ss: pfs ? item.place.ss : undefined };
    const taken = (await this.namesOf(place)).get(item.file.name);
    if (!taken || taken.folder) return { st: "duplicate" };
    const ask = this.turn.then(() => this.always ? this.always : this.ask(item.file.name));
    this.turn = ask;
    const choice = await ask;
    if (choice === "replace") return { st: "version", rs: taken.rs };
    return choice === "skip" ? { st: "skip" } : { st: "duplicate" };
  }

  private ask(name: string): Promise<Choice> {
    return new Promise((resolve) => {
      this.question.value = {
        name,
        answer: (choice, all) => {
          if (all) this.always = choice;
          this.question.value = null;
          resolve(choice);
        },
      };
    });
  }

  render() {
    const q = this.question.value;
    return q ? <ConflictDialog key={q.name} q={q} /> : null;
  }
}

function ConflictDialog(props: { q: Question }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [all, setAll] = useState(false);
  useEffect(() => {
    dialog.current!.showModal();
  }, []);
  const pick = (choice: Choice) => {
    dialog.current?.close();
    props.q.answer(choice, all);
  };
  return (
    <dialog
      ref={dialog}
      class="sheet conflict"
      aria-labelledby="conflict-title"
      aria-describedby="conflict-text"
      onCancel={(e) => {
        e.preventDefault();
        pick("skip");
      }}
    >
      <h2 id="conflict-title">{t("upConflictTitle")}</h2>
      <p id="conflict-text">{t("upConflictText", props.q.name)}</p>
      <label class="check">
        <input type="checkbox" checked={all} onChange={(e) => setAll(e.currentTarget.checked)} />
        {t("upApplyAll")}
      </label>
      <div class="actions">
        <button type="button" class="button primary" onClick={() => pick("keep")}>
          {t("upKeepBoth")}
        </button>
        <button type="button" class="button" onClick={() => pick("replace")}>
          {t("upReplace")}
        </button>
        <button type="button" class="button" onClick={() => pick("skip")}>{t("upSkip")}</button>
      </div>
    </dialog>
  );
}
