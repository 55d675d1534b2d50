/**
 * What the app says for the error codes a person meets while signing in (docs/errors.md has
 * every code): the single sign-on callback sends them as /signin?error=<code>.
 */
const SIGN_IN_MESSAGES: Record<string, string> = {
  OIDC_001: "That single sign-on is not set up (any more). Use another way to sign in.",
  OIDC_003: "That sign-in took too long or was already used. Please try again.",
  OIDC_004: "The identity provider could not be reached. Please try again later.",
  OIDC_005: "The identity provider's answer could not be verified, so you were not signed in.",
  OIDC_006: "The identity provider did not tell us your e-mail address or name.",
  OIDC_007: "Addresses of your e-mail domain may not sign in here.",
  OIDC_008: "Your e-mail address belongs to an account elsewhere on this server. Ask an " +
    "administrator.",
  OIDC_009: "Your organization signs in with single sign-on only: use its button below.",
  OIDC_010: "Single sign-on is misconfigured on this server. Ask an administrator.",
};

export function signInMessage(code: string): string {
  return SIGN_IN_MESSAGES[code] ?? `Signing in failed (${code}). Please try again.`;
}

export type Locale = "en" | "ko";
export const LOCALES: Record<Locale, string> = { en: "English", ko: "한국어" };

/** The file browser's words in English; KO below has the same keys (the type checks it). */
const EN = {
  myDrive: "My drive",
  myAccount: "My account",
  signOut: "Sign out",
  shared: "Shared with me",
  pinned: "Pinned",
  trash: "Trash",
  searchResults: "Search results",
  views: "Drive views",
  search: "Search",
  searchLabel: "Search your drive and what is shared with you",
  typeFilter: "Type",
  allTypes: "All types",
  FOLDER: "Folders",
  document: "Documents",
  spreadsheet: "Spreadsheets",
  presentation: "Presentations",
  pdf: "PDFs",
  image: "Images",
  note: "Notes",
  newFolder: "New folder",
  folderName: "Folder name",
  create: "Create",
  cancel: "Cancel",
  rename: "Rename",
  newName: "New name",
  moveToTrash: "Move to trash",
  restore: "Restore",
  deleteForever: "Delete forever",
  download: "Download",
  downloadZip: "Download as ZIP",
  name: "Name",
  size: "Size",
  modified: "Modified",
  trashedAt: "Trashed",
  owner: "Owner",
  where: "Folder",
  sortBy: "Sort by {0}",
  ascending: "ascending",
  descending: "descending",
  folder: "Folder",
  loading: "Loading…",
  empty: "Nothing here yet.",
  emptyTrash: "The trash is empty.",
  noHits: "Nothing matches.",
  items: "{0} items",
  oneItem: "1 item",
  more: "{0}+ items",
  selected: "{0} selected",
  files: "Files",
  breadcrumbs: "Folder path",
  trashed: "“{0}” moved to the trash.",
  trashedMany: "{0} items moved to the trash.",
  restored: "“{0}” restored.",
  purged: "“{0}” deleted for good.",
  confirmPurge: "Delete “{0}” for good? This cannot be undone.",
  created: "Folder “{0}” created.",
  renamed: "Renamed to “{0}”.",
  shortcuts: "Keyboard shortcuts",
  close: "Close",
  language: "Language",
  kArrows: "Move between items (Shift extends the selection)",
  kEnter: "Open the folder or download the file",
  kBackspace: "Go up one folder",
  kDelete: "Move the selection to the trash",
  kF2: "Rename",
  kSelectAll: "Select every loaded item",
  kSlash: "Search",
  kHelp: "Show this list",
  kEscape: "Cancel, clear the selection",
  kHomeEnd: "First or last item",
  up: "Up one folder",
  error: "Failed: {0}",
} as const;

export type MessageKey = keyof typeof EN;

const KO: Record<MessageKey, string> = {
  myDrive: "내 드라이브",
  myAccount: "내 계정",
  signOut: "로그아웃",
  shared: "공유 문서함",
  pinned: "고정됨",
  trash: "휴지통",
  searchResults: "검색 결과",
  views: "드라이브 보기",
  search: "검색",
  searchLabel: "내 드라이브와 공유받은 항목 검색",
  typeFilter: "유형",
  allTypes: "모든 유형",
  FOLDER: "폴더",
  document: "문서",
  spreadsheet: "스프레드시트",
  presentation: "프레젠테이션",
  pdf: "PDF",
  image: "이미지",
  note: "노트",
  newFolder: "새 폴더",
  folderName: "폴더 이름",
  create: "만들기",
  cancel: "취소",
  rename: "이름 바꾸기",
  newName: "새 이름",
  moveToTrash: "휴지통으로 이동",
  restore: "복원",
  deleteForever: "영구 삭제",
  download: "다운로드",
  downloadZip: "ZIP으로 다운로드",
  name: "이름",
  size: "크기",
  modified: "수정한 날짜",
  trashedAt: "삭제한 날짜",
  owner: "소유자",
  where: "위치",
  sortBy: "{0} 기준 정렬",
  ascending: "오름차순",
  descending: "내림차순",
  folder: "폴더",
  loading: "불러오는 중…",
  empty: "아직 아무것도 없습니다.",
  emptyTrash: "휴지통이 비어 있습니다.",
  noHits: "일치하는 항목이 없습니다.",
  items: "항목 {0}개",
  oneItem: "항목 1개",
  more: "항목 {0}개 이상",
  selected: "{0}개 선택됨",
  files: "파일",
  breadcrumbs: "폴더 경로",
  trashed: "“{0}”을(를) 휴지통으로 옮겼습니다.",
  trashedMany: "항목 {0}개를 휴지통으로 옮겼습니다.",
  restored: "“{0}”을(를) 복원했습니다.",
  purged: "“{0}”을(를) 영구 삭제했습니다.",
  confirmPurge: "“{0}”을(를) 영구 삭제할까요? 되돌릴 수 없습니다.",
  created: "“{0}” 폴더를 만들었습니다.",
  renamed: "이름을 “{0}”(으)로 바꿨습니다.",
  shortcuts: "키보드 단축키",
  close: "닫기",
  language: "언어",
  kArrows: "항목 사이 이동 (Shift로 선택 확장)",
  kEnter: "폴더 열기 또는 파일 다운로드",
  kBackspace: "상위 폴더로 이동",
  kDelete: "선택 항목을 휴지통으로 이동",
  kF2: "이름 바꾸기",
  kSelectAll: "불러온 항목 모두 선택",
  kSlash: "검색",
  kHelp: "이 목록 보기",
  kEscape: "취소, 선택 해제",
  kHomeEnd: "첫 항목 또는 마지막 항목",
  up: "상위 폴더",
  error: "실패: {0}",
};

const TABLES: Record<Locale, Record<MessageKey, string>> = { en: EN, ko: KO };

/** The browser's preferred language when we speak it, else English. */
export function preferredLocale(languages: readonly string[]): Locale {
  for (const l of languages) {
    const base = l.toLowerCase().split("-")[0];
    if (base === "ko" || base === "en") return base;
  }
  return "en";
}

/** `key` in `locale`, with {0}, {1}… replaced by `args`. */
export function translate(locale: Locale, key: MessageKey, ...args: (string | number)[]): string {
  return TABLES[locale][key].replace(/\{(\d)\}/g, (_, i) => `${args[Number(i)]}`);
}
