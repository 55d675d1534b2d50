/** Small XML request bodies (PROPFIND, PROPPATCH): read within a cap, then parsed. */
import { concatBytes } from "../lib/bytes.ts";
import { DavError } from "./context.ts";
import { parseXml, type XmlElement, XmlSyntaxError } from "./xml.ts";

/** PROPFIND and PROPPATCH bodies are small XML; anything bigger is refused unread (413). */
export const XML_BODY_MAX = 64 * 1024;

/** The body as text, at most `max` bytes (413 past it, before reading on when Content-Length says so). */
export async function readCappedText(req: Request, max = XML_BODY_MAX): Promise<string> {
  const tooBig = () =>
    new DavError(413, `The request body may have at most ${max} bytes`, { code: "REQUEST_002" });
  if (Number(req.headers.get("content-length") ?? 0) > max) throw tooBig();
  if (!req.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of req.body) {
    size += chunk.byteLength;
    if (size > max) throw tooBig();
    chunks.push(chunk);
  }
  return new TextDecoder().decode(concatBytes(chunks));
}

/** The body's root element, or null for an empty body; 400 (DAV_002) when it is not XML. */
export async function readXmlBody(req: Request): Promise<XmlElement | null> {
  const text = await readCappedText(req);
  if (text.trim() === "") return null;
  try {
    return parseXml(text);
  } catch (err) {
    if (err instanceof XmlSyntaxError) {
      throw new DavError(400, `The body is not well-formed XML: ${err.message}`, {
        code: "DAV_002",
      });
    }
    throw err;
  }
}

/** Whether the request has a body (MKCOL refuses one: 415). */
export function hasBody(req: Request): boolean {
  const len = req.headers.get("content-length");
  if (len !== null) return Number(len) > 0;
  return req.headers.has("transfer-encoding");
}
