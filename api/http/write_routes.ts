/**
 * The drive API's write routes: a route that changes the drive needs an API key with the
 * api:write scope. `driveRoutes(tag).write` declares them as tagRoutes does, with the scope check
 * (requireWrite) as the route's middleware and its refusal, AUTH_003, first among the route's
 * error codes: one declaration gives both, so no write route can document one without the other.
 */
import type { RouteConfig, z } from "@hono/zod-openapi";
import type { ErrorCode } from "../../kv/errors.ts";
import { requireWrite } from "./auth.ts";
import { errorResponses, jsonOk, tagRoutes } from "./openapi.ts";

/** What a write route answers: `data` in the envelope (`status`, `description`), or `errors`. */
interface WriteAnswers<T extends z.ZodTypeAny> {
  data: T;
  description: string;
  status: 200 | 201;
  errors: ErrorCode[];
}

/** A write route's answers: `data` in the 200 envelope, or one of `errors` (and AUTH_003). */
export const changed = <T extends z.ZodTypeAny>(
  data: T,
  description: string,
  ...errors: ErrorCode[]
): WriteAnswers<T> => ({ data, description, status: 200, errors });

/** A write route that creates something: `data` in the 201 envelope, or one of `errors`. */
export const created = <T extends z.ZodTypeAny>(
  data: T,
  description: string,
  ...errors: ErrorCode[]
): WriteAnswers<T> => ({ data, description, status: 201, errors });

/**
 * The declarations of one tag's write routes, as tagRoutes: `write(method, path, operationId,
 * { summary, ..., responses: changed(...) })`.
 */
const writeRoutes = (tag: string) => {
  const route = tagRoutes(tag);
  return <
    M extends RouteConfig["method"],
    P extends string,
    T extends z.ZodTypeAny,
    S extends Omit<
      RouteConfig,
      "method" | "path" | "operationId" | "tags" | "middleware" | "responses"
    >,
  >(method: M, path: P, operationId: string, spec: S & { responses: WriteAnswers<T> }) => {
    const { responses: answers, ...rest } = spec;
    return route(method, path, operationId, {
      ...rest,
      middleware: [requireWrite] as const,
      responses: {
        ...jsonOk(answers.data, answers.description, answers.status),
        ...errorResponses("AUTH_003", ...answers.errors),
      },
    });
  };
};

/**
 * The declarations of one tag's routes (`const { route, write } = driveRoutes("Files")`):
 * `route` for one any valid key may call (tagRoutes), `write` for one that needs api:write.
 */
export const driveRoutes = (tag: string) => ({ route: tagRoutes(tag), write: writeRoutes(tag) });
