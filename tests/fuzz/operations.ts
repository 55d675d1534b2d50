/**
 * Fuzzing an API operation by operation: requests generated from each operation's declaration,
 * every answer checked by the common rules, one test step per operation, and the server still
 * answering at the end. The admin and drive API fuzz tests differ only in what they pass here.
 */
import type fc from "./fast_check.ts";
import type { TestServer } from "../helpers/server.ts";
import { assertAlive, checkAnswer, fuzz, runsFor, send } from "./harness.ts";
import { type Operation, requestArb, toRequest } from "./requests.ts";
import type { SchemaContext } from "./schema.ts";

export async function fuzzEachOperation(t: Deno.TestContext, server: TestServer, api: {
  /** Names the API in failure reports ("admin", "drive"). */
  name: string;
  base: string;
  operations: Operation[];
  ctx: SchemaContext;
  /** The senders a request may come from, as labels… */
  auth: fc.Arbitrary<string>;
  /** …and the headers a label (with its junk) sends. */
  credentials: (label: string, junk: string) => [string, string][];
}): Promise<void> {
  for (const op of api.operations) {
    await t.step(`${op.method} ${op.path}`, async () => {
      await fuzz(
        `${api.name} ${op.method} ${op.path}`,
        requestArb(op, api.ctx, api.auth),
        async (g) => {
          const req = toRequest(api.base, op, g, api.credentials);
          const answer = await send(server.url, req);
          checkAnswer(req, answer, { secretPaths: [server.config.dataDir], errorCode: true });
        },
        runsFor(op.body ? 20 : 12),
      );
    });
  }
  await assertAlive(server.url);
}
