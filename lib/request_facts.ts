/**
 * What the edges learn about a request that the request log and /metrics report (api/ops/):
 * who the actor is and, on the provider protocol, which operation ran. The auth middlewares set
 * these as Hono context variables; the composition's request-log middleware reads them after the
 * response. Identifiers only: never a key, token, JWT or password.
 */
import type { Context } from "hono";

/** Who made a request, as far as authentication got. */
export type Actor =
  | { kind: "user"; userSeq: number; keyId: string }
  | { kind: "adapter"; adapter: string }
  /** `link` is the first 12 hex digits of SHA-256(token): enough to correlate, never the token. */
  | { kind: "link"; link: string }
  /** `userSeq`: an administrator signed in by name (absent: the admin token). */
  | { kind: "admin"; userSeq?: number };

export type RequestFactsEnv = {
  Variables: { actor?: Actor; providerOperation?: string; unmatched?: boolean };
};

export function setActor(c: Context, actor: Actor): void {
  (c as Context<RequestFactsEnv>).set("actor", actor);
}

/** The actor an edge recorded for this request, if any yet. */
export function actorOf(c: Context): Actor | undefined {
  return (c as Context<RequestFactsEnv>).get("actor");
}

export function setProviderOperation(c: Context, operation: string): void {
  (c as Context<RequestFactsEnv>).set("providerOperation", operation);
}

/** The request reached no route (app.ts notFound); its raw path is not a label. */
export function markUnmatched(c: Context): void {
  (c as Context<RequestFactsEnv>).set("unmatched", true);
}

/** What the edges recorded about the request. */
export function requestFacts(c: Context): RequestFactsEnv["Variables"] {
  const typed = c as Context<RequestFactsEnv>;
  return {
    actor: typed.get("actor"),
    providerOperation: typed.get("providerOperation"),
    unmatched: typed.get("unmatched"),
  };
}

/** The actor as one short label: `user:3/key:abcd…`, `adapter:office`, `link:…`, `admin`. */
export function actorLabel(actor: Actor | undefined): string | null {
  switch (actor?.kind) {
    case undefined:
      return null;
    case "user":
      return `user:${actor.userSeq}/key:${actor.keyId}`;
    case "adapter":
      return `adapter:${actor.adapter}`;
    case "link":
      return `link:${actor.link}`;
    case "admin":
      return actor.userSeq === undefined ? "admin" : `admin:user:${actor.userSeq}`;
  }
}
