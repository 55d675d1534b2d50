/**
 * rclone's webdav backend (`--webdav-vendor other`) against the real server: a deterministic
 * tree of 1,000 files (0 B to 5 MiB, nested, Unicode names) is copied up, checked equal in both
 * directions, edited, moved and deleted locally, synced, checked again (bytes compared), and
 * `rclone lsjson` must report the right sizes and times. Skipped with a message without rclone
 * (failing in CI, where .ci/run installs it).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { prng, testBytes } from "../helpers/bytes.ts";
import { type DavUser, withDavServer } from "./helpers.ts";

const FILES = 1000;
const NAMES = [
  "Ünïcödé",
  "日本語の書類",
  "Ελληνικά",
  "café crème",
  "emoji 🎉",
  "100% done & #1",
  "(draft) v2",
];

function sizeOf(i: number, rand: () => number): number {
  if (i % 97 === 0) return 0;
  if (i % 50 === 0) return Math.floor(1024 * 1024 + rand() * 4 * 1024 * 1024); // up to 5 MiB
  return Math.floor(rand() * 48 * 1024);
}

/** Writes the tree: 10 folders × 5 subfolders × 20 files. Returns the relative paths. */
async function writeTree(root: string): Promise<string[]> {
  const rand = prng(23);
  const paths: string[] = [];
  for (let i = 0; i < FILES; i++) {
    const dir = join(`${NAMES[i % 7]} ${Math.floor(i / 100)}`, `sub ${Math.floor(i / 20) % 5}`);
    const rel = join(dir, `${NAMES[(i * 3) % 7]} ${i}.bin`);
    await Deno.mkdir(join(root, dir), { recursive: true });
    await Deno.writeFile(join(root, rel), testBytes(sizeOf(i, rand), i + 1));
    paths.push(rel);
  }
  return paths;
}

async function rclone(args: string[], env: Record<string, string>) {
  const out = await new Deno.Command("rclone", { args, env, stdout: "piped", stderr: "piped" })
    .output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return { ok: out.success, text, stdout: new TextDecoder().decode(out.stdout) };
}

const hasRclone = await new Deno.Command("rclone", {
  args: ["version"],
  stdout: "null",
  stderr: "null",
})
  .output().then((o) => o.success, () => false);
const inCi = Deno.env.get("CI") === "true";
if (!hasRclone && !inCi) console.log("rclone is not installed (apt-get install rclone): skipped");

Deno.test({
  name: "rclone: 1,000 files up, check both ways, edit/move/delete + sync, lsjson sizes and times",
  ignore: !hasRclone && !inCi,
  async fn() {
    assert.ok(hasRclone, "rclone is not installed; CI must have it (.ci/run installs it)");
    const local = await Deno.makeTempDir({ prefix: "rclone-local-" });
    try {
      await withDavServer("fs", async (server) => {
        const user = await server.newUser("rc");
        // An empty config file of its own: the remote is given by flags, nothing is read or kept.
        const config = await Deno.makeTempFile({ prefix: "rclone-", suffix: ".conf" });
        const env = { RCLONE_CONFIG: config };
        try {
          await roundTrip(server.url, user, env);
        } finally {
          await Deno.remove(config);
        }
      });
    } finally {
      await Deno.remove(local, { recursive: true });
    }

    async function roundTrip(url: string, user: DavUser, env: Record<string, string>) {
      const obscured = (await rclone(["obscure", user.key], env)).stdout.trim();
      const remote = [
        "--webdav-url",
        `${url}/dav/files/rc/`,
        "--webdav-vendor",
        "other",
        "--webdav-user",
        user.accountId,
        "--webdav-pass",
        obscured,
      ];
      const run = async (...args: string[]) => {
        const r = await rclone([...args, ...remote, "--transfers", "4", "--checkers", "4"], env);
        assert.ok(r.ok, `rclone ${args.join(" ")}:\n${r.text.slice(-3000)}`);
        return r;
      };
      const started = Date.now() - 2000;
      const paths = await writeTree(local);
      await run("copy", local, ":webdav:tree");
      await run("check", local, ":webdav:tree", "--one-way");
      await run("check", ":webdav:tree", local, "--one-way");

      // Edit (the size changes: vendor other has no modification times to compare), move, delete.
      for (const rel of paths.slice(0, 10)) {
        await Deno.writeFile(join(local, rel), testBytes(777, rel.length), { append: true });
      }
      for (const rel of paths.slice(10, 20)) {
        await Deno.rename(join(local, rel), join(local, rel.replace(/\.bin$/, " moved.bin")));
      }
      for (const rel of paths.slice(20, 30)) await Deno.remove(join(local, rel));
      await Deno.remove(join(local, paths[999], "..", ".."), { recursive: true });
      await run("sync", local, ":webdav:tree");
      await run("check", local, ":webdav:tree", "--download");
      await run("check", ":webdav:tree", local, "--one-way");

      const listed = JSON.parse(
        (await run("lsjson", "-R", "--files-only", ":webdav:tree")).stdout,
      );
      const localSizes = new Map<string, number>();
      for await (const e of walk(local, "")) localSizes.set(e.rel, e.size);
      assert.equal(listed.length, localSizes.size);
      for (const f of listed) {
        assert.equal(f.Size, localSizes.get(f.Path), f.Path);
        const t = Date.parse(f.ModTime);
        assert.ok(t >= started && t <= Date.now() + 2000, `${f.Path}: ${f.ModTime}`);
      }
    }
  },
});

async function* walk(root: string, rel: string): AsyncGenerator<{ rel: string; size: number }> {
  for await (const e of Deno.readDir(join(root, rel))) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory) yield* walk(root, r);
    else yield { rel: r, size: (await Deno.stat(join(root, r))).size };
  }
}
