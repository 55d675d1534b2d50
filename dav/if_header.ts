/**
 * The WebDAV If header (RFC 4918 section 10.4): parsed in full (untagged and tagged lists, Not,
 * state tokens in <…>, entity tags in […]) and evaluated against the state of the resources it
 * names. Pure: dav/locks.ts looks the states up and turns the answers into 400, 412 or 423.
 *
 *   If = ( 1*No-tag-list | 1*Tagged-list )
 *   Tagged-list = Resource-Tag 1*List        Resource-Tag = "<" Simple-ref ">"
 *   List = "(" 1*Condition ")"               Condition = ["Not"] (State-token | "[" entity-tag "]")
 *   State-token = "<" absolute-URI ">"       entity-tag = [ "W/" ] quoted-string
 */

export type IfCondition =
  | { not: boolean; token: string; etag?: undefined }
  | { not: boolean; etag: string; token?: undefined };

/** One list: all its conditions must hold. `resource` null: the request URI (untagged). */
export interface IfList {
  resource: string | null;
  conditions: IfCondition[];
}

/** A malformed If header (answered 400). */
export class IfHeaderError extends Error {}

/** Headers longer than this are refused rather than parsed (the lists are evaluated one by one). */
export const IF_HEADER_MAX = 16 * 1024;

/** Parses an If header value; throws IfHeaderError when it does not follow the grammar. */
export function parseIfHeader(value: string): IfList[] {
  if (value.length > IF_HEADER_MAX) throw new IfHeaderError("If header too long");
  const s = new Scanner(value);
  const lists: IfList[] = [];
  let tagged: boolean | null = null;
  let resource: string | null = null;
  s.skipSpace();
  if (s.done()) throw new IfHeaderError("Empty If header");
  while (!s.done()) {
    if (s.peek() === "<") {
      if (tagged === false) throw new IfHeaderError("Tagged and untagged lists mixed");
      tagged = true;
      resource = s.bracketed("<", ">");
      s.skipSpace();
      if (s.peek() !== "(") throw new IfHeaderError("A resource tag needs at least one list");
    } else if (s.peek() === "(") {
      if (tagged === null) tagged = false;
      lists.push({ resource: tagged ? resource : null, conditions: parseList(s) });
    } else {
      throw new IfHeaderError(`Unexpected "${s.peek()}" at ${s.pos}`);
    }
    s.skipSpace();
  }
  return lists;
}

function parseList(s: Scanner): IfCondition[] {
  s.expect("(");
  const conditions: IfCondition[] = [];
  for (s.skipSpace(); s.peek() !== ")"; s.skipSpace()) {
    if (s.done()) throw new IfHeaderError("Unclosed list");
    let not = false;
    if (s.startsWithWord("not")) {
      s.pos += 3;
      not = true;
      s.skipSpace();
    }
    if (s.peek() === "<") {
      const token = s.bracketed("<", ">");
      if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$/.test(token)) {
        throw new IfHeaderError(`State token <${token}> is not an absolute URI`);
      }
      conditions.push({ not, token });
    } else if (s.peek() === "[") {
      conditions.push({ not, etag: parseEntityTag(s) });
    } else {
      throw new IfHeaderError(`Expected a state token or an entity tag at ${s.pos}`);
    }
  }
  s.expect(")");
  if (conditions.length === 0) throw new IfHeaderError("Empty list");
  return conditions;
}

/** `[ W/"…" ]`: the entity tag as it appears in an ETag header. */
function parseEntityTag(s: Scanner): string {
  s.expect("[");
  s.skipSpace();
  const start = s.pos;
  if (s.text.startsWith("W/", s.pos)) s.pos += 2;
  s.expect('"');
  while (!s.done() && s.peek() !== '"') s.pos++;
  s.expect('"');
  const etag = s.text.slice(start, s.pos);
  s.skipSpace();
  s.expect("]");
  return etag;
}

class Scanner {
  pos = 0;
  constructor(readonly text: string) {}
  done() {
    return this.pos >= this.text.length;
  }
  peek() {
    return this.text[this.pos];
  }
  skipSpace() {
    while (!this.done() && /[ \t\r\n]/.test(this.peek())) this.pos++;
  }
  expect(ch: string) {
    if (this.peek() !== ch) throw new IfHeaderError(`Expected "${ch}" at ${this.pos}`);
    this.pos++;
  }
  startsWithWord(word: string) {
    const next = this.text.slice(this.pos, this.pos + word.length + 1);
    return next.slice(0, word.length).toLowerCase() === word && /[\s<[]/.test(next[word.length]);
  }
  /** The text between `open` and `close`, which may not contain spaces. */
  bracketed(open: string, close: string): string {
    this.expect(open);
    const end = this.text.indexOf(close, this.pos);
    if (end < 0) throw new IfHeaderError(`Unclosed "${open}" at ${this.pos - 1}`);
    const inner = this.text.slice(this.pos, end);
    if (inner === "" || /\s/.test(inner)) {
      throw new IfHeaderError(`Malformed "${open}…${close}" at ${this.pos - 1}`);
    }
    this.pos = end + 1;
    return inner;
  }
}

/** What the If header is checked against, for one resource. */
export interface IfResourceState {
  /** Its current ETag as the server sends it; null when it does not exist. */
  etag: string | null;
  /** The tokens of the locks that apply to it (on it, or on a folder above with depth infinity). */
  tokens: ReadonlySet<string>;
}

/** The resources an If header names: null stands for the request URI. */
export function resourcesOf(lists: IfList[]): (string | null)[] {
  return [...new Set(lists.map((l) => l.resource))];
}

/** Whether an entity tag condition matches (weak tags compare by their opaque part). */
function etagMatches(condition: string, current: string | null): boolean {
  if (current === null) return false;
  const opaque = (t: string) => t.startsWith("W/") ? t.slice(2) : t;
  return opaque(condition) === opaque(current);
}

function conditionHolds(c: IfCondition, state: IfResourceState): boolean {
  const holds = c.token !== undefined ? state.tokens.has(c.token) : etagMatches(c.etag, state.etag);
  return c.not ? !holds : holds;
}

/**
 * Evaluates the header: true when at least one list holds (RFC 4918 10.4.1), each list checked
 * against the resource it is tagged with, or the request URI. Also returns the lock tokens
 * submitted: every state token of a condition that holds, not negated, since only a token that
 * names a lock applying to its resource holds.
 */
export function evaluateIf(
  lists: IfList[],
  stateOf: (resource: string | null) => IfResourceState,
): { ok: boolean; submitted: Set<string> } {
  let ok = false;
  const submitted = new Set<string>();
  for (const list of lists) {
    const state = stateOf(list.resource);
    let all = true;
    for (const c of list.conditions) {
      const holds = conditionHolds(c, state);
      if (holds && !c.not && c.token !== undefined) submitted.add(c.token);
      all &&= holds;
    }
    ok ||= all;
  }
  return { ok, submitted };
}

/** Every state token the header names (for UNLOCK-free lookups and error messages). */
export function tokensOf(lists: IfList[]): string[] {
  return [...new Set(lists.flatMap((l) => l.conditions.flatMap((c) => c.token ?? [])))];
}
