/**
 * Live updates of the open folder (issue 25, item 9): with a folder open in the app, a file
 * created through the API, another renamed through WebDAV, one moved out and one trashed
 * through the API show in the list without a reload, the selection kept (ui/app/drive/live.ts).
 */
import assert from "node:assert/strict";
import { browserTest } from "./helpers.ts";
import { driveUser, row, selectedRow, signInToDrive } from "./app_drive_helpers.ts";
import { davAs, driveUrl, statusOf } from "../dav/client.ts";

browserTest("app drive: the open folder follows changes made by the API and WebDAV", async ({
  page,
  server,
}) => {
  const lena = await driveUser(server, "lena");
  const plans = await lena.newFolder("Plans");
  await lena.newFile("keep.txt", "keep\n", plans);
  const old = await lena.newFile("old name.txt", "old\n", plans);
  const leaving = await lena.newFile("leaving.txt", "bye\n", plans);
  const doomed = await lena.newFile("doomed.txt", "x\n", plans);
  const elsewhere = await lena.newFolder("Elsewhere");
  await signInToDrive(page, server, "lena");
  await row(page, "Plans").dblclick();
  await page.getByRole("heading", { level: 1, name: "Plans" }).waitFor();
  await row(page, "keep.txt").click();
  await selectedRow(page, "keep.txt").waitFor();

  // Another client writes: nothing here reloads the page.
  await lena.newFile("from the API.txt", "new\n", plans);
  const moved = await davAs(lena, "MOVE", driveUrl(lena, "Plans/old%20name.txt"), {
    destination: driveUrl(lena, "Plans/renamed%20by%20WebDAV.txt"),
  });
  assert.equal(await statusOf(moved), 201);
  const out = await lena.call("POST", `/files/${leaving}/move`, { pfs: elsewhere });
  assert.equal(out.status, 200, JSON.stringify(out.body));
  const gone = await lena.call("PATCH", `/files/${doomed}/delete`);
  assert.equal(gone.status, 200, JSON.stringify(gone.body));

  await row(page, "from the API.txt").waitFor();
  await row(page, "renamed by WebDAV.txt").waitFor();
  await row(page, "leaving.txt").waitFor({ state: "detached" });
  await row(page, "doomed.txt").waitFor({ state: "detached" });
  assert.equal(await row(page, "old name.txt").count(), 0);
  assert.equal(old > 0, true);
  // The selection stayed on the row it was on.
  assert.equal(await selectedRow(page, "keep.txt").count(), 1);
  const names = await page.getByRole("listbox").getByRole("option").allInnerTexts();
  assert.deepEqual(
    names.map((n) => n.split("\n")[0].trim()),
    ["from the API.txt", "keep.txt", "renamed by WebDAV.txt"],
  );
});
