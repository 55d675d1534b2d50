/**
 * An empty 16:9 presentation: one title slide on one "Title Slide" layout of one slide master
 * with a complete theme — the parts PowerPoint and LibreOffice need to open and edit it.
 */
import {
  contentTypes,
  CT,
  docProps,
  packageRels,
  REL,
  relationships,
  XML_DECL,
  type ZipPart,
} from "./zip.ts";
import type { TemplateLanguage } from "../templates.ts";

const NS = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" ' +
  'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" ' +
  'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"';
const PML = "application/vnd.openxmlformats-officedocument.presentationml";

const LOCALE = {
  ko: {
    lang: "ko-KR",
    title: "마스터 제목 스타일 편집",
    subtitle: "마스터 부제목 스타일 편집",
    body: "마스터 텍스트 스타일 편집",
    layout: "제목 슬라이드",
  },
  en: {
    lang: "en-US",
    title: "Click to edit Master title style",
    subtitle: "Click to edit Master subtitle style",
    body: "Click to edit Master text styles",
    layout: "Title Slide",
  },
};

const GROUP = '<p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr>' +
  '<p:grpSpPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/><a:chOff x="0" y="0"/>' +
  '<a:chExt cx="0" cy="0"/></a:xfrm></p:grpSpPr>';

function placeholder(o: {
  id: number;
  name: string;
  ph: string;
  xfrm?: [number, number, number, number];
  bodyPr?: string;
  lstStyle?: string;
  text?: string;
  lang: string;
}): string {
  const xfrm = o.xfrm
    ? `<p:spPr><a:xfrm><a:off x="${o.xfrm[0]}" y="${o.xfrm[1]}"/><a:ext cx="${o.xfrm[2]}" ` +
      `cy="${o.xfrm[3]}"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr>`
    : "<p:spPr/>";
  const run = o.text ? `<a:r><a:rPr lang="${o.lang}"/><a:t>${o.text}</a:t></a:r>` : "";
  return `<p:sp><p:nvSpPr><p:cNvPr id="${o.id}" name="${o.name}"/>` +
    `<p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr><p:nvPr>${o.ph}</p:nvPr></p:nvSpPr>${xfrm}` +
    `<p:txBody>${o.bodyPr ?? "<a:bodyPr/>"}<a:lstStyle>${o.lstStyle ?? ""}</a:lstStyle>` +
    `<a:p>${run}<a:endParaRPr lang="${o.lang}"/></a:p></p:txBody></p:sp>`;
}

const textFill = '<a:solidFill><a:schemeClr val="tx1"/></a:solidFill>';
const fonts = (kind: "mj" | "mn") =>
  `<a:latin typeface="+${kind}-lt"/><a:ea typeface="+${kind}-ea"/><a:cs typeface="+${kind}-cs"/>`;

const TX_STYLES = "<p:txStyles>" +
  '<p:titleStyle><a:lvl1pPr algn="l" defTabSz="914400" rtl="0" eaLnBrk="1" latinLnBrk="0" ' +
  'hangingPunct="1"><a:lnSpc><a:spcPct val="90000"/></a:lnSpc><a:spcBef><a:spcPct val="0"/>' +
  `</a:spcBef><a:buNone/><a:defRPr sz="4400" kern="1200">${textFill}${fonts("mj")}</a:defRPr>` +
  "</a:lvl1pPr></p:titleStyle>" +
  '<p:bodyStyle><a:lvl1pPr marL="228600" indent="-228600" algn="l" defTabSz="914400" rtl="0" ' +
  'eaLnBrk="1" latinLnBrk="0" hangingPunct="1"><a:lnSpc><a:spcPct val="90000"/></a:lnSpc>' +
  '<a:spcBef><a:spcPts val="1000"/></a:spcBef><a:buFont typeface="Arial"/><a:buChar char="•"/>' +
  `<a:defRPr sz="2800" kern="1200">${textFill}${fonts("mn")}</a:defRPr></a:lvl1pPr></p:bodyStyle>` +
  '<p:otherStyle><a:defPPr><a:defRPr lang="en-US"/></a:defPPr><a:lvl1pPr marL="0" algn="l" ' +
  'defTabSz="914400" rtl="0" eaLnBrk="1" latinLnBrk="0" hangingPunct="1">' +
  `<a:defRPr sz="1800" kern="1200">${textFill}${fonts("mn")}</a:defRPr></a:lvl1pPr>` +
  "</p:otherStyle></p:txStyles>";

const CLR_MAP = '<p:clrMap bg1="lt1" tx1="dk1" bg2="lt2" tx2="dk2" accent1="accent1" ' +
  'accent2="accent2" accent3="accent3" accent4="accent4" accent5="accent5" accent6="accent6" ' +
  'hlink="hlink" folHlink="folHlink"/>';

const line = (w: number) =>
  `<a:ln w="${w}" cap="flat" cmpd="sng" algn="ctr"><a:solidFill><a:schemeClr val="phClr"/>` +
  '</a:solidFill><a:prstDash val="solid"/><a:miter lim="800000"/></a:ln>';
const fill = (mod = "") =>
  `<a:solidFill><a:schemeClr val="phClr">${mod}</a:schemeClr></a:solidFill>`;
const srgb = (slot: string, hex: string) => `<a:${slot}><a:srgbClr val="${hex}"/></a:${slot}>`;
const themeFont = (latin: string) =>
  `<a:latin typeface="${latin}"/><a:ea typeface=""/><a:cs typeface=""/>` +
  '<a:font script="Hang" typeface="맑은 고딕"/>';

const THEME = XML_DECL +
  '<a:theme xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" name="Office Theme">' +
  '<a:themeElements><a:clrScheme name="Office">' +
  '<a:dk1><a:sysClr val="windowText" lastClr="000000"/></a:dk1>' +
  '<a:lt1><a:sysClr val="window" lastClr="FFFFFF"/></a:lt1>' +
  srgb("dk2", "44546A") + srgb("lt2", "E7E6E6") + srgb("accent1", "4472C4") +
  srgb("accent2", "ED7D31") + srgb("accent3", "A5A5A5") + srgb("accent4", "FFC000") +
  srgb("accent5", "5B9BD5") + srgb("accent6", "70AD47") + srgb("hlink", "0563C1") +
  srgb("folHlink", "954F72") + "</a:clrScheme>" +
  '<a:fontScheme name="Office">' +
  `<a:majorFont>${themeFont("Calibri Light")}</a:majorFont>` +
  `<a:minorFont>${themeFont("Calibri")}</a:minorFont></a:fontScheme>` +
  '<a:fmtScheme name="Office">' +
  `<a:fillStyleLst>${fill()}${fill('<a:tint val="50000"/>')}${fill('<a:shade val="80000"/>')}` +
  "</a:fillStyleLst>" +
  `<a:lnStyleLst>${line(6350)}${line(12700)}${line(19050)}</a:lnStyleLst>` +
  "<a:effectStyleLst>" + "<a:effectStyle><a:effectLst/></a:effectStyle>".repeat(3) +
  "</a:effectStyleLst>" +
  `<a:bgFillStyleLst>${fill()}${fill('<a:tint val="95000"/>')}${fill('<a:shade val="90000"/>')}` +
  "</a:bgFillStyleLst></a:fmtScheme></a:themeElements>" +
  "<a:objectDefaults/><a:extraClrSchemeLst/></a:theme>";

export function pptxParts(language: TemplateLanguage): ZipPart[] {
  const l = LOCALE[language];
  const lang = l.lang;
  return [
    contentTypes({
      "/ppt/presentation.xml": `${PML}.presentation.main+xml`,
      "/ppt/slideMasters/slideMaster1.xml": `${PML}.slideMaster+xml`,
      "/ppt/slideLayouts/slideLayout1.xml": `${PML}.slideLayout+xml`,
      "/ppt/slides/slide1.xml": `${PML}.slide+xml`,
      "/ppt/theme/theme1.xml": CT.theme,
      "/ppt/presProps.xml": `${PML}.presProps+xml`,
      "/ppt/viewProps.xml": `${PML}.viewProps+xml`,
      "/ppt/tableStyles.xml": `${PML}.tableStyles+xml`,
    }),
    packageRels("ppt/presentation.xml"),
    relationships("ppt/_rels/presentation.xml.rels", {
      rId1: [`${REL.base}slideMaster`, "slideMasters/slideMaster1.xml"],
      rId2: [`${REL.base}slide`, "slides/slide1.xml"],
      rId3: [`${REL.base}presProps`, "presProps.xml"],
      rId4: [`${REL.base}viewProps`, "viewProps.xml"],
      rId5: [`${REL.base}theme`, "theme/theme1.xml"],
      rId6: [`${REL.base}tableStyles`, "tableStyles.xml"],
    }),
    {
      name: "ppt/presentation.xml",
      text: XML_DECL + `<p:presentation ${NS} saveSubsetFonts="1">` +
        '<p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rId1"/></p:sldMasterIdLst>' +
        '<p:sldIdLst><p:sldId id="256" r:id="rId2"/></p:sldIdLst>' +
        '<p:sldSz cx="12192000" cy="6858000"/><p:notesSz cx="6858000" cy="9144000"/>' +
        `<p:defaultTextStyle><a:defPPr><a:defRPr lang="${lang}"/></a:defPPr></p:defaultTextStyle>` +
        "</p:presentation>",
    },
    relationships("ppt/slideMasters/_rels/slideMaster1.xml.rels", {
      rId1: [`${REL.base}slideLayout`, "../slideLayouts/slideLayout1.xml"],
      rId2: [`${REL.base}theme`, "../theme/theme1.xml"],
    }),
    {
      name: "ppt/slideMasters/slideMaster1.xml",
      text: XML_DECL + `<p:sldMaster ${NS}><p:cSld>` +
        '<p:bg><p:bgRef idx="1001"><a:schemeClr val="bg1"/></p:bgRef></p:bg>' +
        `<p:spTree>${GROUP}` +
        placeholder({
          id: 2,
          name: "Title Placeholder 1",
          ph: '<p:ph type="title"/>',
          xfrm: [838200, 365125, 10515600, 1325563],
          bodyPr: '<a:bodyPr vert="horz" lIns="91440" tIns="45720" rIns="91440" bIns="45720" ' +
            'rtlCol="0" anchor="ctr"><a:normAutofit/></a:bodyPr>',
          text: l.title,
          lang,
        }) +
        placeholder({
          id: 3,
          name: "Text Placeholder 2",
          ph: '<p:ph type="body" idx="1"/>',
          xfrm: [838200, 1825625, 10515600, 4351338],
          bodyPr: '<a:bodyPr vert="horz" lIns="91440" tIns="45720" rIns="91440" bIns="45720" ' +
            'rtlCol="0"><a:normAutofit/></a:bodyPr>',
          text: l.body,
          lang,
        }) +
        `</p:spTree></p:cSld>${CLR_MAP}` +
        '<p:sldLayoutIdLst><p:sldLayoutId id="2147483649" r:id="rId1"/></p:sldLayoutIdLst>' +
        `${TX_STYLES}</p:sldMaster>`,
    },
    relationships("ppt/slideLayouts/_rels/slideLayout1.xml.rels", {
      rId1: [`${REL.base}slideMaster`, "../slideMasters/slideMaster1.xml"],
    }),
    {
      name: "ppt/slideLayouts/slideLayout1.xml",
      text: XML_DECL + `<p:sldLayout ${NS} type="title" preserve="1">` +
        `<p:cSld name="${l.layout}"><p:spTree>${GROUP}` +
        placeholder({
          id: 2,
          name: "Title 1",
          ph: '<p:ph type="ctrTitle"/>',
          xfrm: [1524000, 1122363, 9144000, 2387600],
          bodyPr: '<a:bodyPr anchor="b"/>',
          lstStyle: '<a:lvl1pPr algn="ctr"><a:defRPr sz="6000"/></a:lvl1pPr>',
          text: l.title,
          lang,
        }) +
        placeholder({
          id: 3,
          name: "Subtitle 2",
          ph: '<p:ph type="subTitle" idx="1"/>',
          xfrm: [1524000, 3602038, 9144000, 1655762],
          lstStyle: '<a:lvl1pPr marL="0" indent="0" algn="ctr"><a:buNone/>' +
            '<a:defRPr sz="2400"/></a:lvl1pPr>',
          text: l.subtitle,
          lang,
        }) +
        "</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sldLayout>",
    },
    relationships("ppt/slides/_rels/slide1.xml.rels", {
      rId1: [`${REL.base}slideLayout`, "../slideLayouts/slideLayout1.xml"],
    }),
    {
      name: "ppt/slides/slide1.xml",
      text: XML_DECL + `<p:sld ${NS}><p:cSld><p:spTree>${GROUP}` +
        placeholder({ id: 2, name: "Title 1", ph: '<p:ph type="ctrTitle"/>', lang }) +
        placeholder({ id: 3, name: "Subtitle 2", ph: '<p:ph type="subTitle" idx="1"/>', lang }) +
        "</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sld>",
    },
    { name: "ppt/theme/theme1.xml", text: THEME },
    { name: "ppt/presProps.xml", text: XML_DECL + `<p:presentationPr ${NS}/>` },
    {
      name: "ppt/viewProps.xml",
      text: XML_DECL + `<p:viewPr ${NS}><p:gridSpacing cx="72008" cy="72008"/></p:viewPr>`,
    },
    {
      name: "ppt/tableStyles.xml",
      text: XML_DECL +
        '<a:tblStyleLst xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" ' +
        'def="{5C22544A-7EE6-4342-B048-85BDC9FD1C3A}"/>',
    },
    ...docProps(lang, "Microsoft Office PowerPoint"),
  ];
}
