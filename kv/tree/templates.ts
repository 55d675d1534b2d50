/**
 * Built-in templates for "create document": which shipped file under static/templates/ a new
 * document of each type starts as, and the name it gets, in Korean or US English. The files are
 * ordinary assets (a blank .docx, .xlsx, .pptx and an empty .txt per language); creating a
 * document copies one, byte for byte. The stored media type follows from the name's extension
 * (lib/mime.ts), as for any upload.
 */

export const TEMPLATE_TYPES = ["word", "excel", "ppt", "note"] as const;
type TemplateType = typeof TEMPLATE_TYPES[number];
type TemplateLanguage = "ko" | "en";

const TEMPLATE_NAMES: Record<TemplateLanguage, Record<TemplateType, string>> = {
  ko: {
    word: "새 문서.docx",
    excel: "새 스프레드시트.xlsx",
    ppt: "새 프레젠테이션.pptx",
    note: "새 노트.txt",
  },
  en: {
    word: "New Document.docx",
    excel: "New Spreadsheet.xlsx",
    ppt: "New Presentation.pptx",
    note: "New Note.txt",
  },
};

/**
 * Resolved against this module, not the working directory, so the files are found wherever the
 * process starts, on Deno Deploy and in a `deno compile --include static` binary.
 */
const TEMPLATE_DIR = new URL("../../static/templates/", import.meta.url);

/** Each language's folder under static/templates/ is named by its full locale tag. */
const LOCALE_DIRS: Record<TemplateLanguage, string> = { ko: "ko-KR", en: "en-US" };

const FILE_NAMES: Record<TemplateType, string> = {
  word: "blank.docx",
  excel: "blank.xlsx",
  ppt: "blank.pptx",
  note: "blank.txt",
};

/** Where the template file of `type` in `lang` is shipped. */
export function templateUrl(type: TemplateType, lang: TemplateLanguage): URL {
  return new URL(`${LOCALE_DIRS[lang]}/${FILE_NAMES[type]}`, TEMPLATE_DIR);
}

/**
 * The template language an Accept-Language header asks for: the highest-q tag (ties: the
 * earlier one) that is Korean ("ko", "ko-KR", ...) or English; anything else, "*", q=0 or no
 * header means English.
 */
export function pickTemplateLanguage(header: string | null | undefined): TemplateLanguage {
  let best: { lang: TemplateLanguage; q: number } | null = null;
  for (const part of (header ?? "").split(",")) {
    const [rawTag, ...params] = part.trim().split(";");
    const tag = rawTag.trim().toLowerCase();
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(p);
      if (m) q = Number(m[1]);
    }
    const lang = /^ko(-|$)/.test(tag) ? "ko" : /^en(-|$)/.test(tag) ? "en" : null;
    if (lang && q > 0 && q <= 1 && (!best || q > best.q)) best = { lang, q };
  }
  return best?.lang ?? "en";
}

/** A new document's starting content: its name, its byte count and its bytes. */
interface TemplateFile {
  name: string;
  size: number;
  /**
   * The file's bytes, opened only when iteration starts and closed when it ends or stops
   * early, so a request refused before reading (a full quota) holds no file open.
   */
  body: AsyncIterable<Uint8Array>;
}

/** The file a new document of `type` starts as. */
export async function templateFile(
  type: TemplateType,
  lang: TemplateLanguage,
): Promise<TemplateFile> {
  const url = templateUrl(type, lang);
  const { size } = await Deno.stat(url);
  return { name: TEMPLATE_NAMES[lang][type], size, body: readFile(url) };
}

async function* readFile(url: URL): AsyncGenerator<Uint8Array> {
  const file = await Deno.open(url);
  // The readable closes the file when it is drained or cancelled (leaving the loop early).
  for await (const chunk of file.readable) yield chunk;
}
