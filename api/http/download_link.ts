/**
 * The two-request download flow of files and folders: the first request (with the API key)
 * gets a short-lived token for the caller's access as a server-relative link; the second needs
 * no Authorization, redeems the token and checks that access again (kv/tree/download_tokens.ts).
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiCaller } from "./auth.ts";
import {
  DOWNLOAD_TOKEN_TTL_MS,
  type DownloadToken,
  issueDownloadToken,
} from "../../kv/tree/download_tokens.ts";
import { fail } from "../../kv/errors.ts";
import {
  errorResponses,
  FILE_ACCESS_ERRORS,
  FOLDER_ACCESS_ERRORS,
  jsonOk,
  queryParam,
} from "./openapi.ts";
import { SsQuery } from "./schemas.ts";

/** Where the second request goes, by what the token downloads. */
const DOWNLOAD_PATHS: Record<DownloadToken["kind"], string> = {
  file: "/api/external/v1/files/download",
  folder: "/api/external/v1/folders/download",
  selection: "/api/external/v1/resources/download",
};

/** The `{ linkUrl }` answer of a first request. */
export const LinkUrlSchema = (kind: DownloadToken["kind"]) =>
  z.object({
    linkUrl: z.string().describe("The one-time download URL; it needs no API key").openapi({
      example: `${DOWNLOAD_PATHS[kind]}?dt=...`,
    }),
  });

/** The first request: GET /files or /folders/{resourceSeq}/download-token, answering `{ linkUrl }`. */
export function downloadTokenRoute<P extends z.ZodObject>(
  kind: "file" | "folder",
  params: P,
  summary: string,
) {
  const [Kind, tag] = kind === "file" ? ["File", "Files"] : ["Folder", "Folders"];
  return createRoute({
    method: "get",
    path: `/${kind}s/{resourceSeq}/download-token`,
    operationId: `create${Kind}DownloadToken`,
    tags: [tag],
    summary,
    request: { params, query: SsQuery },
    responses: {
      ...jsonOk(
        LinkUrlSchema(kind),
        `A server-relative link valid for ${DOWNLOAD_TOKEN_TTL_MS / 60_000} minutes`,
      ),
      ...errorResponses(...(kind === "file" ? FILE_ACCESS_ERRORS : FOLDER_ACCESS_ERRORS)),
    },
  });
}

/** The second request's query, as documented: the token. */
export const DownloadTokenQuery = z.object({
  dt: z.string().openapi({
    ...queryParam("dt"),
    description: "The one-time download token of linkUrl",
    example: "dt_4f3c2b1a",
  }),
});

/**
 * The validation hook of the second request: a missing or repeated `dt` is RESOURCE_009, as an
 * unknown one is (kv/tree/download_tokens.ts), not a plain validation error.
 */
export function tokenHook(result: { success: boolean }): undefined {
  if (!result.success) fail("RESOURCE_009", "dt is missing or malformed", "dt");
  return undefined;
}

/**
 * Issues the token for `caller`'s access to `rs` (with `ss`, as authorized) and its link; the
 * token works only while the caller's API key stays active.
 */
export async function issueDownloadLink(
  kv: Deno.Kv,
  kind: DownloadToken["kind"],
  rs: number,
  caller: Pick<ApiCaller, "userSeq" | "tenantId" | "keyId">,
  ss: number | null | undefined,
  items?: DownloadToken["items"],
): Promise<{ linkUrl: string }> {
  const token = await issueDownloadToken(kv, {
    kind,
    rs,
    // The record keeps who the caller is and which key it came with (redeeming checks the key
    // is still active), not the key's other details.
    caller: { userSeq: caller.userSeq, tenantId: caller.tenantId },
    ss: ss ?? null,
    ...(items ? { items } : {}),
    keyId: caller.keyId,
  });
  return { linkUrl: `${DOWNLOAD_PATHS[kind]}?dt=${token}` };
}
