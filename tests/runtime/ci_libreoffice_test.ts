/**
 * .ci/run installs LibreOffice when a module the template test needs is missing, not only when
 * soffice is: a machine with Writer but not Calc and Impress failed tests/drive/documents_test.ts.
 * Its check runs here against fake installations.
 */
import assert from "node:assert/strict";

const CI_RUN = new URL("../../.ci/run", import.meta.url);

/** Runs .ci/run's `libreoffice_missing` with `bin` as the whole PATH: "missing" or "present". */
async function check(bin: string): Promise<string> {
  const script = await Deno.readTextFile(CI_RUN);
  const fn = /^libreoffice_missing\(\) \{\n[\s\S]*?\n\}\n/m.exec(script);
  assert.ok(fn, ".ci/run has no libreoffice_missing function");
  const out = await new Deno.Command("/bin/bash", {
    args: ["-c", `${fn[0]}\nif libreoffice_missing; then echo missing; else echo present; fi`],
    env: { PATH: bin },
    clearEnv: true,
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim();
}

/** A LibreOffice installation with `modules`, its soffice linked from a bin directory. */
async function fakeInstall(root: string, modules: string[]): Promise<string> {
  const program = `${root}/lo/program`;
  await Deno.mkdir(program, { recursive: true });
  await Deno.mkdir(`${root}/lo/share/.registry`, { recursive: true });
  await Deno.writeTextFile(`${program}/soffice`, "#!/bin/sh\n", { mode: 0o755 });
  for (const m of modules) await Deno.writeTextFile(`${root}/lo/share/.registry/${m}.xcd`, "");
  const bin = `${root}/bin`;
  await Deno.mkdir(bin);
  await Deno.symlink(`${program}/soffice`, `${bin}/soffice`);
  for (const tool of ["readlink", "dirname"]) {
    const path = ["/usr/bin", "/bin"].map((d) => `${d}/${tool}`).find((p) => {
      try {
        return Deno.statSync(p).isFile;
      } catch {
        return false;
      }
    });
    await Deno.symlink(path!, `${bin}/${tool}`);
  }
  return bin;
}

Deno.test(".ci/run: LibreOffice counts as installed only with Writer, Calc and Impress", async () => {
  const dir = await Deno.makeTempDir({ prefix: "drive-ci-lo-" });
  try {
    assert.equal(await check(`${dir}/nothing`), "missing", "no soffice");
    const writerOnly = await fakeInstall(`${dir}/writer`, ["writer"]);
    assert.equal(await check(writerOnly), "missing", "Writer alone");
    const all = await fakeInstall(`${dir}/all`, ["writer", "calc", "impress"]);
    assert.equal(await check(all), "present");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
