/** An empty Word document: one empty paragraph, default styles, the language's page size. */
import {
  contentTypes,
  docProps,
  packageRels,
  REL,
  relationships,
  XML_DECL,
  type ZipPart,
} from "./zip.ts";
import type { TemplateLanguage } from "../templates.ts";

const W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
const WML = "application/vnd.openxmlformats-officedocument.wordprocessingml";

/** Korean documents default to A4 and Malgun Gothic 10 pt; US English to Letter and Calibri 11 pt. */
const LOCALE = {
  ko: { lang: "ko-KR", page: { w: 11906, h: 16838 }, font: "맑은 고딕", halfPoints: 20 },
  en: { lang: "en-US", page: { w: 12240, h: 15840 }, font: "Calibri", halfPoints: 22 },
};

export function docxParts(language: TemplateLanguage): ZipPart[] {
  const l = LOCALE[language];
  return [
    contentTypes({
      "/word/document.xml": `${WML}.document.main+xml`,
      "/word/styles.xml": `${WML}.styles+xml`,
      "/word/settings.xml": `${WML}.settings+xml`,
    }),
    packageRels("word/document.xml"),
    relationships("word/_rels/document.xml.rels", {
      rId1: [`${REL.base}styles`, "styles.xml"],
      rId2: [`${REL.base}settings`, "settings.xml"],
    }),
    {
      name: "word/document.xml",
      text: XML_DECL +
        `<w:document xmlns:w="${W}" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">` +
        "<w:body><w:p/><w:sectPr>" +
        `<w:pgSz w:w="${l.page.w}" w:h="${l.page.h}"/>` +
        '<w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="720" ' +
        'w:footer="720" w:gutter="0"/>' +
        "</w:sectPr></w:body></w:document>",
    },
    {
      name: "word/styles.xml",
      text: XML_DECL +
        `<w:styles xmlns:w="${W}">` +
        "<w:docDefaults><w:rPrDefault><w:rPr>" +
        `<w:rFonts w:ascii="${l.font}" w:eastAsia="${LOCALE.ko.font}" w:hAnsi="${l.font}" ` +
        `w:cs="${l.font}"/>` +
        `<w:sz w:val="${l.halfPoints}"/><w:szCs w:val="${l.halfPoints}"/>` +
        `<w:lang w:val="${l.lang}" w:eastAsia="ko-KR" w:bidi="ar-SA"/>` +
        "</w:rPr></w:rPrDefault>" +
        '<w:pPrDefault><w:pPr><w:spacing w:after="160" w:line="259" w:lineRule="auto"/></w:pPr>' +
        "</w:pPrDefault></w:docDefaults>" +
        '<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/>' +
        "<w:qFormat/></w:style>" +
        '<w:style w:type="character" w:default="1" w:styleId="DefaultParagraphFont">' +
        '<w:name w:val="Default Paragraph Font"/><w:uiPriority w:val="1"/><w:semiHidden/>' +
        "<w:unhideWhenUsed/></w:style>" +
        "</w:styles>",
    },
    {
      name: "word/settings.xml",
      text: XML_DECL +
        `<w:settings xmlns:w="${W}"><w:defaultTabStop w:val="720"/>` +
        '<w:characterSpacingControl w:val="doNotCompress"/>' +
        '<w:compat><w:compatSetting w:name="compatibilityMode" ' +
        'w:uri="http://schemas.microsoft.com/office/word" w:val="15"/></w:compat>' +
        `<w:themeFontLang w:val="${l.lang}" w:eastAsia="ko-KR"/>` +
        "</w:settings>",
    },
    ...docProps(l.lang, "Microsoft Office Word"),
  ];
}
