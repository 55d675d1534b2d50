import assert from "node:assert/strict";
import { currentRequestScope, withRequestScope } from "./request_scope.ts";

const observer = { conflict() {}, retry() {} };

Deno.test("a scope's fields reach async work; a nested scope adds to a copy, never the outer one", async () => {
  assert.equal(currentRequestScope(), undefined);
  const actorOf = () => ({ kind: "admin" as const });
  await withRequestScope(
    { logContext: { requestId: "r1" }, commitObserver: observer },
    async () => {
      await Promise.resolve();
      const outer = currentRequestScope()!;
      assert.deepEqual(outer.logContext, { requestId: "r1" });
      assert.equal(outer.commitObserver, observer);
      await withRequestScope({ actorOf }, async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        const inner = currentRequestScope()!;
        // The outer fields stay, the new one is added.
        assert.deepEqual(inner.logContext, { requestId: "r1" });
        assert.equal(inner.commitObserver, observer);
        assert.equal(inner.actorOf, actorOf);
      });
      // Back outside: the outer scope never saw the inner field.
      assert.equal(currentRequestScope(), outer);
      assert.equal(currentRequestScope()!.actorOf, undefined);
    },
  );
  assert.equal(currentRequestScope(), undefined);
});

Deno.test("two concurrent scopes never see each other's fields", async () => {
  const seen: string[] = [];
  const run = (id: string, delayMs: number) =>
    withRequestScope({ logContext: { requestId: id } }, async () => {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      seen.push(`${id}:${currentRequestScope()!.logContext!.requestId}`);
    });
  await Promise.all([run("a", 5), run("b", 1)]);
  assert.deepEqual(seen.sort(), ["a:a", "b:b"]);
});
