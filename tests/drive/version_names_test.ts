/**
 * GET /files/{rs}/versions names who stored each version (createdByName), so the web app's
 * versions panel can say who without a user lookup the caller may not be allowed to make.
 */
import assert from "node:assert/strict";
import { withServer } from "../helpers/server.ts";
import { newApiUser } from "../helpers/api.ts";

Deno.test("versions: each version carries the display name of who stored it", async () => {
  await withServer(async (server) => {
    const ada = await newApiUser(server, "ada");
    const ben = await newApiUser(server, "ben", { tenantId: ada.tenantId });
    const rs = await ada.newFile("plan.txt", "one\n");
    await ada.shareWith(rs, ben, "ce");
    const up = await ben.upload("plan.txt", "two\n", { st: "version", rs, ss: ada.userSeq });
    assert.equal(up.status, 201, JSON.stringify(up.body));

    for (const who of [ada, ben]) {
      const res = await who.call(
        "GET",
        `/files/${rs}/versions${who === ben ? `?ss=${ada.userSeq}` : ""}`,
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const seen = res.body.data.items.map((v: { createdBy: number; createdByName: string }) => [
        v.createdBy,
        v.createdByName,
      ]);
      assert.deepEqual(seen, [[ada.userSeq, "ada"], [ben.userSeq, "ben"]]);
    }
  });
});
