import assert from "node:assert/strict";
import { uniqueTopNames } from "./zip_entries.ts";

Deno.test("a selection's top names are made unique, case-insensitively, keeping extensions", () => {
  assert.deepEqual(
    uniqueTopNames(["a.txt", "b", "a.txt", "A.TXT", "b", "a (2).txt"]),
    ["a.txt", "b", "a (2).txt", "A (3).TXT", "b (2)", "a (2) (2).txt"],
  );
});

Deno.test("distinct names stay as they are", () => {
  assert.deepEqual(uniqueTopNames(["x", "y.pdf", "z"]), ["x", "y.pdf", "z"]);
});
