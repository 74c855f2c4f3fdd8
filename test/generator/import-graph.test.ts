import { readdirSync, readFileSync } from "node:fs";
import { join, posix, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { projectRoot } from "../support/paths.js";

/**
 * The generator's modules import each other without a circle: each stage leans only on the stages and
 * leaves below it (diagnostics.ts, names.ts, load/json-pointer.ts), so a module can be read, tested and
 * moved without dragging the whole generator along. Type-only imports count too: a circle of types is
 * still a circle a reader has to walk.
 */

type ImportGraph = ReadonlyMap<string, readonly string[]>;

/** Every `.ts` module under `dir`, by its path relative to it (with `/`), → its text. */
function sourcesUnder(dir: string): Map<string, string> {
  const modules = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
  return new Map(modules.map((f) => [f.split("\\").join("/"), readFileSync(join(dir, f), "utf8")]));
}

/** Each module → the modules among `sources` it imports, re-exports or loads dynamically (other specifiers are left out). */
function importGraph(sources: ReadonlyMap<string, string>): ImportGraph {
  return new Map(
    [...sources].map(([module, text]) => {
      const targets = ts
        .preProcessFile(text, true, true)
        .importedFiles.map((i) => i.fileName)
        .filter((specifier) => specifier.startsWith("."))
        .map((specifier) => posix.normalize(posix.join(posix.dirname(module), specifier.replace(/\.js$/, ".ts"))));
      return [module, [...new Set(targets.filter((t) => sources.has(t)))]];
    }),
  );
}

/** One circle of each strongly connected group of modules (Tarjan), each written `a → b → … → a`. */
function importCircles(graph: ImportGraph): string[] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (module: string): void => {
    index.set(module, counter);
    low.set(module, counter++);
    stack.push(module);
    onStack.add(module);
    for (const target of graph.get(module) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(module, Math.min(low.get(module)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(module, Math.min(low.get(module)!, index.get(target)!));
      }
    }
    if (low.get(module) !== index.get(module)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== module);
    if (group.length > 1 || (graph.get(module) ?? []).includes(module)) groups.push(group);
  };
  for (const module of [...graph.keys()].sort()) if (!index.has(module)) visit(module);
  return groups.map((group) => circleThrough(graph, new Set(group)).join(" → "));
}

/** A shortest path from the group's first module (by name) back to itself, inside the group. */
function circleThrough(graph: ImportGraph, group: ReadonlySet<string>): string[] {
  const start = [...group].sort()[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const module = queue.shift()!;
    for (const target of graph.get(module) ?? []) {
      if (!group.has(target)) continue;
      if (target === start) {
        const path: string[] = [];
        for (let at: string | undefined = module; at !== undefined && at !== start; at = cameFrom.get(at)) path.unshift(at);
        return [start, ...path, start];
      }
      if (!cameFrom.has(target) && target !== start) {
        cameFrom.set(target, module);
        queue.push(target);
      }
    }
  }
  return [start, start];
}

describe("the generator's import graph", () => {
  it("has no circle", () => {
    const generator = join(projectRoot, "generator");
    const graph = importGraph(sourcesUnder(generator));
    // The graph was read: a parse that found no imports would pass vacuously.
    expect(graph.get("generate.ts")).toContain("lower/lower-set.ts");
    expect(importCircles(graph), `import circles in ${relative(projectRoot, generator)}/`).toEqual([]);
  });

  it.each([
    ["no imports", { "a.ts": [] }, []],
    ["a chain", { "a.ts": ["b.ts"], "b.ts": ["c.ts"], "c.ts": [] }, []],
    ["a module importing itself", { "a.ts": ["a.ts"] }, ["a.ts → a.ts"]],
    ["two modules", { "a.ts": ["b.ts"], "b.ts": ["a.ts"] }, ["a.ts → b.ts → a.ts"]],
    [
      "the circle this test was written for",
      {
        "config/config.ts": ["analyze/naming.ts", "bind/bindings.ts", "diagnostics.ts"],
        "analyze/naming.ts": ["config/config.ts", "diagnostics.ts"],
        "bind/bindings.ts": ["analyze/naming.ts"],
        "diagnostics.ts": [],
      },
      ["analyze/naming.ts → config/config.ts → analyze/naming.ts"],
    ],
    [
      "two separate circles",
      { "a.ts": ["b.ts"], "b.ts": ["c.ts"], "c.ts": ["a.ts"], "x.ts": ["y.ts"], "y.ts": ["x.ts", "a.ts"] },
      ["a.ts → b.ts → c.ts → a.ts", "x.ts → y.ts → x.ts"],
    ],
  ])("names the circles of %s", (_, edges, circles) => {
    expect(importCircles(new Map(Object.entries(edges))).sort()).toEqual(circles);
  });

  it("follows imports, type-only imports, re-exports and dynamic imports, relative to the importing folder", () => {
    const sources = new Map([
      [
        "stage/a.ts",
        [
          `import { b } from "./b.js";`,
          `import type { C } from "../other/c.js";`,
          `export { d } from "../d.js";`,
          `const e = await import("./deeper/e.js");`,
          `import { readFileSync } from "node:fs";`,
          `import ts from "typescript";`,
        ].join("\n"),
      ],
      ["stage/b.ts", ""],
      ["other/c.ts", `import { a } from "../stage/a.js";`],
      ["d.ts", ""],
      ["stage/deeper/e.ts", ""],
    ]);
    const graph = importGraph(sources);
    expect(graph.get("stage/a.ts")).toEqual(["stage/b.ts", "other/c.ts", "d.ts", "stage/deeper/e.ts"]);
    expect(importCircles(graph)).toEqual(["other/c.ts → stage/a.ts → other/c.ts"]);
  });
});
