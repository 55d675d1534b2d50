/**
 * The LibreOffice pool's limits, deterministically: with one worker and no queue a second
 * document at the same moment is refused (ConverterBusyError, the API's 503 PREVIEW_002), and a
 * document over the time limit gets null (422 PREVIEW_001) with the worker stopped, after which
 * the pool converts again. Needs soffice and python3-uno (required when CI is set).
 */
import assert from "node:assert/strict";
import { ConverterBusyError, openOfficeConverter } from "./office_converter.ts";

const DOCX = new URL("../static/templates/en-US/blank.docx", import.meta.url);
/** A pool of one worker on the system's soffice; the tests vary only its queue and limit. */
const oneWorker = (queue: number, timeoutMs: number) =>
  openOfficeConverter({ soffice: "/usr/bin/soffice", workers: 1, queue, timeoutMs });
const probe = oneWorker(0, 1);
const ignore = !probe.available && !Deno.env.get("CI");
await probe.close();

Deno.test({
  name: "office pool: a full queue refuses at once; the time limit stops a conversion",
  ignore,
  async fn() {
    const docx = await Deno.readFile(DOCX);
    const busy = oneWorker(0, 60_000);
    try {
      const [first, second] = await Promise.allSettled([
        busy.convert(docx, "docx"),
        busy.convert(docx, "docx"),
      ]);
      assert.equal(first.status, "fulfilled");
      assert.ok((first as PromiseFulfilledResult<Uint8Array | null>).value!.length > 0);
      assert.equal(second.status, "rejected");
      assert.ok((second as PromiseRejectedResult).reason instanceof ConverterBusyError);
      assert.equal(busy.conversions, 1);
    } finally {
      await busy.close();
    }

    // 1 ms is less than any LibreOffice start: the limit fires, the worker is stopped.
    const slow = oneWorker(4, 1);
    try {
      assert.equal(await slow.convert(docx, "docx"), null);
    } finally {
      await slow.close();
    }
  },
});

Deno.test("office pool: `off` or no soffice means no converter, and convert answers null", async () => {
  for (const soffice of ["off", "/nonexistent/soffice"]) {
    const none = openOfficeConverter({ soffice, workers: 1, queue: 1, timeoutMs: 1000 });
    assert.equal(none.available, false);
    assert.equal(await none.convert(new Uint8Array(1), "docx"), null);
    assert.equal(none.conversions, 0);
    await none.close();
  }
});
