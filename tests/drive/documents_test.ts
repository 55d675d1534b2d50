/**
 * POST /documents: each template type in Korean and English is the shipped file under
 * static/templates/, byte for byte, a valid OOXML package, and opens in LibreOffice (required
 * when CI is set); names collide like uploads; folders, shares, scopes and quota are checked.
 */
import assert from "node:assert/strict";
import { getUsage } from "../../kv/tree/usage.ts";
import { pickTemplateLanguage, TEMPLATE_TYPES, templateUrl } from "../../kv/tree/templates.ts";
import { withServer } from "../helpers/server.ts";
import { ApiUser, newApiUser, readOnlyKeyOf, shareFlags, uploadAs } from "../helpers/api.ts";
import { newTeam } from "../helpers/team.ts";
import { parseXml, type XmlNode } from "../helpers/xml.ts";
import { readZip, type ZipArchive } from "../helpers/zip_reader.ts";

/**
 * The names docs/api.md promises, read from its template table rather than from
 * kv/tree/templates.ts, so the code is held to what the document says.
 */
const NAMES = await promisedTemplateNames();

async function promisedTemplateNames() {
  const doc = await Deno.readTextFile(new URL("../../docs/api.md", import.meta.url));
  const names = { ko: {} as Record<string, string>, en: {} as Record<string, string> };
  for (const m of doc.matchAll(/^\| `(word|excel|ppt|note)` +\| `([^`]+)` +\| `([^`]+)` +\|/gm)) {
    names.ko[m[1]] = m[2];
    names.en[m[1]] = m[3];
  }
  assert.deepEqual(Object.keys(names.en).sort(), ["excel", "note", "ppt", "word"]);
  return names;
}

const CONTENT_TYPES = {
  word: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  excel: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  ppt: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  note: "text/plain; charset=utf-8",
} as const;

const MAIN_TYPES = {
  word: "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
  excel: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml",
  ppt: "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml",
} as const;

async function createDoc(
  user: ApiUser,
  body: Record<string, unknown>,
  acceptLanguage?: string,
) {
  return await user.call(
    "POST",
    "/documents",
    body,
    acceptLanguage === undefined ? {} : { "accept-language": acceptLanguage },
  );
}

async function download(user: ApiUser, rs: number): Promise<Uint8Array> {
  const res = await user.fetch(`/files/${rs}/download`);
  assert.equal(res.status, 200);
  return new Uint8Array(await res.arrayBuffer());
}

const descendants = (n: XmlNode): XmlNode[] => n.children.flatMap((c) => [c, ...descendants(c)]);

/** Resolves a relationship target against the part that holds the .rels. */
function resolveTarget(source: string, target: string): string {
  const base = source.split("/").slice(0, -1);
  for (const seg of target.split("/")) {
    if (seg === "..") base.pop();
    else if (seg !== ".") base.push(seg);
  }
  return base.join("/");
}

/**
 * Checks the package is consistent: every part parses as XML, every relationship target
 * exists, every part has a content type, and returns the relationships of each part.
 */
function checkPackage(zip: ZipArchive): Map<string, Map<string, string>> {
  const parts = new Set(zip.entries.map((e) => e.name));
  const xml = new Map<string, XmlNode>();
  for (const name of parts) xml.set(name, parseXml(zip.text(name)));
  const types = xml.get("[Content_Types].xml")!;
  const overrides = new Map(
    types.children.filter((c) => c.name === "Override").map((
      c,
    ) => [c.attrs.PartName, c.attrs.ContentType]),
  );
  const defaults = new Set(
    types.children.filter((c) => c.name === "Default").map((c) => c.attrs.Extension),
  );
  for (const name of parts) {
    if (name === "[Content_Types].xml") continue;
    const ext = name.split(".").at(-1)!;
    assert.ok(overrides.has(`/${name}`) || defaults.has(ext), `${name} has a content type`);
  }
  for (const part of overrides.keys()) assert.ok(parts.has(part.slice(1)), `${part} exists`);

  const rels = new Map<string, Map<string, string>>();
  for (const name of parts) {
    const m = /^(.*?)_rels\/([^/]+)\.rels$/.exec(name);
    if (!m) continue;
    const source = `${m[1]}${m[2]}`;
    const byId = new Map<string, string>();
    for (const r of xml.get(name)!.children) {
      assert.equal(r.name, "Relationship");
      const target = resolveTarget(source, r.attrs.Target);
      assert.ok(parts.has(target), `${name}: ${r.attrs.Target} -> ${target} exists`);
      assert.ok(!byId.has(r.attrs.Id), `${name}: ${r.attrs.Id} is unique`);
      byId.set(r.attrs.Id, target);
    }
    rels.set(source, byId);
  }
  // Every r:id a part uses names one of that part's relationships.
  for (const [name, node] of xml) {
    for (const el of [node, ...descendants(node)]) {
      for (const [attr, value] of Object.entries(el.attrs)) {
        if (attr === "r:id") {
          assert.ok(rels.get(name)?.has(value), `${name} <${el.name} r:id="${value}"> resolves`);
        }
      }
    }
  }
  return rels;
}

function mainPart(zip: ZipArchive): string {
  const root = parseXml(zip.text("_rels/.rels"));
  const office = root.children.find((r) => r.attrs.Type.endsWith("/officeDocument"))!;
  assert.ok(office, "_rels/.rels names the main part");
  return office.attrs.Target.replace(/^\//, "");
}

function typeOf(zip: ZipArchive, part: string): string {
  const types = parseXml(zip.text("[Content_Types].xml"));
  return types.children.find((c) => c.attrs.PartName === `/${part}`)?.attrs.ContentType ?? "";
}

Deno.test("every template type in both languages is a valid package with the localized name", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    for (const lang of ["ko", "en"] as const) {
      for (const tt of ["word", "excel", "ppt", "note"] as const) {
        const res = await createDoc(alice, { tt }, lang === "ko" ? "ko-KR,ko;q=0.9" : "en-US");
        assert.equal(res.status, 201, JSON.stringify(res.body));
        assert.equal(res.body.code, 201);
        assert.equal(res.body.data.userSeq, alice.userSeq);
        const rs = res.body.data.resourceSeq;
        const meta = await alice.call("GET", `/resources/${rs}`);
        assert.equal(meta.body.data.name, NAMES[lang][tt]);
        assert.equal(meta.body.data.parentSeq, null);
        const bytes = await download(alice, rs);
        assert.equal(meta.body.data.size, bytes.byteLength);
        assert.equal(meta.body.data.contentType, CONTENT_TYPES[tt]);
        assert.deepEqual(bytes, await Deno.readFile(templateUrl(tt, lang)), "the shipped file");
        if (tt === "note") {
          assert.equal(bytes.byteLength, 0);
          continue;
        }
        const zip = readZip(bytes);
        const rels = checkPackage(zip);
        const main = mainPart(zip);
        assert.equal(typeOf(zip, main), MAIN_TYPES[tt], `${tt} main part type`);
        const core = parseXml(zip.text("docProps/core.xml"));
        assert.equal(
          core.children.find((c) => c.name === "dc:language")?.text,
          `${lang}-${lang === "ko" ? "KR" : "US"}`,
        );
        if (tt === "word") checkDocx(zip, rels, lang);
        if (tt === "excel") checkXlsx(zip, rels);
        if (tt === "ppt") checkPptx(zip, rels, lang);
      }
    }
  });
});

function checkDocx(zip: ZipArchive, rels: Map<string, Map<string, string>>, lang: "ko" | "en") {
  const doc = parseXml(zip.text("word/document.xml"));
  assert.equal(doc.name, "w:document");
  const body = doc.children.find((c) => c.name === "w:body")!;
  const pgSz = descendants(body).find((c) => c.name === "w:pgSz")!;
  // A4 for Korean, US Letter for English (twentieths of a point).
  assert.deepEqual(
    [pgSz.attrs["w:w"], pgSz.attrs["w:h"]],
    lang === "ko" ? ["11906", "16838"] : ["12240", "15840"],
  );
  const targets = [...rels.get("word/document.xml")!.values()];
  assert.ok(targets.includes("word/styles.xml") && targets.includes("word/settings.xml"));
  const styles = parseXml(zip.text("word/styles.xml"));
  const langEl = descendants(styles).find((c) => c.name === "w:lang")!;
  assert.equal(langEl.attrs["w:val"], lang === "ko" ? "ko-KR" : "en-US");
}

function checkXlsx(zip: ZipArchive, rels: Map<string, Map<string, string>>) {
  const wb = parseXml(zip.text("xl/workbook.xml"));
  const sheets = descendants(wb).filter((c) => c.name === "sheet");
  assert.equal(sheets.length, 1);
  const sheetPart = rels.get("xl/workbook.xml")!.get(sheets[0].attrs["r:id"])!;
  assert.equal(sheetPart, "xl/worksheets/sheet1.xml");
  const ws = parseXml(zip.text(sheetPart));
  assert.ok(ws.children.some((c) => c.name === "sheetData"));
  const styles = parseXml(zip.text("xl/styles.xml"));
  for (const list of ["fonts", "fills", "borders", "cellXfs"]) {
    const el = styles.children.find((c) => c.name === list)!;
    assert.equal(Number(el.attrs.count), el.children.length, `${list} count`);
  }
}

function checkPptx(zip: ZipArchive, rels: Map<string, Map<string, string>>, lang: "ko" | "en") {
  const pres = parseXml(zip.text("ppt/presentation.xml"));
  const presRels = rels.get("ppt/presentation.xml")!;
  const masterId = descendants(pres).find((c) => c.name === "p:sldMasterId")!;
  assert.ok(Number(masterId.attrs.id) >= 2147483648, "master ids start at 2^31");
  const master = presRels.get(masterId.attrs["r:id"])!;
  const slideId = descendants(pres).find((c) => c.name === "p:sldId")!;
  const slide = presRels.get(slideId.attrs["r:id"])!;
  assert.ok(Number(slideId.attrs.id) >= 256);
  // slide -> layout -> master -> theme, and the master lists the layout with a larger id.
  const layout = [...rels.get(slide)!.values()].find((t) => t.includes("slideLayouts/"))!;
  assert.equal([...rels.get(layout)!.values()][0], master);
  const masterRels = rels.get(master)!;
  assert.ok([...masterRels.values()].some((t) => t === "ppt/theme/theme1.xml"));
  const masterXml = parseXml(zip.text(master));
  const layoutId = descendants(masterXml).find((c) => c.name === "p:sldLayoutId")!;
  assert.equal(masterRels.get(layoutId.attrs["r:id"]), layout);
  assert.ok(Number(layoutId.attrs.id) > Number(masterId.attrs.id));
  const titleText = descendants(masterXml).find((c) => c.name === "a:t")!.text;
  assert.equal(
    titleText,
    lang === "ko" ? "마스터 제목 스타일 편집" : "Click to edit Master title style",
  );
  const theme = parseXml(zip.text("ppt/theme/theme1.xml"));
  const clr = descendants(theme).find((c) => c.name === "a:clrScheme")!;
  assert.equal(clr.children.length, 12, "a complete color scheme");
  for (const list of ["a:fillStyleLst", "a:lnStyleLst", "a:effectStyleLst", "a:bgFillStyleLst"]) {
    assert.equal(descendants(theme).find((c) => c.name === list)!.children.length, 3, list);
  }
  const slideXml = parseXml(zip.text(slide));
  const phs = descendants(slideXml).filter((c) => c.name === "p:ph").map((c) => c.attrs.type);
  assert.deepEqual(phs, ["ctrTitle", "subTitle"]);
}

Deno.test("static/templates/ holds exactly the catalog's files, one per type and language", async () => {
  const root = new URL("../../static/templates/", import.meta.url);
  const shipped = new Set<string>();
  for await (const locale of Deno.readDir(root)) {
    assert.ok(locale.isDirectory, `${locale.name} is a locale folder`);
    for await (const file of Deno.readDir(new URL(`${locale.name}/`, root))) {
      shipped.add(new URL(`${locale.name}/${file.name}`, root).href);
    }
  }
  const catalog = new Set(
    (["ko", "en"] as const).flatMap((lang) =>
      TEMPLATE_TYPES.map((tt) => templateUrl(tt, lang).href)
    ),
  );
  assert.equal(catalog.size, 8, "no two types or languages share a file");
  assert.deepEqual(shipped, catalog);
});

Deno.test("Accept-Language: q-values pick Korean or English; anything else is English", () => {
  const cases: [string | undefined, "ko" | "en"][] = [
    [undefined, "en"],
    ["", "en"],
    ["ko", "ko"],
    ["ko-KR", "ko"],
    ["KO-kr;q=0.5", "ko"],
    ["en-US,ko;q=0.8", "en"],
    ["en;q=0.5, ko;q=0.9", "ko"],
    ["ko;q=0, en", "en"],
    ["ko;q=0", "en"],
    ["fr-FR, ko;q=0.2", "ko"],
    ["fr-FR, de", "en"],
    ["*", "en"],
    ["kok, en;q=0.1", "en"], // "kok" (Konkani) is not Korean
    ["ko;q=0.7, en;q=0.7", "ko"], // ties: the earlier one
    ["ko;q=abc", "ko"], // a malformed q is ignored (q=1)
  ];
  for (const [header, want] of cases) {
    assert.equal(pickTemplateLanguage(header), want, String(header));
  }
});

Deno.test("documents: names collide like duplicate; folders, shares and scopes are checked", async () => {
  await withServer(async (server) => {
    const [alice, bob, carol] = await newTeam(server, "alice", "bob", "carol");
    const names: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await createDoc(alice, { tt: "word" });
      names.push(
        (await alice.call("GET", `/resources/${res.body.data.resourceSeq}`)).body.data.name,
      );
    }
    assert.deepEqual(names, [
      "New Document.docx",
      "New Document (1).docx",
      "New Document (2).docx",
    ]);

    const folder = await alice.newFolder("Team");
    const inFolder = await createDoc(alice, { tt: "excel", pfs: folder }, "ko");
    assert.equal(inFolder.status, 201);
    const m = await alice.call("GET", `/resources/${inFolder.body.data.resourceSeq}`);
    assert.equal(m.body.data.parentSeq, folder);

    for (
      const body of [{}, { tt: "pdf" }, { tt: 1 }, { tt: "word", pfs: "x" }, { tt: "word", pfs: 0 }]
    ) {
      const res = await createDoc(alice, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.errorCode, "REQUEST_001");
    }
    const file = await uploadAs(server, alice, "f.txt", "f");
    assert.equal(
      (await createDoc(alice, { tt: "note", pfs: file })).body.errorCode,
      "RESOURCE_005",
    );
    assert.equal(
      (await createDoc(alice, { tt: "note", pfs: 999999 })).body.errorCode,
      "RESOURCE_002",
    );
    const notShared = await createDoc(bob, { tt: "note", pfs: folder, ss: alice.userSeq });
    assert.equal(notShared.status, 403);
    assert.equal(notShared.body.errorCode, "PERMISSION_002");

    await alice.newShare({
      rs: folder,
      st: "SPECIFIC_USERS",
      ts: [{ us: bob.userSeq, ...shareFlags("cu", "cd") }, { us: carol.userSeq, ...shareFlags() }],
    });
    const viewOnly = await createDoc(carol, { tt: "note", pfs: folder, ss: alice.userSeq });
    assert.equal(viewOnly.status, 403);
    assert.equal(viewOnly.body.errorCode, "PERMISSION_002");
    const byBob = await createDoc(bob, { tt: "ppt", pfs: folder, ss: alice.userSeq }, "ko-KR");
    assert.equal(byBob.status, 201, JSON.stringify(byBob.body));
    assert.equal(byBob.body.data.userSeq, alice.userSeq, "the folder's owner owns the document");
    const ssWithoutPfs = await createDoc(bob, { tt: "note", ss: alice.userSeq });
    assert.equal(ssWithoutPfs.body.errorCode, "REQUEST_001");

    const ro = await readOnlyKeyOf(server, alice);
    const refused = await createDoc(ro, { tt: "word" });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.errorCode, "AUTH_003");
  });
});

Deno.test("documents: a full quota answers QUOTA_003 and stores nothing", async () => {
  await withServer(async (server) => {
    const tiny = await newApiUser(server, "tiny", { quotaBytes: 1000 });
    const res = await createDoc(tiny, { tt: "ppt" });
    assert.equal(res.status, 403);
    assert.equal(res.body.errorCode, "QUOTA_003");
    assert.equal(await getUsage(server.kv, tiny.userSeq), 0);
    assert.deepEqual((await tiny.call("GET", "/resources")).body.data.items, []);
    // An empty note still fits.
    assert.equal((await createDoc(tiny, { tt: "note" })).status, 201);
  });
});

const soffice = (() => {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if (Deno.statSync(`${dir}/soffice`).isFile) return `${dir}/soffice`;
    } catch { /* not here */ }
  }
  return null;
})();

/** CI runs every check: there a missing soffice is a failure, never a skip. */
const inCI = !["", "0", "false"].includes(Deno.env.get("CI") ?? "");

/** LibreOffice's import filter and native format per template type. */
const LIBREOFFICE = {
  word: { filter: "MS Word 2007 XML", to: "odt" },
  excel: { filter: "Calc MS Excel 2007 XML", to: "ods" },
  ppt: { filter: "Impress MS PowerPoint 2007 XML", to: "odp" },
} as const;

Deno.test({
  name: "LibreOffice opens every shipped template and a document created from each" +
    (soffice === null && !inCI ? " (skipped: soffice is not installed)" : ""),
  ignore: soffice === null && !inCI,
  fn: async () => {
    if (soffice === null) {
      throw new Error(
        "CI is set but soffice is not on PATH: .ci/run installs LibreOffice for this test",
      );
    }
    await withServer(async (server) => {
      const alice = await newApiUser(server, "alice");
      const dir = await Deno.makeTempDir({ prefix: "drive-lo-" });
      try {
        for (const tt of ["word", "excel", "ppt"] as const) {
          // The shipped file and one created through the API, in each language: one soffice
          // run per type, since the import filter is per run.
          const inputs: { file: string; lang: "ko" | "en" }[] = [];
          const ext = NAMES.en[tt].split(".").pop();
          for (const lang of ["ko", "en"] as const) {
            const shipped = `${dir}/shipped-${lang}-${tt}.${ext}`;
            await Deno.copyFile(templateUrl(tt, lang), shipped);
            const res = await createDoc(alice, { tt }, lang);
            assert.equal(res.status, 201, JSON.stringify(res.body));
            const created = `${dir}/created-${lang}-${tt}.${ext}`;
            await Deno.writeFile(created, await download(alice, res.body.data.resourceSeq));
            inputs.push({ file: shipped, lang }, { file: created, lang });
          }
          const lo = LIBREOFFICE[tt];
          const out = await new Deno.Command(soffice, {
            args: [
              `-env:UserInstallation=file://${dir}/profile`,
              "--headless",
              `--infilter=${lo.filter}`,
              "--convert-to",
              lo.to,
              "--outdir",
              dir,
              ...inputs.map((i) => i.file),
            ],
            stdout: "piped",
            stderr: "piped",
          }).output();
          for (const { file, lang } of inputs) {
            const converted = file.replace(/\.\w+$/, `.${lo.to}`);
            const odf = readZip(
              await Deno.readFile(converted).catch(() => {
                throw new Error(
                  `soffice could not load ${file}: ${new TextDecoder().decode(out.stdout)} ` +
                    new TextDecoder().decode(out.stderr),
                );
              }),
            );
            checkOpenDocument(tt, lang, odf);
          }
        }
      } finally {
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    });
  },
});

/** What LibreOffice made of a template: the page size, the sheet, the localized master text. */
function checkOpenDocument(tt: "word" | "excel" | "ppt", lang: "ko" | "en", odf: ZipArchive) {
  const styles = odf.text("styles.xml");
  const content = odf.text("content.xml");
  if (tt === "word") {
    assert.match(styles, lang === "ko" ? /fo:page-width="8\.26\d*in"/ : /fo:page-width="8\.5in"/);
  }
  if (tt === "excel") assert.match(content, /table:name="Sheet1"/);
  if (tt === "ppt") {
    assert.match(content, /<draw:page [^>]*draw:master-page-name=/);
    assert.ok(
      styles.includes(
        lang === "ko" ? "마스터 제목 스타일 편집" : "Click to edit Master title style",
      ),
    );
  }
}
