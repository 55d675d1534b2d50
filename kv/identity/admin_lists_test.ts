/**
 * admin_lists.ts and the user_term index behind it: the start-up migration (indexUserTerms)
 * indexes users stored before the index existed, is idempotent, and a search then finds them,
 * each user once however many of their terms match.
 */
import assert from "node:assert/strict";
import { domainTest, newTenant } from "../testing.ts";
import { userTermKey } from "../keys.ts";
import { listUserPage } from "./admin_lists.ts";
import { createUser, indexUserTerms, searchTermsOf } from "./users.ts";

const user = (tenantId: number, accountId: string, name: string) => ({
  tenantId,
  accountId,
  email: `${accountId}@example.com`,
  name,
  quotaBytes: 1000,
});

domainTest("searchTermsOf: lowercase accountId, e-mail, whole name and its words", () => {
  assert.deepEqual(
    searchTermsOf({ accountId: "Ana", email: "Ana@X.org", name: " Ana  Maria Lima " }),
    ["ana", "ana@x.org", "ana maria lima", "maria", "lima"],
  );
  return Promise.resolve();
});

domainTest("indexUserTerms indexes users stored before the index, idempotently", async (d) => {
  const t = await newTenant(d, "Acme");
  const ana = await createUser(d.kv, user(t.id, "ana", "Ana Lima"));
  const ben = await createUser(d.kv, user(t.id, "ben", "Ben Anand"));
  const search = async (q: string) =>
    (await listUserPage(d.kv, { q }, { limit: 10 })).items.map((u) => u.accountId);
  assert.deepEqual(await search("an"), ["ana", "ben"], "ben by the word Anand");

  // As stored by a release before the index: no user_term keys.
  for (const u of [ana, ben]) {
    for (const term of searchTermsOf(u)) await d.kv.delete(userTermKey(term, u.userSeq));
  }
  assert.deepEqual(await search("an"), []);
  await indexUserTerms(d.kv);
  assert.deepEqual(await search("an"), ["ana", "ben"]);
  const before = await Array.fromAsync(d.kv.list({ prefix: userTermKey() }));
  await indexUserTerms(d.kv);
  const after = await Array.fromAsync(d.kv.list({ prefix: userTermKey() }));
  assert.deepEqual(after.map((e) => e.key), before.map((e) => e.key), "a second run adds nothing");
  assert.equal(after.length, searchTermsOf(ana).length + searchTermsOf(ben).length);
});
