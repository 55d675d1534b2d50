/**
 * `deno run -A scripts/vendor_api_reference.ts`: copies Scalar's standalone API reference
 * (npm `@scalar/api-reference`, `dist/browser/standalone.js`) into static/vendor/scalar/, where
 * the API docs page (api/http/docs_page.ts) loads it from this server: no CDN, so the page works
 * on an offline host and under `deno compile` (static/ is embedded) and on Deno Deploy.
 *
 * The file is committed, like static/build/: the package does not export that path, so the
 * server cannot import it from npm at run time. tests/runtime/api_docs_page_test.ts fails when
 * the committed copy differs from the pinned package's file; to upgrade, change the version here
 * and run this script.
 */

export const SCALAR_PACKAGE = "@scalar/api-reference";
export const SCALAR_VERSION = "1.72.1";
/** The self-contained browser build (one script, no chunks to load). */
export const SCALAR_FILE = "dist/browser/standalone.js";
export const VENDORED = new URL("../static/vendor/scalar/standalone.js", import.meta.url);

/**
 * The pinned package's directory in Deno's npm cache, downloading it if needed. Run outside the
 * project's configuration so that deno.json and deno.lock stay as they are: the package is not
 * part of the server's import graph.
 */
export async function scalarPackageDir(): Promise<string> {
  const spec = `npm:${SCALAR_PACKAGE}@${SCALAR_VERSION}`;
  const cwd = await Deno.makeTempDir({ prefix: "vendor-scalar-" });
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--no-config", "--no-lock", spec],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output().finally(() => Deno.remove(cwd, { recursive: true }));
  if (code !== 0) throw new Error(`deno info ${spec} failed: ${new TextDecoder().decode(stderr)}`);
  const info = JSON.parse(new TextDecoder().decode(stdout)) as {
    npmPackages: Record<string, { name: string; version: string; localPath?: string }>;
  };
  const pkg = Object.values(info.npmPackages).find((p) =>
    p.name === SCALAR_PACKAGE && p.version === SCALAR_VERSION
  );
  if (!pkg?.localPath) throw new Error(`deno info named no local copy of ${spec}`);
  return pkg.localPath;
}

/** The bytes of the pinned package's standalone build. */
export async function scalarStandalone(): Promise<Uint8Array> {
  return await Deno.readFile(`${await scalarPackageDir()}/${SCALAR_FILE}`);
}

if (import.meta.main) {
  const bytes = await scalarStandalone();
  await Deno.mkdir(new URL(".", VENDORED), { recursive: true });
  await Deno.writeFile(VENDORED, bytes);
  console.log(
    `vendored ${SCALAR_PACKAGE}@${SCALAR_VERSION} ${SCALAR_FILE} (${bytes.length} bytes)`,
  );
}
