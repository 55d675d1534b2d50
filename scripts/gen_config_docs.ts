/**
 * Writes the README's configuration table from the variable table (config.ts VARIABLES), between
 * its two markers. Run `deno task docs`; config_test.ts fails when the committed table is stale.
 */
import { variables } from "../config.ts";

const README = new URL("../README.md", import.meta.url);
const BEGIN = "<!-- config table: generated from config.ts by `deno task docs` -->";
const END = "<!-- end of config table -->";

/** The table as `deno fmt` lays it out (columns padded to their widest cell). */
function renderConfigTable(): string {
  const rows = variables().map((v) => [
    `\`${v.name}\``,
    v.shownDefault ?? `\`${v.default}\``,
    v.deploy === "required" ? "**required**" : v.deploy ?? "",
    v.about.replaceAll("|", "\\|"),
  ]);
  const header = ["Variable", "Default", "Deno Deploy", "Meaning"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** `readme` with the text between the markers replaced by the table. */
export function withConfigTable(readme: string): string {
  const start = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md lacks the markers ${BEGIN} ... ${END}`);
  return `${readme.slice(0, start + BEGIN.length)}\n\n${renderConfigTable()}\n\n${
    readme.slice(end)
  }`;
}

if (import.meta.main) {
  await Deno.writeTextFile(README, withConfigTable(await Deno.readTextFile(README)));
  console.log(`wrote the configuration table of ${README.pathname}`);
}
