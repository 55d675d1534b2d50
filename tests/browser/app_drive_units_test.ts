/**
 * The file browser's pure parts without a browser: the keyboard map (ui/app/drive/keys.ts) and
 * the choice of language (ui/app/messages.ts).
 */
import assert from "node:assert/strict";
import { type KeyLike, listKey } from "../../ui/app/drive/keys.ts";
import { preferredLocale, translate } from "../../ui/app/messages.ts";

const key = (k: string, mods: Partial<KeyLike> = {}): KeyLike => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  altKey: false,
  ...mods,
});

Deno.test("arrows, Home/End and PageUp/Down move within the list and stop at its ends", () => {
  assert.deepEqual(listKey(key("ArrowDown"), -1, 5, 10), { kind: "move", to: 0, extend: false });
  assert.deepEqual(listKey(key("ArrowDown"), 4, 5, 10), { kind: "move", to: 4, extend: false });
  assert.deepEqual(listKey(key("ArrowUp"), 0, 5, 10), { kind: "move", to: 0, extend: false });
  assert.deepEqual(listKey(key("ArrowDown", { shiftKey: true }), 1, 5, 10), {
    kind: "move",
    to: 2,
    extend: true,
  });
  assert.deepEqual(listKey(key("End"), 0, 5, 10), { kind: "move", to: 4, extend: false });
  assert.deepEqual(listKey(key("Home"), 3, 5, 10), { kind: "move", to: 0, extend: false });
  assert.deepEqual(listKey(key("PageDown"), 0, 50, 10), { kind: "move", to: 10, extend: false });
  assert.equal(listKey(key("ArrowDown"), -1, 0, 10), null, "an empty list has nothing to move to");
});

Deno.test("Enter, Backspace, Delete, F2, Ctrl/Cmd+A, Escape and Space", () => {
  assert.deepEqual(listKey(key("Enter"), 2, 5, 10), { kind: "open" });
  assert.equal(listKey(key("Enter"), -1, 5, 10), null, "nothing to open without an active row");
  assert.deepEqual(listKey(key("Backspace"), -1, 5, 10), { kind: "up" });
  assert.deepEqual(listKey(key("Delete"), 1, 5, 10), { kind: "trash" });
  assert.deepEqual(listKey(key("F2"), 1, 5, 10), { kind: "rename" });
  assert.deepEqual(listKey(key("a", { ctrlKey: true }), 1, 5, 10), { kind: "selectAll" });
  assert.deepEqual(listKey(key("A", { metaKey: true }), 1, 5, 10), { kind: "selectAll" });
  assert.deepEqual(listKey(key("Escape"), 1, 5, 10), { kind: "clear" });
  assert.deepEqual(listKey(key(" "), 1, 5, 10), { kind: "toggle" });
  assert.equal(listKey(key("ArrowDown", { ctrlKey: true }), 1, 5, 10), null);
  assert.equal(listKey(key("x"), 1, 5, 10), null);
});

Deno.test("the language is the browser's first one we speak, else English", () => {
  assert.equal(preferredLocale(["ko-KR", "en-US"]), "ko");
  assert.equal(preferredLocale(["fr-FR", "ko"]), "ko");
  assert.equal(preferredLocale(["en-GB", "ko-KR"]), "en");
  assert.equal(preferredLocale(["fr-FR", "de"]), "en");
  assert.equal(preferredLocale([]), "en");
  assert.equal(
    translate("ko", "trashed", "보고서.pdf"),
    "“보고서.pdf”을(를) 휴지통으로 옮겼습니다.",
  );
  assert.equal(translate("en", "items", 3), "3 items");
});
