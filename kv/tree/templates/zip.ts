/**
 * A minimal ZIP writer for the tiny OOXML template packages: deflated entries with sizes and
 * CRC in the local headers and no data descriptors, which is what Office writes itself and
 * what every OOXML reader accepts. (Folder downloads stream through client-zip instead; these
 * few KiB are built in memory.)
 */
import { crc32, deflateRawSync } from "node:zlib";

export interface ZipPart {
  /** Path inside the package, no leading "/". */
  name: string;
  text: string;
}

/** 2024-01-01 00:00 in MS-DOS form: fixed, so a template's bytes never change. */
const DOS_TIME = 0;
const DOS_DATE = ((2024 - 1980) << 9) | (1 << 5) | 1;
/** General-purpose flag bit 11: names are UTF-8. */
const UTF8_FLAG = 0x0800;

export function zipPackage(parts: ZipPart[]): Uint8Array {
  const enc = new TextEncoder();
  const chunks: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const part of parts) {
    const name = enc.encode(part.name);
    const raw = enc.encode(part.text);
    const deflated = new Uint8Array(deflateRawSync(raw));
    const stored = deflated.byteLength >= raw.byteLength;
    const data = stored ? raw : deflated;
    const crc = crc32(raw);
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true);
    local.setUint16(6, UTF8_FLAG, true);
    local.setUint16(8, stored ? 0 : 8, true);
    local.setUint16(10, DOS_TIME, true);
    local.setUint16(12, DOS_DATE, true);
    local.setUint32(14, crc, true);
    local.setUint32(18, data.byteLength, true);
    local.setUint32(22, raw.byteLength, true);
    local.setUint16(26, name.byteLength, true);
    local.setUint16(28, 0, true);
    const entry = new DataView(new ArrayBuffer(46));
    entry.setUint32(0, 0x02014b50, true);
    entry.setUint16(4, 20, true);
    entry.setUint16(6, 20, true);
    entry.setUint16(8, UTF8_FLAG, true);
    entry.setUint16(10, stored ? 0 : 8, true);
    entry.setUint16(12, DOS_TIME, true);
    entry.setUint16(14, DOS_DATE, true);
    entry.setUint32(16, crc, true);
    entry.setUint32(20, data.byteLength, true);
    entry.setUint32(24, raw.byteLength, true);
    entry.setUint16(28, name.byteLength, true);
    entry.setUint32(42, offset, true);
    chunks.push(new Uint8Array(local.buffer), name, data);
    central.push(new Uint8Array(entry.buffer), name);
    offset += 30 + name.byteLength + data.byteLength;
  }
  const centralSize = central.reduce((n, c) => n + c.byteLength, 0);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, parts.length, true);
  end.setUint16(10, parts.length, true);
  end.setUint32(12, centralSize, true);
  end.setUint32(16, offset, true);
  const all = [...chunks, ...central, new Uint8Array(end.buffer)];
  const out = new Uint8Array(all.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const c of all) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** The XML declaration every part starts with. */
export const XML_DECL = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

/** The package-level parts every OOXML template has: core and app properties. */
export function docProps(language: string, application: string): ZipPart[] {
  return [
    {
      name: "docProps/core.xml",
      text: XML_DECL +
        '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" ' +
        'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" ' +
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
        `<dc:language>${language}</dc:language></cp:coreProperties>`,
    },
    {
      name: "docProps/app.xml",
      text: XML_DECL +
        '<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties" ' +
        'xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes">' +
        `<Application>${application}</Application></Properties>`,
    },
  ];
}

export const CT = {
  rels: "application/vnd.openxmlformats-package.relationships+xml",
  core: "application/vnd.openxmlformats-package.core-properties+xml",
  app: "application/vnd.openxmlformats-officedocument.extended-properties+xml",
  theme: "application/vnd.openxmlformats-officedocument.theme+xml",
};

export const REL = {
  officeDocument:
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument",
  core: "http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties",
  app: "http://schemas.openxmlformats.org/officeDocument/2006/relationships/extended-properties",
  base: "http://schemas.openxmlformats.org/officeDocument/2006/relationships/",
};

/** [Content_Types].xml with the rels/xml defaults, the docProps overrides and `overrides`. */
export function contentTypes(overrides: Record<string, string>): ZipPart {
  const all = { ...overrides, "/docProps/core.xml": CT.core, "/docProps/app.xml": CT.app };
  return {
    name: "[Content_Types].xml",
    text: XML_DECL +
      '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      `<Default Extension="rels" ContentType="${CT.rels}"/>` +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      Object.entries(all).map(([part, type]) =>
        `<Override PartName="${part}" ContentType="${type}"/>`
      )
        .join("") +
      "</Types>",
  };
}

/** A .rels part: `rels` maps an id to [relationship type, target]. */
export function relationships(name: string, rels: Record<string, [string, string]>): ZipPart {
  return {
    name,
    text: XML_DECL +
      '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      Object.entries(rels).map(([id, [type, target]]) =>
        `<Relationship Id="${id}" Type="${type}" Target="${target}"/>`
      ).join("") +
      "</Relationships>",
  };
}

/** _rels/.rels: the main part plus the two property parts. */
export function packageRels(mainPart: string): ZipPart {
  return relationships("_rels/.rels", {
    rId1: [REL.officeDocument, mainPart],
    rId2: [REL.core, "docProps/core.xml"],
    rId3: [REL.app, "docProps/app.xml"],
  });
}
