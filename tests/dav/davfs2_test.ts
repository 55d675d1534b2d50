/**
 * A davfs2 mount of the drive (Linux's WebDAV file system over FUSE): a file written through the
 * mount arrives in the drive, a file put over WebDAV is read through it. Skipped with a message
 * where it cannot run: no /dev/fuse, no mount.davfs (apt-get install davfs2), not root, or a
 * davfs2 that cannot list a directory on this kernel (davfs2 1.6.1 speaks the FUSE protocol
 * itself, and on some kernels every readdir fails with EINVAL before any request is sent).
 */
import assert from "node:assert/strict";
import { withDavServer } from "./helpers.ts";

const exists = (p: string) => Deno.stat(p).then(() => true, () => false);

async function run(cmd: string, args: string[]): Promise<{ ok: boolean; text: string }> {
  const o = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "piped" }).output();
  const d = new TextDecoder();
  return { ok: o.success, text: d.decode(o.stdout) + d.decode(o.stderr) };
}

const why = !(await exists("/dev/fuse"))
  ? "no /dev/fuse"
  : !(await exists("/usr/sbin/mount.davfs") || await exists("/sbin/mount.davfs"))
  ? "mount.davfs is not installed (apt-get install davfs2)"
  : Deno.uid() !== 0
  ? "mounting needs root"
  : null;
if (why) console.log(`davfs2 mount test skipped: ${why}`);

Deno.test({
  name: "davfs2: write through the mount, read what WebDAV stored",
  ignore: why !== null,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "davfs2-" });
    const mnt = `${dir}/mnt`;
    await Deno.mkdir(mnt);
    try {
      await withDavServer("fs", async (server) => {
        const user = await server.newUser("tux");
        const put = await fetch(user.driveUrl + "hello.txt", {
          method: "PUT",
          headers: { authorization: user.basic },
          body: "hello from WebDAV",
        });
        assert.equal(put.status, 201);
        await Deno.writeTextFile(
          `${dir}/secrets`,
          `${user.driveUrl} ${user.accountId} ${user.key}\n`,
        );
        await Deno.chmod(`${dir}/secrets`, 0o600);
        await Deno.writeTextFile(`${dir}/davfs2.conf`, `secrets ${dir}/secrets\nuse_locks 1\n`);
        const mounted = await run("mount.davfs", [
          "-o",
          `conf=${dir}/davfs2.conf`,
          user.driveUrl,
          mnt,
        ]);
        assert.ok(mounted.ok, mounted.text);
        try {
          const listed = await run("ls", [mnt]);
          if (!listed.ok && /Invalid argument/.test(listed.text)) {
            console.log(
              `davfs2 mount test skipped: davfs2 cannot list on this kernel: ${listed.text}`,
            );
            return;
          }
          assert.match(listed.text, /hello\.txt/);
          assert.equal(await Deno.readTextFile(`${mnt}/hello.txt`), "hello from WebDAV");
          await Deno.writeTextFile(`${mnt}/from-linux.txt`, "written through davfs2");
        } finally {
          // davfs2 uploads what was written when it unmounts.
          await run("umount", [mnt]);
        }
        const got = await fetch(user.driveUrl + "from-linux.txt", {
          headers: { authorization: user.basic },
        });
        assert.equal(await got.text(), "written through davfs2");
      });
    } finally {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
