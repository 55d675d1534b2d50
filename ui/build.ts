/**
 * `deno task build`: bundles the app, the admin console and the share page for the browser into
 * static/build/ (committed), minifies the stylesheet there, and records the source fingerprint
 * in static/build/manifest.json. See docs/console.md.
 */
import { sha256Hex } from "../lib/secrets.ts";
import { ROOT, uiSourceHash } from "./source_hash.ts";

/** The scripts: each entry with everything it imports, minified. */
export const BUNDLES = [
  { entry: "ui/admin/main.tsx", output: "admin.js" },
  { entry: "ui/share/main.tsx", output: "share.js" },
  { entry: "ui/app/main.tsx", output: "app.js" },
];
/** ui/styles.css is the one stylesheet source; static/build/ only holds its minified build. */
export const STYLESHEETS = [{ entry: "ui/styles.css", output: "styles.css" }];

export interface BuildManifest {
  sourceHash: string;
  files: Record<string, string>;
}

export const BUILD_DIR = new URL("static/build/", ROOT);

async function bundle(entry: string, output: string, outDir: URL): Promise<void> {
  const { success, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform",
      "browser",
      "--minify",
      "--output",
      new URL(output, outDir).pathname,
      new URL(entry, ROOT).pathname,
    ],
    cwd: new URL(".", ROOT).pathname,
    stdout: "inherit",
    stderr: "piped",
  }).output();
  if (!success) throw new Error(`bundling ${entry} failed:\n${new TextDecoder().decode(stderr)}`);
}

/** Builds into `outDir` (static/build/ unless a test asks for another place). */
export async function build(outDir = BUILD_DIR): Promise<BuildManifest> {
  await Deno.mkdir(outDir, { recursive: true });
  const sourceHash = await uiSourceHash();
  // deno bundle minifies CSS with the same esbuild that bundles the scripts.
  const outputs = [...BUNDLES, ...STYLESHEETS];
  for (const b of outputs) await bundle(b.entry, b.output, outDir);
  const files: Record<string, string> = {};
  for (const name of outputs.map((x) => x.output).sort()) {
    files[name] = sha256Hex(await Deno.readFile(new URL(name, outDir)));
  }
  const manifest: BuildManifest = { sourceHash, files };
  await Deno.writeTextFile(
    new URL("manifest.json", outDir),
    `${JSON.stringify(manifest, null, 2)}\n`,
  );
  return manifest;
}

async function buildAndReport(): Promise<void> {
  const manifest = await build();
  const names = Object.keys(manifest.files).join(", ");
  console.log(`built static/build/ (${names}), sources ${manifest.sourceHash.slice(0, 12)}`);
}

/** `deno task build --watch`: rebuild whenever a file under ui/ changes. */
async function watch(): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  for await (const _event of Deno.watchFs(new URL("ui/", ROOT).pathname)) {
    clearTimeout(timer);
    // Editors write several events per save; build once they settle.
    timer = setTimeout(() => buildAndReport().catch((err) => console.error(err.message)), 150);
  }
}

if (import.meta.main) {
  await buildAndReport();
  if (Deno.args.includes("--watch")) await watch();
}
