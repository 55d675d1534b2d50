/**
 * The rules of scripts/imports/rules.ts applied to an import graph (pure): cycles, imports up the
 * layers, imports against the folder order of an area, route modules importing each other,
 * crossings between separate edge areas, browser code importing server values, layers importing
 * tools, and files no rule places.
 */
import type { ImportGraph } from "./graph.ts";
import {
  BROWSER_CODE_GLOB,
  BROWSER_SHARED,
  EDGE_AREA_ALLOWED,
  FOLDER_ORDERS,
  LAYER_ORDER,
  NOT_BROWSER_CODE,
  NOT_ROUTE_MODULES,
  type Placement,
  PLACEMENT_RULES,
  ROUTE_MODULE_GLOBS,
  SEPARATE_EDGE_AREAS,
} from "./rules.ts";

export type ViolationKind =
  | "cycle"
  | "upward"
  | "folder"
  | "route"
  | "edge"
  | "browser"
  | "tool"
  | "unplaced";

export interface Violation {
  kind: ViolationKind;
  /** The printed line, starting with `<kind>: `. */
  line: string;
}

const globCache = new Map<string, RegExp>();

/** Matches a repository path against a glob: `**` any depth (also none), `*` one segment. */
export function matchesGlob(path: string, glob: string): boolean {
  let pattern = globCache.get(glob);
  if (!pattern) {
    let source = "";
    for (let i = 0; i < glob.length; i++) {
      if (glob.startsWith("**/", i)) {
        source += "(?:.*/)?";
        i += 2;
      } else if (glob.startsWith("**", i)) {
        source += ".*";
        i += 1;
      } else if (glob[i] === "*") {
        source += "[^/]*";
      } else {
        source += glob[i].replace(/[.+?^${}()|[\]\\]/g, "\\$&");
      }
    }
    pattern = new RegExp(`^${source}$`);
    globCache.set(glob, pattern);
  }
  return pattern.test(path);
}

/** The placement of a path, or undefined when no rule covers it. */
export function placementOf(path: string): Placement | undefined {
  return PLACEMENT_RULES.find((rule) => matchesGlob(path, rule.glob))?.placement;
}

function isRouteModule(path: string): boolean {
  return ROUTE_MODULE_GLOBS.some((glob) => matchesGlob(path, glob)) &&
    !NOT_ROUTE_MODULES.some((glob) => matchesGlob(path, glob));
}

function isBrowserCode(path: string): boolean {
  return matchesGlob(path, BROWSER_CODE_GLOB) &&
    !NOT_BROWSER_CODE.some((script) => script.path === path);
}

function edgeArea(path: string): string | undefined {
  if (placementOf(path) !== "edges") return undefined;
  return SEPARATE_EDGE_AREAS.find((area) => path.startsWith(area));
}

/** The area of FOLDER_ORDERS a path sits in and its top folder there, when it is in a folder. */
function areaFolder(path: string): { area: string; folder: string; tier?: number } | undefined {
  const order = FOLDER_ORDERS.find(({ area }) => path.startsWith(area));
  const slash = order ? path.indexOf("/", order.area.length) : -1;
  if (!order || slash < 0) return undefined;
  const folder = path.slice(order.area.length, slash);
  const tier = order.tiers.findIndex((names) => names.includes(folder));
  return { area: order.area, folder, tier: tier < 0 ? undefined : tier };
}

/** Why an import between two folders of one area runs against its order, or null. */
function folderOrderProblem(from: string, to: string): string | null {
  const a = areaFolder(from);
  const b = areaFolder(to);
  if (!a || !b || a.area !== b.area || a.folder === b.folder) return null;
  if (a.tier === undefined || b.tier === undefined) return null; // reported as unranked
  const names = `${a.area}${a.folder} → ${b.area}${b.folder}`;
  if (a.tier === b.tier) {
    return `${names}: siblings in the folder order of ${a.area} (share code through a lower ` +
      `folder)`;
  }
  if (b.tier < a.tier) return `${names} runs up the folder order of ${a.area}`;
  return null;
}

/** Every violation in the graph: cycles first, then import rules in path order. */
export function findViolations(graph: ImportGraph): Violation[] {
  const violations = findCycles(graph).map(({ path, alsoInCycle }): Violation => ({
    kind: "cycle",
    line: `cycle: ${path.join(" → ")}` +
      (alsoInCycle.length > 0 ? ` (also in this cycle group: ${alsoInCycle.join(", ")})` : ""),
  }));
  const unplaced = new Set<string>();
  const noteUnplaced = (path: string) => {
    if (placementOf(path) === undefined) unplaced.add(path);
  };
  const unranked = new Map<string, string>();
  const noteUnranked = (path: string) => {
    const place = areaFolder(path);
    if (place && place.tier === undefined && placementOf(path) !== "tools") {
      unranked.set(`${place.area}${place.folder}/`, place.area);
    }
  };
  for (const file of graph.files) {
    noteUnplaced(file);
    noteUnranked(file);
  }
  const edges = [...graph.imports].sort((a, b) => compare(a.from, b.from) || compare(a.to, b.to));
  for (const { from, to, typeOnly } of edges) {
    noteUnplaced(from);
    noteUnplaced(to);
    noteUnranked(from);
    noteUnranked(to);
    const fromPlace = placementOf(from);
    const toPlace = placementOf(to);
    if (fromPlace === undefined || toPlace === undefined || fromPlace === "tools") continue;
    if (toPlace === "tools") {
      violations.push({
        kind: "tool",
        line: `tool: ${from} imports ${to} (nothing in the layers may import tests, benches, ` +
          `scripts or test fixtures)`,
      });
      continue;
    }
    if (LAYER_ORDER.indexOf(toPlace) < LAYER_ORDER.indexOf(fromPlace)) {
      violations.push({
        kind: "upward",
        line: `upward: ${from} imports ${to} (${fromPlace} → ${toPlace})`,
      });
    }
    const folderProblem = folderOrderProblem(from, to);
    if (folderProblem) {
      violations.push({
        kind: "folder",
        line: `folder: ${from} imports ${to} (${folderProblem}; see FOLDER_ORDERS in ` +
          `scripts/imports/rules.ts)`,
      });
    }
    if (isRouteModule(from) && isRouteModule(to)) {
      violations.push({ kind: "route", line: `route: ${from} imports ${to}` });
    }
    const fromArea = edgeArea(from);
    const toArea = edgeArea(to);
    if (
      fromArea && toArea && fromArea !== toArea &&
      !EDGE_AREA_ALLOWED.some((allowed) => allowed.from === from && allowed.to === to)
    ) {
      violations.push({
        kind: "edge",
        line: `edge: ${from} imports ${to} (${fromArea} and ${toArea} are separate edge areas; ` +
          `share code through the domain or lib/, or list the import in EDGE_AREA_ALLOWED)`,
      });
    }
    if (
      isBrowserCode(from) && !matchesGlob(to, BROWSER_CODE_GLOB) && !typeOnly &&
      !BROWSER_SHARED.some((shared) => shared.path === to)
    ) {
      violations.push({
        kind: "browser",
        line: `browser: ${from} imports ${to} as a value (browser code may import code outside ` +
          `ui/ only with import type)`,
      });
    }
  }
  for (const path of [...unplaced].sort(compare)) {
    violations.push({
      kind: "unplaced",
      line: `unplaced: ${path} matches no layer (add it to PLACEMENT_RULES in ` +
        `scripts/imports/rules.ts)`,
    });
  }
  for (const [folder, area] of [...unranked].sort(([a], [b]) => compare(a, b))) {
    violations.push({
      kind: "folder",
      line: `folder: ${folder} has no tier in the folder order of ${area} (add it to ` +
        `FOLDER_ORDERS in scripts/imports/rules.ts)`,
    });
  }
  return violations;
}

/**
 * The cycles of the graph, type-only imports included: one per strongly connected component
 * (Tarjan), as the shortest path from the component's first file back to itself. When the
 * component holds more files than that path, `alsoInCycle` names the rest, so every file caught
 * in a cycle shows up.
 */
export function findCycles(graph: ImportGraph): { path: string[]; alsoInCycle: string[] }[] {
  const successors = new Map<string, string[]>();
  const nodes = new Set(graph.files);
  for (const { from, to } of graph.imports) {
    nodes.add(from);
    nodes.add(to);
    const list = successors.get(from) ?? [];
    if (!list.includes(to)) list.push(to);
    successors.set(from, list);
  }
  for (const list of successors.values()) list.sort(compare);
  const next = (node: string) => successors.get(node) ?? [];

  const cycles: { path: string[]; alsoInCycle: string[] }[] = [];
  for (const component of stronglyConnectedComponents([...nodes].sort(compare), next)) {
    const start = component[0];
    if (component.length === 1 && !next(start).includes(start)) continue;
    const members = new Set(component);
    const path = shortestCycle(start, (node) => next(node).filter((n) => members.has(n)));
    cycles.push({ path, alsoInCycle: component.filter((node) => !path.includes(node)) });
  }
  return cycles.sort((a, b) => compare(a.path[0], b.path[0]));
}

/** Tarjan's algorithm, iterative; each component comes back sorted. */
function stronglyConnectedComponents(
  nodes: readonly string[],
  next: (node: string) => readonly string[],
): string[][] {
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;

  for (const root of nodes) {
    if (index.has(root)) continue;
    // Each frame is a node and how many of its successors have been visited.
    const frames: { node: string; child: number }[] = [];
    const enter = (node: string) => {
      index.set(node, counter);
      lowLink.set(node, counter);
      counter++;
      stack.push(node);
      onStack.add(node);
      frames.push({ node, child: 0 });
    };
    enter(root);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1];
      const children = next(frame.node);
      if (frame.child < children.length) {
        const child = children[frame.child++];
        if (!index.has(child)) {
          enter(child);
        } else if (onStack.has(child)) {
          lowLink.set(frame.node, Math.min(lowLink.get(frame.node)!, index.get(child)!));
        }
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent) {
        lowLink.set(parent.node, Math.min(lowLink.get(parent.node)!, lowLink.get(frame.node)!));
      }
      if (lowLink.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        components.push(component.sort(compare));
      }
    }
  }
  return components;
}

/** Breadth-first: the shortest path start → … → start, as a list ending in start. */
function shortestCycle(start: string, next: (node: string) => readonly string[]): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head];
    for (const child of next(node)) {
      if (child === start) {
        const back = [node];
        while (back[back.length - 1] !== start) back.push(cameFrom.get(back[back.length - 1])!);
        return [...back.reverse(), start];
      }
      if (!cameFrom.has(child)) {
        cameFrom.set(child, node);
        queue.push(child);
      }
    }
  }
  return [start, start]; // not reached: start is in a cycle
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function summary(graph: ImportGraph, violations: readonly Violation[]): string {
  const edges = new Set(graph.imports.map(({ from, to }) => `${from}\n${to}`)).size;
  const head = `imports: ${graph.files.length} files, ${edges} edges`;
  if (violations.length === 0) return `${head}, no cycles, no upward imports`;
  const counts = new Map<ViolationKind, number>();
  for (const { kind } of violations) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  const parts = [...counts].map(([kind, count]) => `${count} ${kind}`);
  return `${head}, ${violations.length} violations (${parts.join(", ")})`;
}
