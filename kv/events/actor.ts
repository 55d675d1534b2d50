/**
 * Who an event is by. A domain operation knows the user it acts for (`actorSeq`, which every tree
 * and sharing write already takes); how that user came in (an API key, an adapter, a share link,
 * the admin token) is known only to the edge that authenticated the request. The edges record
 * that in the request's Hono context (`setActor`, lib/request_facts.ts); a getter for it rides
 * the request scope (lib/request_scope.ts: the request middleware, api/ops/request_log.ts, sets it
 * with the rest of the scope in one go), and `eventActor` reads it when an event is built.
 *
 * Why a request scope rather than a field of Deps: the route modules are built once over one
 * Deps, so a per-request Deps would change every route module and every domain signature for a
 * detail only the event log records. The scope holds nothing between requests, and outside one
 * (start-up tasks, domain tests) events carry the user seq alone.
 */
import { currentRequestScope } from "../../lib/request_scope.ts";

/** An event's actor: the user acted for, and how the request authenticated. */
export interface EventActor {
  /** The user the operation acted for; null for the admin token and anonymous link visitors. */
  userSeq: number | null;
  keyId?: string;
  adapter?: string;
  /** First 12 hex digits of SHA-256(link token), never the token. */
  link?: string;
  admin?: true;
  /** The administrator by name: the user signed in with the admin role (absent: the token). */
  adminSeq?: number;
  /** A signed-in browser session (its public id's first 12 hex digits), never the cookie. */
  session?: string;
}

/** The actor of an event by `userSeq` (null: nobody in particular), with the request's means. */
export function eventActor(userSeq: number | null): EventActor {
  const via = currentRequestScope()?.actorOf?.();
  const out: EventActor = { userSeq };
  switch (via?.kind) {
    case "user":
      if (userSeq === null) out.userSeq = via.userSeq;
      if (out.userSeq === via.userSeq) {
        if (via.keyId.startsWith("session:")) out.session = via.keyId.slice("session:".length);
        else out.keyId = via.keyId;
      }
      break;
    case "adapter":
      out.adapter = via.adapter;
      break;
    case "link":
      out.link = via.link;
      break;
    case "admin":
      out.admin = true;
      if (via.userSeq !== undefined) out.adminSeq = via.userSeq;
      break;
  }
  return out;
}
