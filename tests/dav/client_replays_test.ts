/**
 * Replays of the request sequences macOS Finder and the Windows Mini-Redirector send to mount,
 * browse, copy a file in, rename and delete, after sabre.io's client notes
 * (https://sabre.io/dav/clients/finder/, https://sabre.io/dav/clients/windows/) and their
 * captured traffic: Finder's chunked PUT with X-Expected-Entity-Length, its AppleDouble `._*` and
 * `.DS_Store` files and repeated PROPFINDs, the LOCK it needs to mount read-write; Windows' LOCK
 * on a new name, 0-byte PUT, PROPPATCH of the Win32 times, PUT under the lock, UNLOCK, and its
 * quota PROPFIND (plain integers, or it reports "file too big").
 */
import assert from "node:assert/strict";
import { type ApiUser, newApiUser } from "../helpers/api.ts";
import { withServer } from "../helpers/server.ts";
import { basicOf, driveUrl } from "./client.ts";

interface Step {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | "chunked";
  expect: number | number[];
  /** Checks on the answer's body. */
  match?: RegExp;
  /** Keeps the Lock-Token for `{token}` in later headers. */
  keepToken?: boolean;
  anonymous?: boolean;
}

const FINDER_PROPS = `<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:prop>` +
  `<D:getlastmodified/><D:getcontentlength/><D:creationdate/><D:resourcetype/></D:prop></D:propfind>`;
const QUOTA_PROPS = `<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:prop>` +
  `<D:quota-available-bytes/><D:quota-used-bytes/></D:prop></D:propfind>`;
const LOCKINFO = (owner: string) =>
  `<?xml version="1.0" encoding="utf-8"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/>` +
  `</D:lockscope><D:locktype><D:write/></D:locktype><D:owner><D:href>${owner}</D:href></D:owner></D:lockinfo>`;
const WIN32_TIMES = `<?xml version="1.0" encoding="utf-8" ?><D:propertyupdate xmlns:D="DAV:" ` +
  `xmlns:Z="urn:schemas-microsoft-com:"><D:set><D:prop>` +
  `<Z:Win32CreationTime>Wed, 04 Mar 2026 09:00:00 GMT</Z:Win32CreationTime>` +
  `<Z:Win32LastAccessTime>Wed, 04 Mar 2026 09:00:00 GMT</Z:Win32LastAccessTime>` +
  `<Z:Win32LastModifiedTime>Wed, 04 Mar 2026 09:00:00 GMT</Z:Win32LastModifiedTime>` +
  `<Z:Win32FileAttributes>00000020</Z:Win32FileAttributes></D:prop></D:set></D:propertyupdate>`;

const FINDER_UA = { "user-agent": "WebDAVFS/3.0.0 (03008000) Darwin/23.0.0 (x86_64)" };
const WINDOWS_UA = { "user-agent": "Microsoft-WebDAV-MiniRedir/10.0.19045" };

/** A step sent under the lock a client took: its If header names the kept token. */
const underLock = (step: Omit<Step, "headers">): Step => ({
  ...step,
  headers: { if: "(<{token}>)" },
});

const FINDER: Step[] = [
  // Mount: OPTIONS without credentials first, then with them; PROPFINDs of the root.
  { method: "OPTIONS", path: "", expect: 401, anonymous: true },
  { method: "OPTIONS", path: "", expect: 200 },
  { method: "PROPFIND", path: "", headers: { depth: "0" }, body: FINDER_PROPS, expect: 207 },
  {
    method: "PROPFIND",
    path: "",
    headers: { depth: "0" },
    body: QUOTA_PROPS,
    expect: 207,
    match: /<D:quota-available-bytes>\d+</,
  },
  // Finder probes for its metadata files: all absent.
  ...["._.", ".hidden", ".DS_Store", ".Trashes", "Backups.backupdb", ".metadata_never_index"].map(
    (p): Step => ({
      method: "PROPFIND",
      path: p,
      headers: { depth: "0" },
      body: FINDER_PROPS,
      expect: 404,
    }),
  ),
  { method: "PROPFIND", path: "", headers: { depth: "1" }, body: FINDER_PROPS, expect: 207 },
  // Copy in "report.pdf": a 0-byte PUT, LOCK, the bytes chunked, the AppleDouble file, UNLOCK.
  { method: "PUT", path: "report.pdf", body: "", expect: 201 },
  {
    method: "LOCK",
    path: "report.pdf",
    headers: { depth: "0", timeout: "Second-600" },
    body: LOCKINFO("http://www.apple.com/webdav_fs/"),
    expect: 200,
    keepToken: true,
  },
  {
    method: "PUT",
    path: "report.pdf",
    headers: { if: "(<{token}>)", "x-expected-entity-length": "11" },
    body: "chunked",
    expect: [200, 204],
  },
  { method: "PUT", path: "._report.pdf", body: "appledouble", expect: 201 },
  {
    method: "PROPFIND",
    path: "report.pdf",
    headers: { depth: "0" },
    body: FINDER_PROPS,
    expect: 207,
    match: /<D:getcontentlength>11</,
  },
  { method: "UNLOCK", path: "report.pdf", headers: { "lock-token": "<{token}>" }, expect: 204 },
  { method: "PUT", path: ".DS_Store", body: "ds", expect: 201 },
  // Rename, then delete (and its AppleDouble file).
  {
    method: "MOVE",
    path: "report.pdf",
    headers: { destination: "{base}renamed.pdf" },
    expect: 201,
  },
  {
    method: "MOVE",
    path: "._report.pdf",
    headers: { destination: "{base}._renamed.pdf" },
    expect: 201,
  },
  {
    method: "PROPFIND",
    path: "",
    headers: { depth: "1" },
    body: FINDER_PROPS,
    expect: 207,
    match: /renamed\.pdf/,
  },
  { method: "DELETE", path: "renamed.pdf", expect: 204 },
  { method: "DELETE", path: "._renamed.pdf", expect: 204 },
  { method: "GET", path: "renamed.pdf", expect: 404 },
];

const WINDOWS: Step[] = [
  { method: "OPTIONS", path: "", expect: 401, anonymous: true },
  { method: "OPTIONS", path: "", expect: 200 },
  { method: "PROPFIND", path: "", headers: { depth: "0" }, expect: 207 },
  {
    method: "PROPFIND",
    path: "",
    headers: { depth: "0" },
    body: QUOTA_PROPS,
    expect: 207,
    match: /<D:quota-used-bytes>\d+<\/D:quota-used-bytes>/,
  },
  { method: "PROPFIND", path: "desktop.ini", headers: { depth: "0" }, expect: 404 },
  { method: "PROPFIND", path: "", headers: { depth: "1" }, expect: 207 },
  // Copy in "Budget.xlsx": LOCK the new name (an empty file), 0-byte PUT, Win32 times, the bytes.
  {
    method: "LOCK",
    path: "Budget.xlsx",
    headers: { timeout: "Second-3600" },
    body: LOCKINFO("DESKTOP\\user"),
    expect: 201,
    keepToken: true,
  },
  underLock({ method: "PUT", path: "Budget.xlsx", body: "", expect: [200, 204] }),
  underLock({
    method: "PROPPATCH",
    path: "Budget.xlsx",
    body: WIN32_TIMES,
    expect: 207,
    match: /200 OK/,
  }),
  underLock({ method: "PUT", path: "Budget.xlsx", body: "spreadsheet", expect: [200, 204] }),
  underLock({ method: "PROPPATCH", path: "Budget.xlsx", body: WIN32_TIMES, expect: 207 }),
  { method: "UNLOCK", path: "Budget.xlsx", headers: { "lock-token": "<{token}>" }, expect: 204 },
  { method: "HEAD", path: "Budget.xlsx", expect: 200 },
  { method: "GET", path: "Budget.xlsx", expect: 200 },
  // Rename (Overwrite: F) and delete.
  {
    method: "MOVE",
    path: "Budget.xlsx",
    headers: { destination: "{base}Budget 2026.xlsx", overwrite: "F" },
    expect: 201,
  },
  { method: "MKCOL", path: "New folder", expect: 201 },
  {
    method: "MOVE",
    path: "New folder",
    headers: { destination: "{base}Reports", overwrite: "F" },
    expect: 201,
  },
  { method: "DELETE", path: "Budget%202026.xlsx", expect: 204 },
  { method: "DELETE", path: "Reports", expect: 204 },
  { method: "PROPFIND", path: "", headers: { depth: "1" }, expect: 207 },
];

async function replay(user: ApiUser, steps: Step[], agent: Record<string, string>) {
  const base = driveUrl(user);
  let token = "";
  const fill = (v: string) => v.replaceAll("{token}", token).replaceAll("{base}", base);
  for (const [i, s] of steps.entries()) {
    const headers: Record<string, string> = { ...agent };
    for (const [k, v] of Object.entries(s.headers ?? {})) headers[k] = fill(v);
    if (!s.anonymous) headers.authorization = basicOf(user.accountId, user.apiKey);
    const body = s.body === "chunked"
      ? ReadableStream.from(["hello ", "world"].map((t) => new TextEncoder().encode(t)))
      : s.body ?? null;
    const res = await fetch(base + s.path, { method: s.method, headers, body });
    const text = await res.text();
    const want = Array.isArray(s.expect) ? s.expect : [s.expect];
    const what = `step ${i}: ${s.method} ${s.path}`;
    assert.ok(want.includes(res.status), `${what}: ${res.status} ${text}`);
    if (s.match) assert.match(text, s.match, what);
    if (s.keepToken) token = (res.headers.get("lock-token") ?? "").replace(/^<|>$/g, "");
  }
}

Deno.test("macOS Finder: mount, browse, copy in (chunked, AppleDouble), rename, delete", async () => {
  await withServer(async (server) => {
    await replay(await newApiUser(server, "mac"), FINDER, FINDER_UA);
  });
});

Deno.test("Windows Mini-Redirector: mount, LOCK + 0-byte PUT + Win32 PROPPATCH + PUT, rename, delete", async () => {
  await withServer(async (server) => {
    await replay(await newApiUser(server, "win"), WINDOWS, WINDOWS_UA);
  });
});
