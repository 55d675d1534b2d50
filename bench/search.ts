/**
 * Search: query time in a drive of 1,000 resources against one of 100,000, both users in the
 * same KV store and measured in the same run, alternating request by request.
 *   deno run -A bench/search.ts [--small 1000] [--large 100000] [--ps 50] [--runs 40]
 * Seeding writes resource records straight through the tree's own write (newResource +
 * writeResource, which also writes the name tokens), 50 per commit: folders 3 levels deep and
 * file records without bytes (search never reads bytes). Names are drawn from a vocabulary, so
 * a common word ("report") is in about 15% of the names of either drive, "q3" in half; a rare
 * one ("zebra") is in exactly 30 of each. The measurement goes over HTTP against the real app (GET /search).
 * Target: every large-case median within 2x of the small case.
 */
import { newResource } from "../kv/tree/placement.ts";
import { type Resource, writeResource } from "../kv/tree/resources.ts";
import { startTestServer } from "../tests/helpers/server.ts";
import { type ApiUser, newApiUser } from "../tests/helpers/api.ts";
import { prng } from "../tests/helpers/bytes.ts";
import { alternatingMedians, numberArg } from "./lib.ts";

const SMALL = numberArg("small", 1_000);
const LARGE = numberArg("large", 100_000);
const PS = numberArg("ps", 50);
const RUNS = numberArg("runs", 40);
const RARE = 30;

const WORDS = [
  "budget",
  "plan",
  "notes",
  "meeting",
  "draft",
  "final",
  "invoice",
  "contract",
  "summary",
  "design",
  "photo",
  "scan",
  "minutes",
  "roadmap",
  "backlog",
  "memo",
  "review",
  "proposal",
  "schedule",
  "export",
];
const EXTENSIONS = [".docx", ".xlsx", ".pdf", ".png", ".txt", ".pptx"];

const server = await startTestServer({ blobStore: "kv" });
const d = server.deps;
const small = await newApiUser(server, "small-drive");
const large = await newApiUser(server, "large-drive");

/**
 * `n` resources in `user`'s drive: folders three levels deep (`fanout` per level) and files in
 * the lowest ones, so every hit has the same depth in both drives and path loads cost the same.
 */
async function seed(user: ApiUser, n: number, fanout: number) {
  const started = performance.now();
  const random = prng(user.userSeq);
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)];
  const rareAt = new Set(Array.from({ length: RARE }, (_, i) => Math.floor((i * n) / RARE)));
  let made = 0;
  let batch: Resource[] = [];
  const flush = async () => {
    const op = d.kv.atomic();
    for (const r of batch) writeResource(op, null, r, user.userSeq);
    const res = await op.commit();
    if (!res.ok) throw new Error("seed commit failed");
    batch = [];
  };
  const add = async (parentRs: number | null, folder: boolean) => {
    const words = [pick(WORDS), pick(WORDS)];
    if (random() < 0.5) words.push("q3");
    if (random() < 0.15) words.push("report");
    if (rareAt.has(made)) words.push("zebra");
    const name = `${words.join(" ")} ${made}${folder ? "" : pick(EXTENSIONS)}`;
    const rs = await d.ids.next("resource");
    batch.push(newResource({
      rs,
      ownerSeq: user.userSeq,
      tenantId: user.tenantId,
      parentRs,
      name,
      actorSeq: user.userSeq,
      content: folder ? null : { blobId: `bench-${rs}`, size: 1, sha256: "0".repeat(64) },
    }));
    made++;
    // A folder's children may share its commit: these records need no parent check.
    if (batch.length === 50) await flush();
    return rs;
  };
  let level: (number | null)[] = [null];
  for (let depth = 0; depth < 3; depth++) {
    const next: number[] = [];
    for (const parent of level) for (let i = 0; i < fanout; i++) next.push(await add(parent, true));
    level = next;
  }
  while (made < n) await add(pick(level) as number, false);
  if (batch.length > 0) await flush();
  const s = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`seeded ${n} resources (${fanout}^3 leaf folders) for ${user.accountId} in ${s} s`);
}

await seed(small, SMALL, 3);
await seed(large, LARGE, 10);

async function page(user: ApiUser, query: string): Promise<{ cursor: string | null; n: number }> {
  const res = await user.call("GET", `/search?ps=${PS}&${query}`);
  if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
  return { cursor: res.body.data.nextCursor, n: res.body.data.items.length };
}

/** The cursor after the first page of "report" hits. */
async function deepCursor(user: ApiUser): Promise<string> {
  const p = await page(user, "q=report");
  if (!p.cursor) throw new Error("expected a second page");
  return p.cursor;
}

const deep = new Map<ApiUser, string>([
  [small, await deepCursor(small)],
  [large, await deepCursor(large)],
]);
const cases: [string, (u: ApiUser) => string][] = [
  [`rare word ("zebra", ${RARE} hits)`, () => "q=zebra"],
  ["no hit", () => "q=nothinghere"],
  ['common word ("report"), first page', () => "q=report"],
  ["common word, page from a cursor", (u) => `q=report&cursor=${deep.get(u)}`],
  ['two words ("q3 rep")', () => "q=q3%20rep"],
  ['short prefix ("me": meeting, memo...)', () => "q=me"],
  ["common word, files of one type (q3, ft=pdf)", () => "q=q3&ft=pdf"],
  ["common word, folders only (q3, rt=FOLDER)", () => "q=q3&rt=FOLDER"],
];

console.log(`\nGET /search?ps=${PS}, median of ${RUNS} runs`);
console.log(`| case | ${SMALL} resources | ${LARGE} resources | ratio |`);
console.log("|---|---|---|---|");
let worst = 0;
for (const [name, query] of cases) {
  const counts = [(await page(small, query(small))).n, (await page(large, query(large))).n];
  const [s, l] = await alternatingMedians(
    () => page(small, query(small)),
    () => page(large, query(large)),
    RUNS,
  );
  worst = Math.max(worst, l / s);
  console.log(
    `| ${name} | ${s.toFixed(2)} ms (${counts[0]} hits) | ${l.toFixed(2)} ms (${
      counts[1]
    } hits) | ${(l / s).toFixed(2)}x |`,
  );
}
console.log(`\nworst ratio ${worst.toFixed(2)}x (target <= 2x): ${worst <= 2 ? "met" : "NOT met"}`);
await server.close();
