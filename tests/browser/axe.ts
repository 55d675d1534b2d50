/**
 * axe-core (axe_core.ts), injected into the page under test. `axeCore.source` is the library as one script; page.evaluate runs it through the DevTools
 * protocol, so the app's Content-Security-Policy does not have to allow it.
 */
import assert from "node:assert/strict";
import { axeCore } from "./axe_core.ts";
import type { Page } from "./playwright.ts";

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** Runs axe on the page as it is now; fails on any serious or critical violation. */
export async function assertAccessible(page: Page, where: string): Promise<void> {
  if (!(await page.evaluate("typeof window.axe === 'object'"))) await page.evaluate(axeCore.source);
  const violations = await page.evaluate(async () => {
    // deno-lint-ignore no-explicit-any
    const run = (globalThis as any).axe.run;
    const result = await run(document, { resultTypes: ["violations"] });
    return result.violations as Violation[];
  }) as Violation[];
  const bad = violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id} (${v.help}): ${v.nodes.map((n) => n.target).join(" | ")}`);
  assert.deepEqual(bad, [], `axe on ${where}`);
}
