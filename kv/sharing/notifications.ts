/**
 * Notification outbox: messages the service wants sent (share notifications for `se`), written
 * in the same commit as the change they announce, so none is lost or sent for a change that did
 * not happen.
 * Kept under notify_outbox (kv/keys.ts), oldest first.
 * A mailer drains it in time order with `drainNotifications`: it reads a batch, sends each
 * message and deletes it only after `send` succeeded (at-least-once delivery). The delete is
 * checked against the entry's versionstamp, so two mailers draining at once never both delete.
 */
import { randomToken } from "../../lib/secrets.ts";
import { outboxKey } from "../keys.ts";

interface Notification {
  id: string;
  to: string;
  subject: string;
  text: string;
  createdAt: number;
}

/** Adds a message to `op` (the commit of the change it announces). */
export function enqueueNotification(
  op: Deno.AtomicOperation,
  message: Omit<Notification, "id" | "createdAt">,
): Notification {
  const n: Notification = { ...message, id: randomToken(12), createdAt: Date.now() };
  op.set(outboxKey(n.createdAt, n.id), n);
  return n;
}

/** Up to `limit` waiting messages, oldest first (for inspection and tests). */
export async function peekNotifications(kv: Deno.Kv, limit = 100): Promise<Notification[]> {
  const out: Notification[] = [];
  for await (const e of kv.list<Notification>({ prefix: outboxKey() }, { limit })) {
    out.push(e.value);
  }
  return out;
}

/**
 * Sends up to `limit` messages with `send`, removing each one after it was sent. Returns how
 * many were sent. A failing `send` leaves that message (and the rest) for the next drain.
 */
export async function drainNotifications(
  kv: Deno.Kv,
  send: (n: Notification) => Promise<void>,
  limit = 100,
): Promise<number> {
  let sent = 0;
  for await (const e of kv.list<Notification>({ prefix: outboxKey() }, { limit })) {
    await send(e.value);
    const res = await kv.atomic().check(e).delete(e.key).commit();
    if (res.ok) sent++;
  }
  return sent;
}
