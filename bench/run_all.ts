/**
 * `deno task bench`: runs every benchmark script in bench/ one after another (not this file, not
 * lib.ts, which they share, and not the serve_* helpers they start as child processes).
 */
const dir = new URL(".", import.meta.url).pathname;
const scripts = [...Deno.readDirSync(dir)]
  .map((e) => e.name)
  .filter((n) =>
    n.endsWith(".ts") && !["run_all.ts", "lib.ts"].includes(n) && !n.endsWith("_lib.ts") &&
    !n.startsWith("serve_")
  )
  .sort();

let failed = 0;
for (const name of scripts) {
  console.log(`\n=== bench/${name} ===`);
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${dir}${name}`],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (code !== 0) {
    console.error(`bench/${name} exited with ${code}`);
    failed++;
  }
}
Deno.exit(failed === 0 ? 0 : 1);
