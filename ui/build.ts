/**
 * `deno task build`: bundles the admin console and the share page for the browser into
 * static/build/ (committed), copies the stylesheet, and records the source fingerprint in
 * static/build/manifest.json. See docs/console.md.
 */
import { ROOT, sha256Hex, uiSourceHash } from "./source_hash.ts";

export const BUNDLES = [
  { entry: "ui/admin/main.tsx", output: "admin.js" },
  { entry: "ui/share/main.tsx", output: "share.js" },
];
export const COPIED = [{ source: "ui/styles.css", output: "styles.css" }];

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
  for (const b of BUNDLES) await bundle(b.entry, b.output, outDir);
  for (const c of COPIED) await Deno.copyFile(new URL(c.source, ROOT), new URL(c.output, outDir));
  const files: Record<string, string> = {};
  for (const name of [...BUNDLES, ...COPIED].map((x) => x.output).sort()) {
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
