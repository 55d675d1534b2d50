/**
 * A small ZIP reader for tests: parses the end record (ZIP64 too), the central directory and
 * local headers, and returns each entry's bytes (stored or deflated, CRC-checked) so tests can
 * check what an archive really contains.
 */
import { crc32, inflateRawSync } from "node:zlib";

export interface ZipEntryInfo {
  name: string;
  isDirectory: boolean;
  /** General-purpose flag bit 11: the name is UTF-8. */
  utf8: boolean;
  /** 0 stored, 8 deflated. */
  method: number;
  crc32: number;
  size: number;
  compressedSize: number;
  /** True when any of this entry's sizes or offset came from a ZIP64 extra field. */
  zip64: boolean;
  /** The entry's bytes, CRC-checked. */
  data(): Uint8Array;
}

export interface ZipArchive {
  entries: ZipEntryInfo[];
  /** True when the archive has a ZIP64 end-of-central-directory record. */
  zip64: boolean;
  get(name: string): ZipEntryInfo;
  text(name: string): string;
}

const SIG = { local: 0x04034b50, central: 0x02014b50, end: 0x06054b50, end64: 0x06064b50 };
const LOCATOR64 = 0x07064b50;

function num(v: bigint): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error("ZIP value too large");
  return Number(v);
}

export function readZip(bytes: Uint8Array): ZipArchive {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = -1;
  for (let i = bytes.byteLength - 22; i >= Math.max(0, bytes.byteLength - 22 - 65535); i--) {
    if (view.getUint32(i, true) === SIG.end) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new Error("no end-of-central-directory record");
  let count = view.getUint16(end + 10, true);
  let cdSize = view.getUint32(end + 12, true);
  let cdOffset = view.getUint32(end + 16, true);
  let zip64 = false;
  if (end >= 20 && view.getUint32(end - 20, true) === LOCATOR64) {
    const at = num(view.getBigUint64(end - 20 + 8, true));
    if (view.getUint32(at, true) !== SIG.end64) throw new Error("bad ZIP64 end record");
    zip64 = true;
    count = num(view.getBigUint64(at + 32, true));
    cdSize = num(view.getBigUint64(at + 40, true));
    cdOffset = num(view.getBigUint64(at + 48, true));
  }
  if (cdOffset + cdSize > end) throw new Error("central directory outside the archive");
  const entries: ZipEntryInfo[] = [];
  let p = cdOffset;
  for (let n = 0; n < count; n++) {
    if (view.getUint32(p, true) !== SIG.central) throw new Error(`bad central entry ${n}`);
    const flags = view.getUint16(p + 8, true);
    const method = view.getUint16(p + 10, true);
    const crc = view.getUint32(p + 16, true);
    let compressedSize = view.getUint32(p + 20, true);
    let size = view.getUint32(p + 24, true);
    const nameLen = view.getUint16(p + 28, true);
    const extraLen = view.getUint16(p + 30, true);
    const commentLen = view.getUint16(p + 32, true);
    let offset = view.getUint32(p + 42, true);
    const nameBytes = bytes.subarray(p + 46, p + 46 + nameLen);
    const utf8 = (flags & 0x0800) !== 0;
    const name = new TextDecoder(utf8 ? "utf-8" : "latin1", { fatal: utf8 }).decode(nameBytes);
    let entryZip64 = false;
    // ZIP64 extra (0x0001): only the fields whose 32-bit value is 0xFFFFFFFF, in this order.
    for (let e = p + 46 + nameLen; e < p + 46 + nameLen + extraLen;) {
      const id = view.getUint16(e, true);
      const len = view.getUint16(e + 2, true);
      if (id === 0x0001) {
        let f = e + 4;
        const next = () => {
          const v = num(view.getBigUint64(f, true));
          f += 8;
          return v;
        };
        if (size === 0xffffffff) size = next();
        if (compressedSize === 0xffffffff) compressedSize = next();
        if (offset === 0xffffffff) offset = next();
        entryZip64 = true;
      }
      e += 4 + len;
    }
    p += 46 + nameLen + extraLen + commentLen;
    const at = offset;
    entries.push({
      name,
      isDirectory: name.endsWith("/"),
      utf8,
      method,
      crc32: crc,
      size,
      compressedSize,
      zip64: entryZip64,
      data() {
        if (view.getUint32(at, true) !== SIG.local) throw new Error(`bad local header: ${name}`);
        const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
        const raw = bytes.subarray(start, start + compressedSize);
        let out: Uint8Array;
        if (method === 0) out = raw;
        else if (method === 8) out = new Uint8Array(inflateRawSync(raw));
        else throw new Error(`unsupported method ${method}: ${name}`);
        if (out.byteLength !== size) throw new Error(`size mismatch: ${name}`);
        if ((crc32(out) >>> 0) !== crc) throw new Error(`CRC mismatch: ${name}`);
        return out;
      },
    });
  }
  const byName = new Map(entries.map((e) => [e.name, e]));
  return {
    entries,
    zip64,
    get(name) {
      const e = byName.get(name);
      if (!e) throw new Error(`no entry ${name}; have ${[...byName.keys()].join(", ")}`);
      return e;
    },
    text(name) {
      return new TextDecoder("utf-8", { fatal: true }).decode(this.get(name).data());
    },
  };
}
