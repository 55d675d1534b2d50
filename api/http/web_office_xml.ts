/**
 * The XML document of the editor-session `info` endpoint (element names: docs/api.md, section
 * "Editor session"). Built by a tiny serializer so every text and attribute value goes through
 * one escaping function.
 */
import type { Permissions } from "../../kv/sharing/authorize.ts";
import type { Lock } from "../../kv/tree/locks.ts";
import { type Resource, toIso } from "../../kv/tree/resources.ts";
import type { User } from "../../kv/identity/users.ts";

interface XmlElement {
  name: string;
  attrs?: Record<string, string>;
  children?: (XmlElement | string)[];
}

/** Escapes the five XML specials and drops characters XML 1.0 cannot carry at all. */
function escapeXml(value: string): string {
  return value
    // deno-lint-ignore no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, "")
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "")
    .replace(
      /[&<>"']/g,
      (ch) => `&${{ "&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "apos" }[ch]};`,
    );
}

function serializeXml(el: XmlElement, indent = ""): string {
  const attrs = Object.entries(el.attrs ?? {}).map(([k, v]) => ` ${k}="${escapeXml(v)}"`).join("");
  const children = el.children ?? [];
  if (children.length === 0) return `${indent}<${el.name}${attrs}/>`;
  if (children.every((ch) => typeof ch === "string")) {
    return `${indent}<${el.name}${attrs}>${escapeXml(children.join(""))}</${el.name}>`;
  }
  const inner = children.map((ch) =>
    typeof ch === "string" ? `${indent}  ${escapeXml(ch)}` : serializeXml(ch, `${indent}  `)
  );
  return `${indent}<${el.name}${attrs}>\n${inner.join("\n")}\n${indent}</${el.name}>`;
}

const leaf = (name: string, value: string | number | boolean | null): XmlElement => ({
  name,
  children: value === null ? [] : [String(value)],
});

const group = (name: string, children: XmlElement[]): XmlElement => ({ name, children });

/**
 * A stable cursor color per user: hues a golden angle apart, so users with neighbouring seqs
 * get clearly different colors, at a lightness readable on white.
 */
export function cursorColor(userSeq: number): string {
  const hue = (userSeq * 137.508) % 360;
  const s = 0.65, l = 0.42;
  const a = s * Math.min(l, 1 - l);
  const channel = (n: number) => {
    const k = (n + hue / 30) % 12;
    const v = l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(v * 255).toString(16).padStart(2, "0");
  };
  return `#${channel(0)}${channel(8)}${channel(4)}`.toUpperCase();
}

interface InfoInput {
  docId: string;
  app: string;
  lang: string | null;
  resource: Resource;
  owner: User | null;
  user: User;
  permissions: Permissions;
  /** Whether this session may lock and save: edit permission on an EDITOR surface. */
  editable: boolean;
  lock: Lock | null;
  lockOwner: string;
}

function lockElement(lock: Lock | null, lockOwner: string): XmlElement {
  if (!lock) return { name: "lock", attrs: { locked: "false" } };
  return {
    name: "lock",
    attrs: { locked: "true" },
    children: [
      leaf("owner", lock.holder),
      leaf("source", lock.source),
      leaf("lockedByYou", lock.owner === lockOwner),
      leaf("lockedAt", toIso(lock.lockedAt)),
      leaf("expiresAt", lock.expiresAt === null ? null : toIso(lock.expiresAt)),
    ],
  };
}

export function infoXml(input: InfoInput): string {
  const { resource: r, permissions: p, user } = input;
  const doc = group("document", [
    leaf("docId", input.docId),
    leaf("fileName", r.name),
    leaf("size", r.size),
    leaf("revision", r.version),
    leaf("contentType", r.mime),
    leaf("sha256", r.sha256),
    leaf("createdAt", toIso(r.createdAt)),
    leaf("updatedAt", toIso(r.updatedAt)),
    group("owner", [
      leaf("userSeq", r.ownerSeq),
      leaf("userId", input.owner?.accountId ?? null),
      leaf("name", input.owner?.name ?? null),
    ]),
    leaf("app", input.app),
    leaf("lang", input.lang),
    group("permissions", [
      leaf("view", p.canView),
      leaf("edit", p.canEdit),
      leaf("download", p.canDownload),
      leaf("upload", p.canUpload),
      leaf("share", p.canShare),
      leaf("delete", p.canDelete),
    ]),
    leaf("editable", input.editable),
    lockElement(input.lock, input.lockOwner),
    group("collaborator", [
      leaf("userSeq", user.userSeq),
      leaf("userId", user.accountId),
      leaf("cursorName", user.name),
      leaf("cursorColor", cursorColor(user.userSeq)),
    ]),
  ]);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${serializeXml(doc)}\n`;
}
