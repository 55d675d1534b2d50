/**
 * How a file is previewed, from its name's extension (the listings carry no media type): what
 * the browser shows natively (images, PDF, audio, video), text shown as text, and office
 * documents through the server's rendered PDF. Pure, so it is tested without a page.
 */
export type PreviewKind = "image" | "pdf" | "text" | "audio" | "video" | "office";

const KINDS: Record<PreviewKind, string[]> = {
  // SVG can carry script: the view route sends it as text, so it is shown as text.
  image: ["png", "jpg", "jpeg", "gif", "webp", "avif", "bmp", "ico"],
  pdf: ["pdf"],
  text: [
    "txt",
    "md",
    "csv",
    "tsv",
    "log",
    "json",
    "xml",
    "svg",
    "html",
    "htm",
    "css",
    "js",
    "ts",
    "tsx",
    "jsx",
    "py",
    "rb",
    "go",
    "rs",
    "java",
    "c",
    "h",
    "cpp",
    "sh",
    "yaml",
    "yml",
    "toml",
    "ini",
    "conf",
    "sql",
  ],
  audio: ["mp3", "wav", "ogg", "oga", "m4a", "flac", "aac", "opus"],
  video: ["mp4", "webm", "ogv", "mov", "m4v"],
  office: ["docx", "xlsx", "pptx", "odt", "ods", "odp", "rtf", "doc", "xls", "ppt"],
};

const BY_EXTENSION: Readonly<Record<string, PreviewKind>> = Object.freeze(
  Object.fromEntries(
    Object.entries(KINDS).flatMap(([kind, exts]) => exts.map((e) => [e, kind as PreviewKind])),
  ),
);

/** The way `name` is previewed, or null when the browser cannot show it. */
export function previewKind(name: string): PreviewKind | null {
  const dot = name.lastIndexOf(".");
  if (dot < 0) return null;
  const ext = name.slice(dot + 1).toLowerCase();
  return Object.hasOwn(BY_EXTENSION, ext) ? BY_EXTENSION[ext] : null;
}

/** Text previews read at most this much; the rest is for the download. */
export const TEXT_CAP = 256 * 1024;
