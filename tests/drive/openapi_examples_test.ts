/**
 * Every example of the drive and public-link documents works against a fresh server, as "try it"
 * in the API reference (/api/external/v1/docs) sends it: path parameters, the required query and
 * header parameters, and the body (the media type's example, else one composed from every
 * property's example, optional ones included, as the viewer composes it).
 *
 * The examples name one small world, built here first in this order (and described in the drive
 * document's info.description):
 * - tenant 1; user 1 "alice" (the caller, whose API key "try it" uses) and user 2 "bob";
 * - alice's folder 1 "Reports" holding file 2 "Q1 report.docx" (two versions), her folder 3
 *   "Archive", shared with bob (share 1); bob's folder 4 "Team", shared with alice (share 2);
 * - alice's share links: folder 1 open to anyone with the link, who may download and upload
 *   (share 3), and her folder 5
 *   "Press kit" behind the password "s3cret" (share 4);
 * - the second version of file 2 is a real document (the shipped en-US template), so its `view`
 *   is a PDF preview; the thumbnail, last, is of an image uploaded right before it (MINTED).
 * Then the operations run in ORDER, so those that change the world (move, trash, delete) come
 * after those that need it as it was. Values the server mints (link and download tokens, upload
 * ids, change cursors) cannot be fixed examples: MINTED says what stands in for each.
 */
import assert from "node:assert/strict";
import sharp from "sharp";
import { withServer } from "../helpers/server.ts";
import { composeExample, deref } from "../helpers/openapi_examples.ts";
import { type ApiUser, shareFlags } from "../helpers/api.ts";
import { newTeam } from "../helpers/team.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** The operations of both documents, in the order they run. */
const ORDER = [
  // Public share-link API (before the drive examples move file 2 out of the linked folder).
  "getLink",
  "unlockLink",
  "listLinkItems",
  "downloadLinkFile",
  "downloadLinkZip",
  // Drive API.
  "listResources",
  "getResource",
  "createFolder",
  "renameFolder",
  "moveFolder",
  "createFolderDownloadToken",
  "downloadFolderZip",
  "createResourcesDownloadToken",
  "downloadResourcesZip",
  "createDocument",
  "uploadFile",
  "createFileDownloadToken",
  "downloadFile",
  "viewFile",
  "downloadFileWithToken",
  "listFileVersions",
  "downloadFileVersion",
  "restoreFileVersion",
  "deleteFileVersion",
  "renameFile",
  "moveFile",
  "copyFile",
  "searchResources",
  "searchUsersToShareWith",
  "getShareTypes",
  "createShare",
  "getShare",
  "updateShare",
  "replaceShareTargets",
  "listShareUsers",
  "searchShareUsers",
  "resolveShareLink",
  "deleteShare",
  "listSharedWithMe",
  "starShared",
  "unstarShared",
  "listStarred",
  "listRecent",
  "listPinnedFolders",
  "pinFolder",
  "unpinFolder",
  "tusOptions",
  "tusCreateUpload",
  "tusUploadOffset",
  "getUpload",
  "tusAppend",
  "tusTerminate",
  "getChangesCursor",
  "listChanges",
  "waitForChanges",
  "getWebOfficeInfo",
  "getWebOfficeContent",
  "lockWebOfficeDocument",
  "putWebOfficeContent",
  "unlockWebOfficeDocument",
  "copyFolder",
  "trashFile",
  "trashFolder",
  "listTrash",
  "restoreFromTrash",
  "deleteFromTrash",
  "emptyTrash",
  // Last: their image is uploaded just before them, which would shift the seqs the others expect.
  "fileThumbnail",
  "linkFileThumbnail",
  // Uploads through the open link (it grants cu): after the others, as they add a file.
  "linkTusCreateUpload",
  "linkTusUploadOffset",
  "linkUploadStatus",
  "linkTusAppend",
  "linkTusTerminate",
];

/** What the world built before the operations run hands them. */
interface World {
  alice: ApiUser;
  /** Link tokens: folder 1's open link, folder 5's password-protected one. */
  openLink: string;
  lockedLink: string;
  /** A change cursor from before the world was built, so the feed has changes to show. */
  cursor: string;
  /** Set by the operations that mint them, read by those that follow. */
  downloadToken?: string;
  uploadId?: string;
  /** The image the thumbnail example reads, uploaded just before it. */
  imageRs?: number;
}

/** Parameters whose value the server mints: what stands in for the example. */
const MINTED: Record<string, (w: World, operationId: string) => string | undefined> = {
  token: (w, op) => op === "unlockLink" ? w.lockedLink : w.openLink,
  dt: (w) => w.downloadToken!,
  uploadId: (w) => w.uploadId!,
  cursor: (w) => w.cursor,
  resourceSeq: (w, op) => op === "fileThumbnail" ? String(w.imageRs) : undefined,
  rs: (w, op) => op === "linkFileThumbnail" ? String(w.imageRs) : undefined,
};

async function buildWorld(server: Parameters<Parameters<typeof withServer>[0]>[0]) {
  const [alice, bob] = await newTeam(server, "alice", "bob");
  assert.deepEqual([alice.tenantId, alice.userSeq, bob.userSeq], [1, 1, 2]);
  const cursor = (await alice.call("GET", "/changes/cursor")).body.data.cursor;
  assert.equal(await alice.newFolder("Reports"), 1);
  assert.equal(await alice.newFile("Q1 report.docx", "first draft", 1), 2);
  const docx = await Deno.readFile(
    new URL("../../static/templates/en-US/blank.docx", import.meta.url),
  );
  const version = await alice.upload("Q1 report.docx", docx, { st: "version", rs: 2 });
  assert.equal(version.status, 201, JSON.stringify(version.body));
  assert.equal(await alice.newFolder("Archive"), 3);
  assert.equal(await bob.newFolder("Team"), 4);
  assert.equal((await alice.shareWith(3, bob)).shareSeq, 1);
  assert.equal((await bob.shareWith(4, alice, "ce", "cd", "cu")).shareSeq, 2);
  const open = await alice.newShare({ rs: 1, st: "PUBLIC_LINK", ...shareFlags("cd", "cu") });
  assert.equal(await alice.newFolder("Press kit"), 5);
  const locked = await alice.newShare({
    rs: 5,
    st: "PUBLIC_LINK",
    ...shareFlags("cd"),
    password: "s3cret",
  });
  assert.deepEqual([open.shareSeq, locked.shareSeq], [3, 4]);
  const tokenOf = (share: Json) => String(share.linkUrl).split("/").pop()!;
  return { alice, openLink: tokenOf(open), lockedLink: tokenOf(locked), cursor };
}

/** The request "try it" sends for one operation. */
function exampleRequest(
  doc: Json,
  base: string,
  path: string,
  method: string,
  op: Json,
  world: World,
): Request {
  const value = (p: Json) =>
    MINTED[p.name]?.(world, op.operationId) ?? String(p.example ?? p.schema?.example ?? "");
  const query = new URLSearchParams();
  const headers = new Headers();
  let url = path;
  for (const p of op.parameters ?? []) {
    if (p.in === "path") url = url.replace(`{${p.name}}`, encodeURIComponent(value(p)));
    else if (!p.required) continue;
    else if (p.in === "query") query.set(p.name, value(p));
    else if (p.in === "header") headers.set(p.name, value(p));
  }
  if (op.security?.length !== 0 && base.includes("/api/external/")) {
    headers.set("authorization", `Bearer ${world.alice.apiKey}`);
  }
  let body: BodyInit | undefined;
  const [type, media] = Object.entries<Json>(op.requestBody?.content ?? {})[0] ?? [];
  if (type === "application/json") {
    headers.set("content-type", type);
    body = JSON.stringify(media.example ?? composeExample(doc, media.schema));
  } else if (type === "multipart/form-data") {
    const form = new FormData();
    const schema = deref(doc, media.schema);
    for (const [name, property] of Object.entries<Json>(schema.properties)) {
      if (property.format === "binary") continue;
      const example = composeExample(doc, property);
      if (example !== undefined) form.append(name, String(example));
    }
    form.append("file", new Blob(["minutes of the meeting"]), "minutes.txt");
    body = form;
  } else if (type !== undefined && op.requestBody.required) {
    headers.set("content-type", type);
    body = new Uint8Array(Number(query.get("size") ?? 5));
  }
  const search = query.size > 0 ? `?${query}` : "";
  return new Request(`${base}${url}${search}`, { method: method.toUpperCase(), headers, body });
}

/** What an operation's answer gives the operations after it. */
async function learn(world: World, operationId: string, res: Response) {
  if (operationId.endsWith("DownloadToken")) {
    const link = (await res.clone().json()).data.linkUrl as string;
    world.downloadToken = new URL(link, "http://x").searchParams.get("dt")!;
  }
  if (operationId === "tusCreateUpload" || operationId === "linkTusCreateUpload") {
    world.uploadId = res.headers.get("location")!.split("/").pop()!;
  }
}

const DOCUMENTS = ["/public/v1/openapi.json", "/api/external/v1/openapi.json"];

Deno.test("every example of the drive and public documents succeeds on a fresh server", async () => {
  await withServer(async (server) => {
    const world: World = await buildWorld(server);
    const operations = new Map<string, () => Request>();
    for (const url of DOCUMENTS) {
      const doc = await (await fetch(`${server.url}${url}`)).json();
      const base = `${server.url}${doc.servers[0].url}`;
      for (const [path, item] of Object.entries<Json>(doc.paths)) {
        for (const [method, op] of Object.entries<Json>(item)) {
          operations.set(
            op.operationId,
            () => exampleRequest(doc, base, path, method, op, world),
          );
        }
      }
    }
    assert.deepEqual(
      [...operations.keys()].sort(),
      [...ORDER].sort(),
      "ORDER lists every operation of both documents once",
    );
    const failures: string[] = [];
    for (const operationId of ORDER) {
      if (operationId === "fileThumbnail") {
        const png = await sharp({
          create: { width: 640, height: 480, channels: 3, background: { r: 40, g: 90, b: 160 } },
        }).png().toBuffer();
        // In folder 1, so the open link's thumbnail example reads it too.
        world.imageRs = await world.alice.newFile("Q1 chart.png", new Uint8Array(png), 1);
      }
      const request = operations.get(operationId)!();
      const url = new URL(request.url);
      const res = await fetch(request);
      if (res.ok) await learn(world, operationId, res);
      const text = await res.text();
      if (!res.ok) {
        failures.push(`${operationId}: ${request.method} ${url.pathname} ${res.status} ${text}`);
      }
    }
    assert.deepEqual(failures, [], `${failures.length} examples failed:\n${failures.join("\n")}`);
  });
});

/**
 * The backslashes of `markdown` that a CommonMark renderer drops: one before ASCII punctuation
 * is an escape, outside code spans. ("\\\\" shows one backslash.)
 */
function lostBackslashes(markdown: string): string[] {
  const lost: string[] = [];
  const text = markdown.replace(/`[^`]*`/g, "");
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== "\\") continue;
    if (text[i + 1] === "\\") i++;
    else if (/[!-/:-@[-`{-~]/.test(text[i + 1] ?? "")) {
      lost.push(text.slice(Math.max(0, i - 20), i + 20));
    }
  }
  return lost;
}

Deno.test("no description of the three documents loses a backslash when rendered", async () => {
  assert.equal(lostBackslashes("no '/', '\\' here").length, 1);
  assert.equal(lostBackslashes("no `/`, `\\` here; C:\\\\x").length, 0);
  await withServer(async (server) => {
    const lost: string[] = [];
    const visit = (node: Json, where: string) => {
      if (Array.isArray(node)) node.forEach((n, i) => visit(n, `${where}[${i}]`));
      else if (node && typeof node === "object") {
        for (const [key, value] of Object.entries(node)) {
          if (key === "description" && typeof value === "string") {
            lost.push(...lostBackslashes(value).map((s) => `${where}: ...${s}...`));
          } else visit(value, `${where}.${key}`);
        }
      }
    };
    for (const url of [...DOCUMENTS, "/admin/api/openapi.json"]) {
      visit(await (await fetch(`${server.url}${url}`)).json(), url);
    }
    assert.deepEqual(lost, [], lost.join("\n"));
  });
});
