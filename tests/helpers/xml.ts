/**
 * A minimal, strict XML parser for tests (Deno has no DOMParser): elements, attributes, text,
 * the five predefined entities and character references, an optional declaration, comments.
 * Anything not well-formed (bare "&" or "<", mismatched tags, unquoted or repeated attributes,
 * text outside the root) throws, so a test that parses a document also checks its escaping.
 */
export interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  /** Concatenated text directly inside this element. */
  text: string;
}

const NAME = /^[A-Za-z_][\w.:-]*/;
const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decode(raw: string, where: number): string {
  if (/<|&(?!(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.test(raw)) {
    throw new Error(`unescaped "<" or "&" near offset ${where}`);
  }
  return raw.replace(/&(#x[0-9a-fA-F]+|#\d+|\w+);/g, (_, ref: string) => {
    if (ref.startsWith("#x")) return String.fromCodePoint(parseInt(ref.slice(2), 16));
    if (ref.startsWith("#")) return String.fromCodePoint(parseInt(ref.slice(1), 10));
    return ENTITIES[ref];
  });
}

export function parseXml(source: string): XmlNode {
  let i = 0;
  const skipMisc = () => {
    for (let guard = 0; guard < 1000; guard++) {
      const ws = /^\s*/.exec(source.slice(i))![0];
      i += ws.length;
      if (source.startsWith("<?", i)) {
        const end = source.indexOf("?>", i);
        if (end < 0) throw new Error("unterminated processing instruction");
        i = end + 2;
      } else if (source.startsWith("<!--", i)) {
        const end = source.indexOf("-->", i);
        if (end < 0) throw new Error("unterminated comment");
        i = end + 3;
      } else return;
    }
  };

  const parseElement = (depth: number): XmlNode => {
    if (depth > 100) throw new Error("nesting too deep");
    if (source[i] !== "<") throw new Error(`expected "<" at offset ${i}`);
    i++;
    const name = NAME.exec(source.slice(i))?.[0];
    if (!name) throw new Error(`bad element name at offset ${i}`);
    i += name.length;
    const node: XmlNode = { name, attrs: {}, children: [], text: "" };
    for (;;) {
      const ws = /^\s*/.exec(source.slice(i))![0];
      i += ws.length;
      if (source.startsWith("/>", i)) {
        i += 2;
        return node;
      }
      if (source[i] === ">") {
        i++;
        break;
      }
      if (ws === "") throw new Error(`expected whitespace before attribute at offset ${i}`);
      const m = /^([A-Za-z_][\w.:-]*)\s*=\s*("([^"]*)"|'([^']*)')/.exec(source.slice(i));
      if (!m) throw new Error(`bad attribute at offset ${i}`);
      if (m[1] in node.attrs) throw new Error(`repeated attribute ${m[1]}`);
      node.attrs[m[1]] = decode(m[3] ?? m[4], i);
      i += m[0].length;
    }
    for (;;) {
      const next = source.indexOf("<", i);
      if (next < 0) throw new Error(`unclosed element <${name}>`);
      node.text += decode(source.slice(i, next), i);
      i = next;
      if (source.startsWith("</", i)) {
        const close = new RegExp(`^</${name}\\s*>`).exec(source.slice(i));
        if (!close) throw new Error(`mismatched closing tag for <${name}> at offset ${i}`);
        i += close[0].length;
        return node;
      }
      if (source.startsWith("<!--", i)) {
        const end = source.indexOf("-->", i);
        if (end < 0) throw new Error("unterminated comment");
        i = end + 3;
        continue;
      }
      node.children.push(parseElement(depth + 1));
    }
  };

  skipMisc();
  const root = parseElement(0);
  skipMisc();
  if (i !== source.length) throw new Error(`content after the root element at offset ${i}`);
  return root;
}

/** The only child named `name` (throws when there is none or several). */
export function child(node: XmlNode, name: string): XmlNode {
  const found = node.children.filter((c) => c.name === name);
  if (found.length !== 1) {
    throw new Error(`<${node.name}> has ${found.length} <${name}> children, expected 1`);
  }
  return found[0];
}

/** Text of a descendant reached by a path of child names: textAt(doc, "lock", "owner"). */
export function textAt(node: XmlNode, ...path: string[]): string {
  return path.reduce((n, name) => child(n, name), node).text;
}
