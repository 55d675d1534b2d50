/**
 * Built-in templates for "create document": a minimal, valid OOXML package (.docx, .xlsx,
 * .pptx) or an empty UTF-8 note, named in Korean or US English. The packages are generated
 * here (kv/templates/*.ts), deterministic, and built once per type and language.
 */
import { docxParts } from "./templates/docx.ts";
import { pptxParts } from "./templates/pptx.ts";
import { xlsxParts } from "./templates/xlsx.ts";
import { zipPackage } from "./templates/zip.ts";

export const TEMPLATE_TYPES = ["word", "excel", "ppt", "note"] as const;
export type TemplateType = typeof TEMPLATE_TYPES[number];
export type TemplateLanguage = "ko" | "en";

export const TEMPLATE_NAMES: Record<TemplateLanguage, Record<TemplateType, string>> = {
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

const cache = new Map<string, Uint8Array>();

function build(type: TemplateType, lang: TemplateLanguage): Uint8Array {
  switch (type) {
    case "word":
      return zipPackage(docxParts(lang));
    case "excel":
      return zipPackage(xlsxParts(lang));
    case "ppt":
      return zipPackage(pptxParts(lang));
    case "note":
      return new Uint8Array(0);
  }
}

/** The file a new document of `type` starts as. */
export function templateFile(
  type: TemplateType,
  lang: TemplateLanguage,
): { name: string; bytes: Uint8Array } {
  const key = `${type}:${lang}`;
  let bytes = cache.get(key);
  if (!bytes) cache.set(key, bytes = build(type, lang));
  return { name: TEMPLATE_NAMES[lang][type], bytes };
}
