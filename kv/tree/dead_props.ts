/**
 * WebDAV dead properties (RFC 4918 4.3, PROPPATCH): any property a client sets that the server
 * does not compute, kept per resource as the property element's standalone XML.
 *   ["dav_prop", rs, namespace, localName] -> DeadProp
 *   ["dav_prop_idx", ownerSeq, rs]         -> DeadPropMark (rs has dead properties: a listing reads
 *                                             the owner's marks once instead of one scan a member)
 * Limits: MAX_DEAD_PROPS per resource, MAX_DEAD_PROP_BYTES each (DAV_001, answered 507). They are
 * keyed by the resource seq, so a rename or move keeps them; a copy copies them; a purge drops them.
 */
import { commit, commitWithRetry, CONFLICT } from "../db.ts";
import { fail } from "../errors.ts";
import { deadPropIndexKey, deadPropKey } from "../keys.ts";

export const MAX_DEAD_PROPS = 200;
export const MAX_DEAD_PROP_BYTES = 16 * 1024;

export interface DeadProp {
  /** The property element, serialized with its own namespace declarations. */
  xml: string;
}

/** The mark of a resource with dead properties. */
export type DeadPropMark = true;

/** The resources of `ownerSeq` that have dead properties (marks; one prefix scan). */
export async function resourcesWithDeadProps(kv: Deno.Kv, ownerSeq: number): Promise<Set<number>> {
  const out = new Set<number>();
  for await (const e of kv.list({ prefix: deadPropIndexKey(ownerSeq) })) {
    out.add(e.key[2] as number);
  }
  return out;
}

export interface NamedProp {
  ns: string;
  local: string;
}

/** Every dead property of `rs`, in key order. */
export async function listDeadProps(
  kv: Deno.Kv,
  rs: number,
): Promise<(NamedProp & DeadProp)[]> {
  const out: (NamedProp & DeadProp)[] = [];
  for await (const e of kv.list<DeadProp>({ prefix: deadPropKey(rs) })) {
    out.push({ ns: e.key[2] as string, local: e.key[3] as string, xml: e.value.xml });
  }
  return out;
}

/**
 * Sets and removes dead properties of `rs` in one commit (all or nothing), in request order. The
 * caller has checked the resource exists and may be edited.
 */
export function patchDeadProps(
  kv: Deno.Kv,
  rs: number,
  ownerSeq: number,
  ops: ({ op: "set"; xml: string } & NamedProp | { op: "remove" } & NamedProp)[],
): Promise<void> {
  for (const o of ops) {
    if (o.op === "set" && new TextEncoder().encode(o.xml).byteLength > MAX_DEAD_PROP_BYTES) {
      fail("DAV_001", `The property ${o.local} is larger than ${MAX_DEAD_PROP_BYTES} bytes`);
    }
  }
  return commitWithRetry(async () => {
    const existing = new Map<string, Deno.KvEntryMaybe<DeadProp>>();
    for await (const e of kv.list<DeadProp>({ prefix: deadPropKey(rs) })) {
      existing.set(JSON.stringify(e.key.slice(2)), e);
    }
    const names = new Set(existing.keys());
    const op = kv.atomic();
    for (const o of ops) {
      const id = JSON.stringify([o.ns, o.local]);
      const key = deadPropKey(rs, o.ns, o.local);
      op.check({ key, versionstamp: existing.get(id)?.versionstamp ?? null });
      if (o.op === "set") {
        names.add(id);
        op.set(key, { xml: o.xml } satisfies DeadProp);
      } else {
        names.delete(id);
        op.delete(key);
      }
    }
    if (names.size > MAX_DEAD_PROPS) {
      fail("DAV_001", `A resource may hold at most ${MAX_DEAD_PROPS} dead properties`);
    }
    if (names.size > 0) op.set(deadPropIndexKey(ownerSeq, rs), true satisfies DeadPropMark);
    else op.delete(deadPropIndexKey(ownerSeq, rs));
    return (await commit(op)) === true ? undefined : CONFLICT;
  });
}

/** Copies the dead properties of `fromRs` to `to` (a COPY's new resource). */
export async function copyDeadProps(
  kv: Deno.Kv,
  fromRs: number,
  to: { rs: number; ownerSeq: number },
): Promise<void> {
  const toRs = to.rs;
  const props = await listDeadProps(kv, fromRs);
  if (props.length > 0) await kv.set(deadPropIndexKey(to.ownerSeq, toRs), true);
  for (let i = 0; i < props.length; i += 500) {
    const op = kv.atomic();
    for (const p of props.slice(i, i + 500)) {
      op.set(deadPropKey(toRs, p.ns, p.local), { xml: p.xml } satisfies DeadProp);
    }
    await commit(op);
  }
}

/**
 * Deletes the dead properties of resources that no longer exist (after a purge commit). Best
 * effort: a crash in between leaves properties no request can reach, since seqs are never reused.
 */
export async function dropDeadProps(kv: Deno.Kv, ownerSeq: number, rss: number[]): Promise<void> {
  for (const rs of rss) {
    const keys: Deno.KvKey[] = [deadPropIndexKey(ownerSeq, rs)];
    for await (const e of kv.list({ prefix: deadPropKey(rs) })) keys.push(e.key);
    for (let i = 0; i < keys.length; i += 500) {
      const op = kv.atomic();
      for (const k of keys.slice(i, i + 500)) op.delete(k);
      await commit(op);
    }
  }
}

/** A file moved to another user's drive: its mark moves to the new owner's marks. */
export async function moveDeadPropMark(
  kv: Deno.Kv,
  rs: number,
  fromOwnerSeq: number,
  toOwnerSeq: number,
): Promise<void> {
  const mark = await kv.get(deadPropIndexKey(fromOwnerSeq, rs));
  if (mark.value === null) return;
  await kv.atomic().delete(deadPropIndexKey(fromOwnerSeq, rs))
    .set(deadPropIndexKey(toOwnerSeq, rs), true satisfies DeadPropMark).commit();
}
