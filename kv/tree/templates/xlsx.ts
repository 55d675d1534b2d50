/** An empty workbook: one empty sheet and the minimal style sheet Excel requires. */
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

const S = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const SML = "application/vnd.openxmlformats-officedocument.spreadsheetml";

const LOCALE = {
  ko: {
    lang: "ko-KR",
    font: '<sz val="11"/><name val="맑은 고딕"/><family val="2"/><charset val="129"/>',
  },
  en: {
    lang: "en-US",
    font: '<sz val="11"/><name val="Calibri"/><family val="2"/><scheme val="minor"/>',
  },
};

export function xlsxParts(language: TemplateLanguage): ZipPart[] {
  const l = LOCALE[language];
  return [
    contentTypes({
      "/xl/workbook.xml": `${SML}.sheet.main+xml`,
      "/xl/worksheets/sheet1.xml": `${SML}.worksheet+xml`,
      "/xl/styles.xml": `${SML}.styles+xml`,
    }),
    packageRels("xl/workbook.xml"),
    relationships("xl/_rels/workbook.xml.rels", {
      rId1: [`${REL.base}worksheet`, "worksheets/sheet1.xml"],
      rId2: [`${REL.base}styles`, "styles.xml"],
    }),
    {
      name: "xl/workbook.xml",
      text: XML_DECL +
        `<workbook xmlns="${S}" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">` +
        '<bookViews><workbookView xWindow="0" yWindow="0" windowWidth="16384" windowHeight="8192"/>' +
        '</bookViews><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>',
    },
    {
      name: "xl/worksheets/sheet1.xml",
      text: XML_DECL +
        `<worksheet xmlns="${S}"><dimension ref="A1"/>` +
        '<sheetViews><sheetView tabSelected="1" workbookViewId="0"/></sheetViews>' +
        '<sheetFormatPr defaultRowHeight="15"/><sheetData/></worksheet>',
    },
    {
      name: "xl/styles.xml",
      text: XML_DECL +
        `<styleSheet xmlns="${S}">` +
        `<fonts count="1"><font>${l.font}</font></fonts>` +
        '<fills count="2"><fill><patternFill patternType="none"/></fill>' +
        '<fill><patternFill patternType="gray125"/></fill></fills>' +
        '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
        '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
        '<cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs>' +
        '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
        "</styleSheet>",
    },
    ...docProps(l.lang, "Microsoft Excel"),
  ];
}
