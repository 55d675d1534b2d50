/**
 * Large listings take turns (Deps.listingTurns, DRIVE_LIST_CONCURRENCY): with one turn, however
 * many clients list a big folder at once, the service builds one page at a time and the others
 * wait; `drive_listings` on /metrics shows it, and every client gets its whole page.
 */
import assert from "node:assert/strict";
import { newApiUser } from "../helpers/api.ts";
import { withServer } from "../helpers/server.ts";

const FILES = 300;
const CLIENTS = 60;

function gauge(text: string, state: string): number {
  const m = new RegExp(`^drive_listings\\{state="${state}"\\} (\\d+)$`, "m").exec(text);
  return Number(m?.[1] ?? NaN);
}

Deno.test("drive folder pages listed by many clients at once are built one turn at a time", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const folder = await alice.newFolder("big");
    let made = 0;
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (made < FILES) await alice.newFile(`f-${made++}.txt`, "x", folder);
    }));

    // The first scrape counts the blob store: taken now, so the scrapes below are quick.
    await (await fetch(`${server.url}/metrics`)).text();
    let done = false;
    const listings = Promise.all(Array.from({ length: CLIENTS }, async () => {
      const res = await alice.fetch(`/resources?pfs=${folder}&ps=1000`);
      assert.equal(res.status, 200);
      return (await res.json()).data.items.length as number;
    })).finally(() => (done = true));
    // Scrape while the listings run: none ever builds beside another, and some wait.
    let mostBuilding = 0;
    let mostWaiting = 0;
    while (!done) {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      mostBuilding = Math.max(mostBuilding, gauge(text, "building"));
      mostWaiting = Math.max(mostWaiting, gauge(text, "waiting"));
    }
    assert.deepEqual(await listings, Array(CLIENTS).fill(FILES));
    const seen = `building at most ${mostBuilding}, waiting at most ${mostWaiting}`;
    assert.ok(mostBuilding <= 1 && mostWaiting >= 1, seen);
  }, { env: { DRIVE_LIST_CONCURRENCY: "1" } });
});
