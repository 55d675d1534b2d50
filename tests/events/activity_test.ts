/**
 * The activity log (GET /admin/api/activity) over HTTP, against two processes on one KV file:
 * changes, downloads of every kind, link opens and admin actions are recorded, and every filter
 * and the cursor paging select exactly the entries they name.
 */
import assert from "node:assert/strict";
import { AdminClient } from "../helpers/admin.ts";
import { retryBusy, withTwoProcesses } from "./helpers.ts";

// deno-lint-ignore no-explicit-any
type Entry = any;

/** Every entry matching `query`, page by page (newest first). */
async function allActivity(admin: AdminClient, query: string, ps = 50): Promise<Entry[]> {
  const out: Entry[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const sep = query ? "&" : "";
    const res = await admin.call(
      "GET",
      `/activity?${query}${sep}ps=${ps}${cursor ? `&cursor=${cursor}` : ""}`,
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    out.push(...res.body.items);
    cursor = res.body.nextCursor;
    if (!cursor) return out;
  }
  throw new Error("too many pages");
}

/** Waits (bounded) until the log holds `n` entries matching `query`. */
async function waitFor(admin: AdminClient, query: string, n: number): Promise<Entry[]> {
  for (let i = 0; i < 100; i++) {
    const items = await allActivity(admin, query);
    if (items.length >= n) return items;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`fewer than ${n} entries for ${query}`);
}

Deno.test("activity: changes, downloads, link opens and admin actions, with working filters", async () => {
  await withTwoProcesses(async ({ a, b, onB, newUser }) => {
    const admin = a.admin;
    const adminB = new AdminClient(b.url);
    const alice = await newUser("alice");
    const bob = await newUser("bob");
    const start = Date.now();
    const upload = async (user: typeof alice, name: string, text: string) => {
      const res = await retryBusy(() => user.upload(name, text));
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.data.resourceSeq as number;
    };
    const file = await upload(alice, "report.txt", "hello");
    const other = await upload(onB(bob), "bob.txt", "bob");

    // Downloads: direct (on B), by token, and through a public link; a link open.
    assert.equal(await onB(alice).fetch(`/files/${file}/download`).then((r) => r.text()), "hello");
    // A stored version's bytes are a download too.
    assert.equal(
      await alice.fetch(`/files/${file}/versions/1/download`).then((r) => r.text()),
      "hello",
    );
    // By token: a file, and a folder as a ZIP (the second request to the other process).
    const folder = await alice.newFolder("Docs");
    for (const path of [`/files/${file}/download-token`, `/folders/${folder}/download-token`]) {
      const token = await alice.call("GET", path);
      assert.equal(token.status, 200, JSON.stringify(token.body));
      const res = await fetch(`${b.url}${token.body.data.linkUrl}`);
      assert.equal(res.status, 200);
      await res.body?.cancel();
    }
    const link = await alice.newShare({
      rs: file,
      st: "PUBLIC_LINK",
      ...{ cv: true, ce: false, cd: true, cu: false, cs: false },
    });
    const linkToken = new URL(link.linkUrl).pathname.split("/").pop();
    await fetch(`${b.url}/public/v1/links/${linkToken}`).then((r) => r.body?.cancel());
    await fetch(`${a.url}/public/v1/links/${linkToken}/files/${file}/download`)
      .then((r) => r.body?.cancel());
    // An admin action on B.
    assert.equal(
      (await retryBusy(() =>
        adminB.call("POST", "/keys", { userSeq: bob.userSeq, scopes: ["api:read"] })
      )).status,
      201,
    );

    const downloads = await waitFor(admin, `kind=downloaded&rs=${file}`, 4);
    const vias = downloads.map((e: Entry) => e.detail.via).sort();
    assert.deepEqual(vias, ["direct", "link", "token", "version"]);
    const zip = await waitFor(admin, `kind=downloaded&rs=${folder}`, 1);
    assert.deepEqual(zip.map((e: Entry) => e.detail.via), ["zip"]);
    const direct = downloads.find((e: Entry) => e.detail.via === "direct");
    assert.equal(direct.actor.userSeq, alice.userSeq);
    assert.equal(typeof direct.actor.keyId, "string");
    const opens = await waitFor(admin, "kind=link_opened", 1);
    assert.equal(opens[0].resource.rs, file);
    assert.equal(typeof opens[0].actor.link, "string");
    // Bob's two keys (newUser's on A, this one on B), by action name and tenant.
    const issued = await waitFor(admin, `action=key_issued&tenantId=${bob.tenantId}`, 2);
    assert.equal(issued.length, 2, JSON.stringify(issued));
    const actions = await waitFor(admin, "kind=admin_action", 1);
    assert.ok(
      actions.some((e: Entry) =>
        e.detail.action === "key_issued" && e.detail.request === "POST /keys" &&
        e.detail.userSeq === bob.userSeq && e.tenantId === bob.tenantId
      ),
      JSON.stringify(actions),
    );
    assert.ok(actions.every((e: Entry) => e.actor.admin === true));

    // Filters: each entry matches, and the complement holds the rest.
    const everything = await allActivity(admin, "");
    const times = everything.map((e: Entry) => e.id);
    assert.deepEqual([...times].sort().reverse(), times, "newest first");
    const mine = await allActivity(admin, `userSeq=${alice.userSeq}`);
    assert.ok(mine.length > 0);
    assert.ok(
      mine.every((e: Entry) =>
        e.actor.userSeq === alice.userSeq || e.resource?.ownerSeq === alice.userSeq
      ),
    );
    assert.ok(!mine.some((e: Entry) => e.resource?.rs === other));
    const bobs = await allActivity(admin, `tenantId=${bob.tenantId}`);
    assert.deepEqual(
      bobs.filter((e: Entry) => e.kind !== "admin_action").map((e: Entry) =>
        `${e.kind}:${e.resource?.rs}`
      ),
      [`created:${other}`],
    );
    // The admin actions about bob's tenant carry it: made, his user, his keys (newest first).
    assert.deepEqual(
      bobs.filter((e: Entry) => e.kind === "admin_action").map((e: Entry) => e.detail.action),
      ["key_issued", "key_issued", "user_created", "tenant_created"],
    );
    const created = await allActivity(admin, "kind=created,downloaded");
    assert.ok(created.every((e: Entry) => e.kind === "created" || e.kind === "downloaded"));
    assert.ok(created.some((e: Entry) => e.kind === "created"));
    assert.deepEqual(
      await allActivity(
        admin,
        `from=${new Date(start - 3_600_000 * 2).toISOString()}&to=${
          new Date(start - 3_600_000).toISOString()
        }`,
      ),
      [],
    );
    const since = await allActivity(admin, `from=${new Date(start).toISOString()}`);
    assert.equal(since.length, everything.filter((e: Entry) => e.at >= start).length);
    // Paging: pages of 2 give the same entries as one page.
    assert.deepEqual(
      (await allActivity(admin, "", 2)).map((e: Entry) => e.id),
      everything.map((e: Entry) => e.id),
    );

    for (
      const bad of [
        "kind=nope",
        "action=POST /keys",
        "ps=0",
        "userSeq=x",
        "from=yesterday",
        "cursor=zz",
      ]
    ) {
      const res = await admin.call("GET", `/activity?${bad}`);
      assert.equal(res.status, 400, bad);
      assert.equal(res.body.error, "REQUEST_001", bad);
    }
  });
});
