/**
 * The state a fuzz run starts from, made through the public APIs: two tenants, users with keys
 * (one read-only), folders and files, a share with another user, a password link and an
 * organisation link, a pinned folder, download tokens, and storage provider adapters. The
 * generators draw "valid-looking" ids, tokens and names from it, so that requests reach the
 * code behind the checks and not only the validation in front of them.
 */
import fc from "./fast_check.ts";
import { type ApiUser, newApiUser, readOnlyKeyOf, shareFlags } from "../helpers/api.ts";
import { newTeam } from "../helpers/team.ts";
import { newProviderAdapter } from "../helpers/provider.ts";
import type { TestServer } from "../helpers/server.ts";
import { hostileString } from "./values.ts";

export interface FuzzAdapter {
  name: string;
  secret: string;
}

export interface World {
  server: TestServer;
  alice: ApiUser;
  bob: ApiUser;
  mallory: ApiUser;
  /** Alice through a key with only api:read. */
  aliceRead: ApiUser;
  userSeqs: number[];
  accountIds: string[];
  folders: number[];
  files: number[];
  shares: number[];
  pins: number[];
  linkTokens: string[];
  /** Access tokens of the password link (what its page gets for the right password). */
  linkAccess: string[];
  downloadTokens: string[];
  docIds: string[];
  keyIds: string[];
  /** Names that exist in the tree (provider paths are made of them). */
  names: string[];
  /** Adapters of Alice: all operations; read-only; list only; bound to a folder. */
  adapters: FuzzAdapter[];
}

async function ok<T>(what: string, p: Promise<{ status: number; body: T }>): Promise<T> {
  const r = await p;
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

async function downloadToken(user: ApiUser, path: string): Promise<string> {
  // deno-lint-ignore no-explicit-any
  const body: any = await ok(path, user.call("GET", path));
  return new URL(body.data.linkUrl, "http://x").searchParams.get("dt") ?? "";
}

export async function makeWorld(server: TestServer): Promise<World> {
  const [alice, bob] = await newTeam(server, "alice", "bob");
  const mallory = await newApiUser(server, "mallory");
  const aliceRead = await readOnlyKeyOf(server, alice);

  const reports = await alice.newFolder("Reports");
  const q1 = await alice.newFolder("Q1", reports);
  const pub = await alice.newFolder("Public");
  const aTxt = await alice.newFile("a.txt", "hello", reports);
  const bTxt = await alice.newFile("b.txt", "world", q1);
  const notes = await alice.newFile("notes.txt", "notes");
  const cafe = await alice.newFile("caf\u00e9.txt", "caf\u00e9");
  // deno-lint-ignore no-explicit-any
  const doc: any = await ok("document", alice.call("POST", "/documents", { tt: "word" }));
  const docx = doc.data.resourceSeq as number;
  const bobs = await bob.newFile("bob.txt", "bob");

  const toBob = await alice.shareWith(reports, bob, "ce", "cd", "cu", "cs");
  const link = await alice.newShare({
    rs: notes,
    st: "PUBLIC_LINK",
    ...shareFlags("cd"),
    password: "fuzz-secret",
  });
  const org = await alice.newShare({
    rs: pub,
    st: "ORG_LINK",
    ...shareFlags("cd"),
  });
  // deno-lint-ignore no-explicit-any
  const pin: any = await ok("pin", alice.call("POST", "/pinned-folders", { rs: reports }));

  const adapters: FuzzAdapter[] = [];
  const adapterOptions: [
    string,
    { readOnly?: boolean; operations?: string[]; folderSeq?: number },
  ][] = [
    ["fuzz-office", {}],
    ["fuzz-ro", { readOnly: true }],
    ["fuzz-list", { operations: ["list"] }],
    ["fuzz-folder", { folderSeq: reports }],
  ];
  for (const [name, opts] of adapterOptions) {
    const a = await newProviderAdapter(server, name, { userSeq: alice.userSeq, ...opts });
    adapters.push({ name: a.name, secret: a.secret });
  }
  // deno-lint-ignore no-explicit-any
  const keys: any = await ok("keys", server.admin.call("GET", "/keys"));
  const linkTokens = [link.linkUrl, org.linkUrl].map((u: string) => u.split("/s/")[1]);
  const access = await fetch(`${server.url}/public/v1/links/${linkTokens[0]}/access`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ password: "fuzz-secret" }),
  });
  // deno-lint-ignore no-explicit-any
  const accessBody: any = await access.json();
  if (access.status !== 200) throw new Error(`link access: ${JSON.stringify(accessBody)}`);

  return {
    server,
    alice,
    bob,
    mallory,
    aliceRead,
    userSeqs: [alice.userSeq, bob.userSeq, mallory.userSeq],
    accountIds: [alice.accountId, bob.accountId, mallory.accountId, "alice@example.com"],
    folders: [reports, q1, pub],
    files: [aTxt, bTxt, notes, cafe, docx, bobs],
    shares: [toBob.shareSeq, link.shareSeq, org.shareSeq],
    pins: [pin.data.pinnedFolderSeq],
    linkTokens,
    linkAccess: [accessBody.data.accessToken],
    downloadTokens: [
      await downloadToken(alice, `/files/${aTxt}/download-token`),
      await downloadToken(alice, `/folders/${reports}/download-token`),
    ],
    docIds: [`${alice.userSeq}-${docx}`, `${alice.userSeq}-${aTxt}`, `${bob.userSeq}-${bobs}`],
    keyIds: keys.items.map((k: { keyId: string }) => k.keyId),
    names: ["Reports", "Q1", "Public", "a.txt", "b.txt", "notes.txt", "caf\u00e9.txt"],
    adapters,
  };
}

/** A world id, or a near miss: one that does not exist, 0, or negative. */
function idOf(ids: number[]): fc.Arbitrary<number> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...ids) },
    { weight: 1, arbitrary: fc.constantFrom(...ids).map((n) => n + 1_000) },
    { weight: 1, arbitrary: fc.constantFrom(0, -1, 1, 2, 3, 9_007_199_254_740_991) },
  );
}

function textFrom(values: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...values) },
    { weight: 1, arbitrary: fc.constantFrom(...values).map((v) => v.slice(0, -1)) },
    { weight: 1, arbitrary: fc.constantFrom(...values).map((v) => `${v}x`) },
    { weight: 1, arbitrary: hostileString },
  );
}

/** Valid-looking values by field or parameter name. */
export function knownValues(w: World): (field: string) => fc.Arbitrary<unknown> | undefined {
  const resources = [...w.folders, ...w.files];
  const table: Record<string, fc.Arbitrary<unknown>> = {
    rs: idOf(resources),
    resourceSeq: idOf(resources),
    pfs: idOf(w.folders),
    folderSeq: idOf(w.folders),
    ss: idOf(w.userSeqs),
    us: idOf(w.userSeqs),
    ts: idOf(w.userSeqs),
    userSeq: idOf(w.userSeqs),
    loginUserSeq: idOf(w.userSeqs),
    tenantId: idOf([w.alice.tenantId, w.mallory.tenantId]),
    id: idOf([w.alice.tenantId, w.mallory.tenantId]),
    shareSeq: idOf(w.shares),
    pinnedFolderSeq: idOf(w.pins),
    token: textFrom(w.linkTokens),
    dt: textFrom(w.downloadTokens),
    docId: textFrom(w.docIds),
    user_id: textFrom(w.accountIds),
    sk: textFrom(["al", "bob", "a", "@", "%", "_"]),
    keyId: textFrom(w.keyIds),
    access: textFrom(w.linkAccess),
    "x-link-access": textFrom(w.linkAccess),
    name: textFrom([...w.adapters.map((a) => a.name), ...w.names]),
  };
  return (field) => table[field];
}
