/**
 * One HTTP/1.1 request with a body written straight from the caller's buffer onto a connection of
 * its own (`Connection: close`), for the S3 client's part and object PUTs (blobs/s3_client.ts says
 * why fetch is not used for them: it copies every body twice). Only what those PUTs need: a
 * Content-Length body out, the status, headers and a small body (an S3 error document) back.
 */

/** An S3 answer is a few hundred bytes; anything past this is not read. */
const MAX_ANSWER = 64 * 1024;
const CRLF2 = new Uint8Array([13, 10, 13, 10]);

export interface SentAnswer {
  status: number;
  headers: Headers;
  /** The answer's body as text (an S3 error document, or empty). */
  text: string;
}

function indexOfSeq(bytes: Uint8Array, seq: Uint8Array): number {
  outer: for (let i = 0; i + seq.length <= bytes.length; i++) {
    for (let j = 0; j < seq.length; j++) if (bytes[i + j] !== seq[j]) continue outer;
    return i;
  }
  return -1;
}

async function connect(url: URL): Promise<Deno.Conn> {
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (url.protocol === "https:") {
    return await Deno.connectTls({ hostname, port: Number(url.port || 443) });
  }
  return await Deno.connect({ hostname, port: Number(url.port || 80) });
}

/** Reads the answer until its Content-Length is in, the peer closes, or MAX_ANSWER is reached. */
async function readAnswer(conn: Deno.Conn): Promise<SentAnswer | null> {
  let got = new Uint8Array(0);
  const chunk = new Uint8Array(16 * 1024);
  let headEnd = -1;
  let want = Infinity;
  while (got.length < Math.min(want, MAX_ANSWER)) {
    const n = await conn.read(chunk);
    if (n === null) break;
    const next = new Uint8Array(got.length + n);
    next.set(got);
    next.set(chunk.subarray(0, n), got.length);
    got = next;
    if (headEnd < 0) {
      headEnd = indexOfSeq(got, CRLF2);
      if (headEnd >= 0) {
        const length = /\r\ncontent-length: *(\d+)/i.exec(
          new TextDecoder().decode(got.subarray(0, headEnd + 2)),
        );
        if (length) want = headEnd + 4 + Number(length[1]);
      }
    }
  }
  if (headEnd < 0) return null;
  const [statusLine, ...lines] = new TextDecoder().decode(got.subarray(0, headEnd)).split("\r\n");
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!status) return null;
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const text = new TextDecoder().decode(got.subarray(headEnd + 4, Math.min(want, got.length)));
  return { status: Number(status[1]), headers, text };
}

/**
 * Sends `method url` with `headers` (signed, with their Content-Length) and `body`, written from
 * `body` itself. Throws when the connection fails before an answer came.
 */
export async function sendBytes(
  url: URL,
  method: string,
  headers: Headers,
  body: Uint8Array,
): Promise<SentAnswer> {
  let head = `${method} ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n` +
    "Connection: close\r\n";
  headers.forEach((value, name) => {
    if (name !== "host" && name !== "connection") head += `${name}: ${value}\r\n`;
  });
  const conn = await connect(url);
  try {
    try {
      const start = new TextEncoder().encode(`${head}\r\n`);
      for (let off = 0; off < start.length;) off += await conn.write(start.subarray(off));
      for (let off = 0; off < body.byteLength;) off += await conn.write(body.subarray(off));
    } catch (err) {
      // The server may have answered (and closed) before taking the whole body: its answer
      // says why (a 403, a 400); without one the write's own error stands.
      const early = await readAnswer(conn).catch(() => null);
      if (early) return early;
      throw err;
    }
    const answer = await readAnswer(conn);
    if (!answer) throw new Error(`S3 ${method}: the connection closed without an answer`);
    return answer;
  } finally {
    try {
      conn.close();
    } catch { /* already closed */ }
  }
}
