/**
 * On a real denokv (KV Connect), whose commits take at most 10 checks: moving a folder into one
 * 14 levels deep and sharing a folder that deep are answered with SERVICE_004 naming the limit,
 * never a 500; the same moves near the root work. Skipped only when the tests are not asked to
 * run on denokv (DRIVE_TEST_KV=denokv, as .ci/run's denokv pass does).
 */
import assert from "node:assert/strict";
import { testsWantDenokv } from "../helpers/denokv_server.ts";
import { withTwoServersOnOneKv } from "../helpers/server.ts";
import { newApiUser } from "../helpers/api.ts";

Deno.test({
  name: "denokv: a commit past its 10 checks is SERVICE_004 (409) naming the limit, never a 500",
  ignore: !testsWantDenokv(),
  fn: async () => {
    await withTwoServersOnOneKv(async (a) => {
      const alice = await newApiUser(a, "alice");
      let parent = 0;
      for (let level = 0; level < 14; level++) {
        parent = await alice.newFolder(`level ${level}`, parent || undefined);
      }
      const loose = await alice.newFolder("loose");
      const res = await alice.call("POST", `/folders/${loose}/move`, { pfs: parent });
      assert.notEqual(res.status, 500, JSON.stringify(res.body));
      assert.equal(res.status, 409, JSON.stringify(res.body));
      assert.equal(res.body.errorCode, "SERVICE_004");
      assert.match(res.body.message, /denokv: 10 checks/);
      // Near the root the same move works.
      const shallow = await alice.newFolder("shallow");
      const ok = await alice.call("POST", `/folders/${loose}/move`, { pfs: shallow });
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
    });
  },
});
