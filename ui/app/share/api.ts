/**
 * The share dialog's client: share types, the resource's share, recipients and the recipient
 * search of /shares (docs/api.md, "Shares"), through the file browser's session.
 */
import { driveCall } from "../drive/api.ts";
import { drive } from "../store.ts";

export type ShareType = "SPECIFIC_USERS" | "ORG_LINK" | "PUBLIC_LINK";
export type Flag = "cv" | "ce" | "cd" | "cu" | "cs";
export type Flags = Record<Flag, boolean>;

export interface ShareTypes {
  editable: boolean;
  shareTypes: { code: ShareType; name: string; allowedPermissions: string[] }[];
  currentShareSeq: number | null;
  fixedType: ShareType | null;
}

export interface Person {
  userSeq: number;
  name: string;
  email: string;
}

export interface Recipient extends Person {
  permissions: Record<string, boolean>;
}

export interface Share {
  shareSeq: number;
  shareType: ShareType;
  permissions: Record<string, boolean>;
  isPasswordEnabled: boolean;
  expireDate: string | null;
  linkUrl: string | null;
  fileRequest: boolean;
  targets: Recipient[];
}

/** The policy permission that caps each flag (EDIT governs upload too, kv/sharing/shares.ts). */
export const FLAG_POLICY: Record<Flag, string> = {
  cv: "VIEW",
  ce: "EDIT",
  cd: "DOWNLOAD",
  cu: "EDIT",
  cs: "SHARE",
};

export const flagsOf = (p: Record<string, boolean>): Flags => ({
  cv: !!p.canView,
  ce: !!p.canEdit,
  cd: !!p.canDownload,
  cu: !!p.canUpload,
  cs: !!p.canShare,
});

const ssQuery = (ss?: number) => ss ? `?ss=${ss}` : "";

export interface ShareInput extends Flags {
  st: ShareType;
  ts?: (Flags & { us: number })[];
  password?: string | null;
  expireDate?: string | null;
  fileRequest?: boolean;
}

export const shareApi = {
  types: (rs: number, ss?: number) =>
    driveCall<ShareTypes>(drive, "GET", `/shares/${rs}/share-types${ssQuery(ss)}`),
  read: (shareSeq: number, ss?: number) =>
    driveCall<Share>(drive, "GET", `/shares/${shareSeq}${ssQuery(ss)}`),
  create: (rs: number, input: ShareInput) =>
    driveCall<Share>(drive, "POST", "/shares", { rs, ...input }),
  change: (shareSeq: number, input: ShareInput) =>
    driveCall<Share>(drive, "PATCH", `/shares/${shareSeq}`, input),
  setTargets: (shareSeq: number, ts: (Flags & { us: number })[], ss?: number) =>
    driveCall<Share>(drive, "PUT", `/shares/${shareSeq}/targets`, { ts, ...(ss ? { ss } : {}) }),
  remove: (shareSeq: number) => driveCall(drive, "DELETE", `/shares/${shareSeq}`),
  async search(sk: string, ss?: number): Promise<Person[]> {
    const q = new URLSearchParams({ sk });
    if (ss) q.set("ss", String(ss));
    return (await driveCall<{ items: Person[] }>(drive, "GET", `/shares/users/search?${q}`)).items;
  },
};
