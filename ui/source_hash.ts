/**
 * The fingerprint of everything the browser bundles are built from: every file under ui/ and
 * the deno.json settings that change bundle output. static/build/manifest.json records it, and
 * tests/browser/ui_build_test.ts fails when the committed build no longer matches the sources.
 */
import { createHash } from "node:crypto";

export const ROOT = new URL("../", import.meta.url);

async function filesUnder(dir: URL, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    const rel = `${prefix}${e.name}`;
    if (e.isDirectory) out.push(...await filesUnder(new URL(`${e.name}/`, dir), `${rel}/`));
    else if (e.isFile) out.push(rel);
  }
  return out;
}

export async function uiSourceHash(): Promise<string> {
  const hash = createHash("sha256");
  const uiDir = new URL("ui/", ROOT);
  for (const rel of (await filesUnder(uiDir)).sort()) {
    // Line endings may differ between checkouts; the bundle does not depend on them.
    const text = (await Deno.readTextFile(new URL(rel, uiDir))).replaceAll("\r\n", "\n");
    hash.update(`${rel}\0${text}\0`);
  }
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  hash.update(JSON.stringify({
    compilerOptions: config.compilerOptions,
    preact: config.imports?.preact,
    signals: config.imports?.["@preact/signals"],
  }));
  return hash.digest("hex");
}
