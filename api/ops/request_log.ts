/**
 * The first middleware of the app (app.ts): gives every request an id (X-Request-Id, echoed in
 * the response), runs it inside the request scope (lib/request_scope.ts: that id for every log
 * record, a commit observer counting KV conflicts, who authenticated for the event log), and once
 * the response has been sent writes one log line and the request metrics.
 *
 * The line names the route TEMPLATE (`/api/external/v1/files/:rs/download`), never the raw path,
 * which may carry a share-link or download token; the actor is what the auth middlewares
 * recorded (lib/request_facts.ts), an identifier and never a credential. Headers, query strings
 * and bodies are never logged.
 *
 * It runs on every request, so it is kept cheap (docs/benchmarks.md, bench/middleware.ts): one
 * scope entered per request, the line built only when the level lets it through, and an
 * answer's size learnt where it was built (api/http/json_response.ts) rather than from its bytes.
 */
import type { Context, MiddlewareHandler } from "hono";
import { actorLabel, actorOf, requestFacts } from "../../lib/request_facts.ts";
import { withRequestScope } from "../../lib/request_scope.ts";
import { knownBodySize } from "../http/json_response.ts";
import { driveLogger, literal } from "../../lib/logger.ts";
import type { Metrics } from "./metrics.ts";
import { REQUEST_ID_HEADER, requestIdFrom } from "./request_id.ts";

/** The route label of a request no route matched (its path is not logged). */
const UNMATCHED_ROUTE = "(unmatched)";

/** The part of Deno.serve's handler info the middleware uses (`c.env` under serve.ts). */
interface ServeInfo {
  completed?: Promise<void>;
}

/** Answers a handler builds in memory (c.json, c.text, c.html): never a byte stream. */
const BUILT_IN_MEMORY = /^(application\/(problem\+)?json|text\/)/i;

/** Statuses whose responses never have a body (the Fetch standard's null body statuses). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** How many body bytes were sent: known now, or counted as the body streams. */
type BytesOut = number | (() => number);

/**
 * Response body bytes: known when `jsonResponse` built the answer (api/http/json_response.ts) or
 * Content-Length is declared (provider/responses.ts, file downloads), else counted. An answer
 * built in memory without either is read and rebuilt with its Content-Length kept: wrapping it
 * in a counting stream would turn it into a chunked one (clients and tests that read
 * Content-Length, e.g. a 413 sent before the request body, would see no body). `res.body` is
 * only touched for a streamed answer: reading it turns an in-memory body into a stream, which
 * costs more than the rest of this middleware.
 */
function measureBody(c: Context, method: string): BytesOut | Promise<BytesOut> {
  const res = c.res;
  if (method === "HEAD" || NULL_BODY_STATUSES.has(res.status)) return 0;
  const known = knownBodySize(res);
  if (known !== undefined) return known;
  const declared = res.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared)) return Number(declared);
  if (BUILT_IN_MEMORY.test(res.headers.get("content-type") ?? "")) return rebuildInMemory(c, res);
  const body = res.body;
  if (body === null) return 0;
  let counted = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      counted += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  replaceResponse(c, new Response(body.pipeThrough(counter), res));
  return () => counted;
}

async function rebuildInMemory(c: Context, res: Response): Promise<number> {
  const bytes = await res.arrayBuffer();
  replaceResponse(c, new Response(bytes, res));
  return bytes.byteLength;
}

/**
 * Sets `res` as the answer as it is: assigning over an existing answer makes Hono copy it and
 * its headers once more (its documented way around that is clearing it first).
 */
function replaceResponse(c: Context, res: Response) {
  c.res = undefined;
  c.res = res;
}

function echoRequestId(c: Context, id: string) {
  try {
    c.res.headers.set(REQUEST_ID_HEADER, id);
  } catch {
    // An immutable response (e.g. Response.redirect): copy it to add the header.
    const copy = new Response(c.res.body, c.res);
    copy.headers.set(REQUEST_ID_HEADER, id);
    replaceResponse(c, copy);
  }
}

export function requestLog(metrics: Metrics): MiddlewareHandler {
  const log = driveLogger("http");
  return async (c, next) => {
    const started = performance.now();
    const requestId = requestIdFrom(c.req.header(REQUEST_ID_HEADER));
    await withRequestScope({
      logContext: { requestId },
      commitObserver: metrics.commits,
      actorOf: () => actorOf(c),
    }, next);
    echoRequestId(c, requestId);
    const method = c.req.method;
    const facts = requestFacts(c);
    const route = facts.unmatched ? UNMATCHED_ROUTE : c.req.routePath;
    const declaredIn = Number(c.req.header("content-length") ?? 0);
    const bytesIn = Number.isSafeInteger(declaredIn) && declaredIn > 0 ? declaredIn : 0;
    const measured = measureBody(c, method);
    const bytesOut = measured instanceof Promise ? await measured : measured;
    const status = c.res.status;
    const providerOperation = facts.providerOperation;
    const finish = (aborted: boolean) => {
      const durationMs = Math.round((performance.now() - started) * 100) / 100;
      const out = typeof bytesOut === "number" ? bytesOut : bytesOut();
      metrics.record({
        method,
        route,
        status,
        seconds: durationMs / 1000,
        bytesIn,
        bytesOut: out,
        providerOperation,
      });
      // A line the level drops costs this one check. Method and route come from the router's
      // vocabulary, never free request text.
      if (!log.isEnabledFor("info")) return;
      log.info(literal(`${method} ${route} ${status}`), {
        requestId,
        method,
        route,
        status,
        durationMs,
        bytesIn,
        bytesOut: out,
        actor: actorLabel(facts.actor),
        ...(providerOperation ? { providerOperation } : {}),
        // The client went away before the whole response was sent.
        ...(aborted ? { aborted } : {}),
      });
    };
    // Under serve.ts (and Deno.serve) `completed` settles once the response is sent, so the
    // duration and bytes cover the whole body; without it (app.request) the line is written now.
    const completed = (c.env as ServeInfo | undefined)?.completed;
    if (completed) completed.then(() => finish(false), () => finish(true));
    else finish(false);
  };
}
