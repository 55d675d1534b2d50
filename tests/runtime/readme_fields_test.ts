/**
 * The short field names explained in README.md ("Short field names") and in docs/api.md's glossary
 * agree with the drive API's OpenAPI document: every code a row names is a parameter or request
 * field of every operation (or path) its row names, and every short field the document has is
 * explained for every operation that takes it. A row that sends a code to the wrong endpoint
 * (`sk` for /search, which takes `q`) or gives a code one meaning where it has two (`st`: the upload
 * mode of POST /files, the share type of /shares) fails here.
 */
import assert from "node:assert/strict";
import { withServer } from "../helpers/server.ts";

/** A wire code: a parameter or request field name of at most three lowercase letters. */
const CODE = /^[a-z]{1,3}$/;

/** Code → the operations ("POST /files") that take it, as the OpenAPI document says. */
type FieldUses = Map<string, Set<string>>;

interface Row {
  /** The row as written, for messages. */
  text: string;
  codes: string[];
  /** "POST /files" (one operation) or "/shares" (every operation at or under the path). */
  where: string[];
}

// deno-lint-ignore no-explicit-any
type Json = any;

function fieldUses(doc: Json): FieldUses {
  const uses: FieldUses = new Map();
  const add = (name: string, op: string) => {
    if (!CODE.test(name)) return;
    if (!uses.has(name)) uses.set(name, new Set());
    uses.get(name)!.add(op);
  };
  const resolve = (schema: Json): Json =>
    schema?.$ref ? resolve(doc.components.schemas[schema.$ref.split("/").pop()]) : schema;
  const fields = (schema: Json, op: string, depth: number) => {
    schema = resolve(schema);
    if (!schema || depth > 3) return;
    for (const part of [...schema.allOf ?? [], ...schema.anyOf ?? [], ...schema.oneOf ?? []]) {
      fields(part, op, depth);
    }
    if (schema.items) fields(schema.items, op, depth + 1);
    for (const [name, sub] of Object.entries(schema.properties ?? {})) {
      add(name, op);
      fields(sub, op, depth + 1);
    }
  };
  for (const [path, ops] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(ops)) {
      const name = `${method.toUpperCase()} ${path}`;
      for (const param of op.parameters ?? []) add(param.name, name);
      for (const media of Object.values<Json>(op.requestBody?.content ?? {})) {
        fields(media.schema, name, 0);
      }
    }
  }
  return uses;
}

const ticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);

/** The first Markdown table after `heading` in `text`, as rows of its Code and Where columns. */
function fieldTable(text: string, heading: string): Row[] {
  const lines = text.split("\n");
  const start = lines.indexOf(heading);
  assert.ok(start >= 0, `heading "${heading}" not found`);
  const first = lines.findIndex((l, i) => i > start && l.startsWith("|"));
  assert.ok(first > start, `no table after "${heading}"`);
  const table = lines.slice(first, lines.findIndex((l, i) => i > first && !l.startsWith("|")));
  const cells = (line: string) => line.slice(1, -1).split("|").map((c) => c.trim());
  const header = cells(table[0]);
  const code = header.indexOf("Code");
  const where = header.indexOf("Where");
  assert.ok(code >= 0 && where >= 0, `the table after "${heading}" needs Code and Where columns`);
  return table.slice(2).map((line) => {
    const row = cells(line);
    assert.equal(row.length, header.length, `a cell holds a "|": ${line}`);
    return { text: row[code], codes: ticked(row[code]), where: ticked(row[where]) };
  });
}

/** Does "POST /files" or "/files" name operation `op` ("POST /files/{resourceSeq}/move")? */
function names(entry: string, op: string): boolean {
  if (entry.includes(" ")) return entry === op;
  const path = op.slice(op.indexOf(" ") + 1);
  return path === entry || path.startsWith(`${entry}/`);
}

/** What is wrong with `rows` against the document; empty when they agree. */
function problems(rows: Row[], uses: FieldUses): string[] {
  const found: string[] = [];
  for (const row of rows) {
    if (row.codes.length === 0 || row.where.length === 0) {
      found.push(`row "${row.text}" names no code or no operation`);
    }
    for (const entry of row.where) {
      if (!/^((GET|POST|PUT|PATCH|DELETE) )?\/\S*$/.test(entry)) {
        found.push(`row "${row.text}": "${entry}" is neither "METHOD /path" nor "/path"`);
      }
      for (const code of row.codes) {
        const ops = [...uses.get(code) ?? []];
        if (!ops.some((op) => names(entry, op))) {
          found.push(`row "${row.text}": \`${code}\` is no field of ${entry}`);
        }
      }
    }
  }
  for (const [code, ops] of uses) {
    for (const op of ops) {
      const explained = rows.some((r) =>
        r.codes.includes(code) && r.where.some((e) => names(e, op))
      );
      if (!explained) found.push(`\`${code}\` of ${op} has no row`);
    }
  }
  return found;
}

const read = (path: string) => Deno.readTextFile(new URL(`../../${path}`, import.meta.url));

Deno.test("the short field names of README.md and docs/api.md match the OpenAPI document", async (t) => {
  await withServer(async (server) => {
    const doc = await (await fetch(`${server.url}/api/external/v1/openapi.json`)).json();
    const uses = fieldUses(doc);
    // The scan found the document's codes, both kinds of place included.
    for (const code of ["rs", "pfs", "ss", "st", "q", "sk", "cv", "us"]) {
      assert.ok(uses.has(code), `the document has no field \`${code}\``);
    }

    await t.step("README.md: Short field names", async () => {
      const rows = fieldTable(await read("README.md"), "### Short field names");
      assert.deepEqual(problems(rows, uses), []);
    });

    await t.step("docs/api.md: Glossary of wire codes", async () => {
      const rows = fieldTable(await read("docs/api.md"), "## Glossary of wire codes");
      assert.deepEqual(problems(rows, uses), []);
    });

    await t.step("the rows of bug 9 would fail", () => {
      const wrong = [
        "| Code | Meaning | Where |",
        "| --- | --- | --- |",
        "| `sk` | search keyword | `GET /search` |",
        "| `st` | upload mode | `POST /files` |",
      ].join("\n");
      const found = problems(fieldTable(`## T\n${wrong}\n`, "## T"), uses);
      assert.ok(found.includes('row "`sk`": `sk` is no field of GET /search'), found.join("\n"));
      assert.ok(found.includes("`q` of GET /search has no row"), found.join("\n"));
      assert.ok(found.includes("`st` of POST /shares has no row"), found.join("\n"));
    });
  });
});
