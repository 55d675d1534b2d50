/**
 * Shared-with-me list: one page when 100 items are shared with the caller against one page when
 * 20,000 are, both users in the same KV store and measured in the same run.
 *   deno run -A bench/shared_list.ts [--small 100] [--large 20000] [--ps 50] [--runs 40]
 * Seeding uses the drive operations directly (files, so the hierarchy check stays cheap); the
 * measurement goes over HTTP against the real app: GET /shared first page (newest share first),
 * a page deep inside the list (from a cursor), and the first page sorted by name.
 * Target: every large-case median within 2x of the small case.
 */
import { storeGeneratedFile } from "../kv/tree/content.ts";
import { createShare } from "../kv/sharing/share_writes.ts";
import { startTestServer } from "../tests/helpers/server.ts";
import { newApiUser } from "../tests/helpers/api.ts";
import { alternatingMedians, numberArg } from "./lib.ts";

const SMALL = numberArg("small", 100);
const LARGE = numberArg("large", 20_000);
const PS = numberArg("ps", 50);
const RUNS = numberArg("runs", 40);

const server = await startTestServer({ blobStore: "kv" });
const d = server.deps;
const owner = await newApiUser(server, "owner");
const small = await newApiUser(server, "small-reader");
const large = await newApiUser(server, "large-reader");
const ownerCaller = { userSeq: owner.userSeq, tenantId: owner.tenantId };
const bytes = new TextEncoder().encode("x");

async function seed(reader: { userSeq: number }, n: number, prefix: string) {
  const started = performance.now();
  const one = async (i: number) => {
    const file = await storeGeneratedFile(d, {
      ownerSeq: owner.userSeq,
      parentRs: null,
      name: `${prefix}-${String(i).padStart(6, "0")}.txt`,
      bytes,
      actorSeq: owner.userSeq,
      onConflict: "fail",
      quotaCode: "RESOURCE_015",
      reason: "upload",
    });
    await createShare(d, ownerCaller, file.rs, {
      st: "SPECIFIC_USERS",
      ts: [{ us: reader.userSeq, cv: true, ce: false, cd: true, cu: false, cs: false }],
    });
  };
  for (let i = 0; i < n; i += 8) {
    await Promise.all(Array.from({ length: Math.min(8, n - i) }, (_, k) => one(i + k)));
  }
  console.log(
    `seeded ${n} shares for ${prefix} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

await seed(small, SMALL, "s");
await seed(large, LARGE, "l");

type Reader = typeof small;

async function page(user: Reader, query: string): Promise<{ cursor: string | null; n: number }> {
  const res = await user.call("GET", `/shared?ps=${PS}&${query}`);
  if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
  const c = res.body.data.cursor;
  return {
    cursor: c ? `ci=${c.ci}&cv=${encodeURIComponent(c.cv)}&ct=${c.ct}` : null,
    n: res.body.data.items.length,
  };
}

/** A cursor about halfway through the list (reached by following cursors). */
async function middleCursor(user: Reader, total: number): Promise<string> {
  const hops = Math.min(Math.floor(total / PS / 2), 20);
  let cursor = "";
  for (let i = 0; i < Math.max(hops, 1); i++) {
    const p = await page(user, cursor);
    cursor = p.cursor ?? cursor;
  }
  return cursor;
}

const cases: [string, (u: Reader, mid: string) => string][] = [
  ["first page, newest share first", () => ""],
  ["page from a cursor deep in the list", (_u, mid) => mid],
  ["first page sorted by name", () => "sb=name&so=asc"],
];
const mids = new Map<Reader, string>([
  [small, await middleCursor(small, SMALL)],
  [large, await middleCursor(large, LARGE)],
]);

console.log(`\nGET /shared?ps=${PS}, median of ${RUNS} runs`);
console.log(`| case | ${SMALL} items | ${LARGE} items | ratio |`);
console.log("|---|---|---|---|");
let worst = 0;
for (const [name, query] of cases) {
  const [s, l] = await alternatingMedians(
    () => page(small, query(small, mids.get(small)!)),
    () => page(large, query(large, mids.get(large)!)),
    RUNS,
  );
  worst = Math.max(worst, l / s);
  console.log(`| ${name} | ${s.toFixed(2)} ms | ${l.toFixed(2)} ms | ${(l / s).toFixed(2)}x |`);
}
console.log(`\nworst ratio ${worst.toFixed(2)}x (target <= 2x): ${worst <= 2 ? "PASS" : "FAIL"}`);
await server.close();
Deno.exit(worst <= 2 ? 0 : 1);
