/**
 * XML for WebDAV: request bodies parsed by saxes (a maintained npm parser) with namespaces
 * resolved; a DOCTYPE is refused, so no entity is ever declared, expanded or fetched (saxes
 * knows only the five predefined entities and character references). Elements serialize back
 * self-contained, with their own namespace declarations (dead properties are stored that way).
 */
import { SaxesParser } from "saxes";

export const DAV_NS = "DAV:";
/** The drive's own properties (seq, permissions, owner): docs/webdav.md. */
export const DRIVE_NS = "urn:x-drive:dav";
const XMLNS_NS = "http://www.w3.org/2000/xmlns/";

export interface XmlAttr {
  ns: string;
  local: string;
  value: string;
}

export interface XmlElement {
  ns: string;
  local: string;
  attrs: XmlAttr[];
  children: (XmlElement | string)[];
}

export class XmlSyntaxError extends Error {}

/** Escapes text and attribute values. */
export function esc(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (ch) =>
      ch === "&"
        ? "&amp;"
        : ch === "<"
        ? "&lt;"
        : ch === ">"
        ? "&gt;"
        : ch === '"'
        ? "&quot;"
        : "&apos;",
  );
}

/** Escapes element text (quotes stay as they are: an ETag reads `"…"` in getetag). */
export const escText = (s: string): string =>
  s.replace(/[&<>]/g, (ch) => (ch === "&" ? "&amp;" : ch === "<" ? "&lt;" : "&gt;"));

/** Parses a whole document into its root element, or throws XmlSyntaxError. */
export function parseXml(text: string): XmlElement {
  const parser = new SaxesParser({ xmlns: true, position: false });
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  let failure: string | null = null;
  parser.on("error", (e) => {
    failure ??= e.message;
  });
  parser.on("doctype", () => {
    failure ??= "a DOCTYPE is not accepted (no entities are declared or expanded)";
  });
  parser.on("opentag", (tag) => {
    const attrs: XmlAttr[] = [];
    for (const a of Object.values(tag.attributes)) {
      const attr = a as {
        uri?: string;
        local?: string;
        name: string;
        value: string;
        prefix?: string;
      };
      if (attr.uri === XMLNS_NS || attr.name === "xmlns" || attr.prefix === "xmlns") continue;
      attrs.push({ ns: attr.uri ?? "", local: attr.local ?? attr.name, value: attr.value });
    }
    const el: XmlElement = { ns: tag.uri ?? "", local: tag.local ?? tag.name, attrs, children: [] };
    if (stack.length) stack[stack.length - 1].children.push(el);
    else root = el;
    stack.push(el);
  });
  parser.on("text", (t) => {
    if (stack.length) stack[stack.length - 1].children.push(t);
  });
  parser.on("cdata", (t) => {
    if (stack.length) stack[stack.length - 1].children.push(t);
  });
  parser.on("closetag", () => {
    stack.pop();
  });
  try {
    parser.write(text).close();
  } catch (e) {
    failure ??= e instanceof Error ? e.message : String(e);
  }
  if (failure) throw new XmlSyntaxError(failure);
  if (!root) throw new XmlSyntaxError("the body has no root element");
  return root;
}

export const isEl = (n: XmlElement | string): n is XmlElement => typeof n !== "string";

/** The child elements of `el`, optionally only those named `ns` `local`. */
export function elements(el: XmlElement, ns?: string, local?: string): XmlElement[] {
  return el.children.filter(isEl).filter((c) =>
    ns === undefined || (c.ns === ns && (local === undefined || c.local === local))
  );
}

export const textOf = (el: XmlElement): string =>
  el.children.map((c) => (typeof c === "string" ? c : textOf(c))).join("");

/** A property's name as one key: "{ns}local" (Clark notation). */
export const clark = (ns: string, local: string) => `{${ns}}${local}`;

/**
 * `el` as standalone XML: every namespace it or its descendants use is declared on it, with
 * prefixes of its own (an element in no namespace is unprefixed: no default namespace is ever
 * declared, so that stays right wherever it is embedded).
 */
export function serialize(el: XmlElement): string {
  const prefixes = new Map<string, string>();
  const collect = (e: XmlElement) => {
    if (e.ns && !prefixes.has(e.ns)) prefixes.set(e.ns, `z${prefixes.size}`);
    for (const a of e.attrs) {
      if (a.ns && !prefixes.has(a.ns)) prefixes.set(a.ns, `z${prefixes.size}`);
    }
    e.children.filter(isEl).forEach(collect);
  };
  collect(el);
  const decls = [...prefixes].map(([ns, p]) => ` xmlns:${p}="${esc(ns)}"`).join("");
  return write(el, prefixes, decls);
}

function write(e: XmlElement, prefixes: Map<string, string>, decls = ""): string {
  const name = e.ns ? `${prefixes.get(e.ns)}:${e.local}` : e.local;
  const attrs = e.attrs.map((a) =>
    ` ${a.ns ? `${prefixes.get(a.ns)}:` : ""}${a.local}="${esc(a.value)}"`
  ).join("");
  if (e.children.length === 0) return `<${name}${decls}${attrs}/>`;
  const inner = e.children.map((c) => (typeof c === "string" ? escText(c) : write(c, prefixes)))
    .join("");
  return `<${name}${decls}${attrs}>${inner}</${name}>`;
}

/** An empty element named `ns` `local`, standalone (for propname answers and status lists). */
export function emptyElement(ns: string, local: string): string {
  if (ns === DAV_NS) return `<D:${local}/>`;
  return ns ? `<z:${local} xmlns:z="${esc(ns)}"/>` : `<${local} xmlns=""/>`;
}
