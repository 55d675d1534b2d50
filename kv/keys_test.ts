/**
 * Holds the code base to kv/key_families.ts and kv/keys.ts: every family has an owner that exists
 * and declares its value type, no module spells a key tuple itself, and only a family's owner
 * writes it.
 */
import assert from "node:assert/strict";
import * as keys from "./keys.ts";
import { FAMILIES, type FamilyName } from "./key_families.ts";

const ROOT = new URL("../", import.meta.url);
/** Source folders whose modules touch KV; tests, benches and scripts are not the service. */
const SOURCE_DIRS = ["kv", "provider", "blobs", "api", "lib"];
/** The table and the builders spell the families themselves. */
const KEYS_MODULES = ["kv/keys.ts", "kv/key_families.ts"];

async function sources(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(new URL(dir, ROOT))) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory) await walk(path);
      else if (
        /\.tsx?$/.test(e.name) && !/_(test|fixtures)\.tsx?$/.test(e.name) &&
        !KEYS_MODULES.includes(path)
      ) {
        out.set(path, stripComments(await Deno.readTextFile(new URL(path, ROOT))));
      }
    }
  };
  for (const dir of SOURCE_DIRS) await walk(dir);
  return out;
}

/** Drops comments (which may show key shapes) but keeps strings. */
function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

/** Each exported builder and the family it builds keys of. */
const BUILDERS: Map<string, FamilyName> = new Map(
  Object.entries(keys)
    .filter(([, v]) => typeof v === "function")
    .map(([name, fn]) => [name, (fn as (...a: string[]) => Deno.KvKey)("x", "x", "x", "x")[0]]),
) as Map<string, FamilyName>;

Deno.test("every key family has an owner module that declares its value type", async () => {
  for (const [family, { owner, value }] of Object.entries(FAMILIES)) {
    const text = await Deno.readTextFile(new URL(owner, ROOT)).catch(() => null);
    assert.ok(text !== null, `${family}: owner ${owner} does not exist`);
    const typeName = /^([A-Z]\w*)/.exec(value)?.[1];
    if (typeName) {
      assert.match(
        text,
        new RegExp(`(interface|type|class) ${typeName}\\b`),
        `${family}: ${owner} does not declare ${typeName}`,
      );
    }
  }
});

Deno.test("every key family has a builder, and every builder names a family", () => {
  const built = new Set(BUILDERS.values());
  for (const family of Object.keys(FAMILIES)) {
    assert.ok(built.has(family as FamilyName), `no builder for ${family}`);
  }
  for (const [name, family] of BUILDERS) assert.ok(family in FAMILIES, `${name} builds ${family}`);
});

Deno.test("no module outside kv/keys.ts spells a key tuple", async () => {
  const families = Object.keys(FAMILIES).join("|");
  // A literal array whose first element is a family name; a constant list of words
  // (`["lock", "unlock"] as const`) is not a key.
  const rawTuple = new RegExp(`\\[\\s*"(${families})"\\s*[,\\]][^\\]]*\\]?( as const)?`, "g");
  const found: string[] = [];
  for (const [path, text] of await sources()) {
    for (const m of text.matchAll(rawTuple)) if (!m[2]) found.push(`${path}: ["${m[1]}", …]`);
  }
  assert.deepEqual(found, [], "raw key tuples outside kv/keys.ts");
});

Deno.test("only a family's owner writes it", async () => {
  const found: string[] = [];
  const write = /\.(set|delete|sum|min|max)\(\s*(\w+)\(/g;
  const stored = /const (\w+) = (\w+)\(/g;
  for (const [path, text] of await sources()) {
    const notOwned = (builder: string) => {
      const family = BUILDERS.get(builder);
      return family !== undefined && FAMILIES[family].owner !== path ? family : null;
    };
    for (const m of text.matchAll(write)) {
      const family = notOwned(m[2]);
      if (family) found.push(`${path} writes ${family} (${m[0]})`);
    }
    // A key kept in a variable first, then written.
    for (const m of text.matchAll(stored)) {
      const family = notOwned(m[2]);
      if (family && new RegExp(`\\.(set|delete)\\(\\s*${m[1]}\\b`).test(text)) {
        found.push(`${path} writes ${family} (through ${m[1]})`);
      }
    }
  }
  assert.deepEqual(found, [], "writes by modules that do not own the family");
});

Deno.test("builders make whole keys and prefixes of their family", () => {
  assert.deepEqual(keys.resourceKey(7), ["res", 7]);
  assert.deepEqual(keys.resourceKey(), ["res"]);
  assert.deepEqual(keys.versionKey(7, 2), ["res_version", 7, 2]);
  assert.deepEqual(keys.versionKey(7), ["res_version", 7]);
  assert.deepEqual(keys.userByEmailKey("A@B.example"), ["user_by_email", "a@b.example"]);
});
