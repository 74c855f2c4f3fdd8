import { readdirSync, readFileSync } from "node:fs";
import { join, posix } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { generateFromMemory } from "../../generator/generate.js";
import { formatTypeScript } from "../../generator/output/format.js";
import { STATIC_MODULES } from "../../generator/emit/templates.js";
import { PART_SPECS, partModule, partOfModule, RUNTIME_PARTS } from "../../generator/emit/runtime-parts.js";
import { projectRoot } from "../support/paths.js";

/**
 * The static modules of generated stubs (templates/runtime/<layer>/*.ts): real TypeScript the
 * project type-checks, copied into each set's runtime/ folder as written. These checks keep that
 * copy honest: the sources are already formatted as prettier would format them (so generation can
 * skip formatting them), they import only each other, and a generated set holds them byte for byte
 * below its header.
 */

const RUNTIME_DIR = join(projectRoot, "templates", "runtime");
/** Every file below templates/runtime/, by its `/`-separated path there (`client/engine.ts`). */
const staticFiles = readdirSync(RUNTIME_DIR, { recursive: true, encoding: "utf8" })
  .map((f) => f.split("\\").join("/"))
  .filter((f) => f.endsWith(".ts"))
  .sort();

function importsOf(file: string, code: string): string[] {
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  return source.statements.flatMap((s) =>
    (ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) && s.moduleSpecifier && ts.isStringLiteral(s.moduleSpecifier) ? [s.moduleSpecifier.text] : [],
  );
}

/** A generated file's body: what follows its header and fingerprint line. */
function bodyOf(contents: string): string {
  const fingerprint = contents.indexOf("\n// Fingerprint: ");
  return contents.slice(contents.indexOf("\n\n", fingerprint) + 2);
}

describe("static modules (templates/runtime/)", () => {
  it("are the files the generator knows as static modules, no more and no fewer", () => {
    expect(staticFiles).toEqual(STATIC_MODULES.map((name) => `${name}.ts`).sort());
  });

  it.each(staticFiles)("%s is formatted as the generator formats output", async (file) => {
    const source = readFileSync(join(RUNTIME_DIR, file), "utf8");
    expect(await formatTypeScript(source)).toBe(source);
  });

  it.each(staticFiles)("%s imports only other static modules (a runtime part also what its spec declares)", (file) => {
    const part = partOfModule(file.replace(/\.ts$/, ""));
    const outside = part ? PART_SPECS[part].imports : [];
    const imports = importsOf(file, readFileSync(join(RUNTIME_DIR, file), "utf8"));
    for (const specifier of imports) {
      if (outside.some((prefix) => specifier === prefix || (prefix.endsWith("/") || prefix.endsWith(":") ? specifier.startsWith(prefix) : false))) continue;
      // A module of its own layer (`./core.js`) or of another (`../protocol/json.js`), never a way out of templates/runtime/.
      expect(specifier).toMatch(/^(?:\.\/|\.\.\/[a-z-]+\/)[a-z0-9-]+\.js$/);
      expect(staticFiles).toContain(posix.join(posix.dirname(file), specifier).replace(/\.js$/, ".ts"));
    }
  });

  it("the runtime parts' own imports from outside the set are exactly what their specs declare (the header names them)", () => {
    const declared: Record<string, string[]> = {};
    const found: Record<string, string[]> = {};
    for (const part of RUNTIME_PARTS) {
      declared[part] = [...PART_SPECS[part].imports].sort();
      const specifiers = importsOf(`${part}.ts`, readFileSync(join(RUNTIME_DIR, `${partModule(part)}.ts`), "utf8")).filter((s) => !s.startsWith("."));
      // Reduced to the declared form: `node:http` counts as `node:`, `@scope/pkg/sub.js` as `@scope/pkg/`.
      found[part] = [...new Set(specifiers.map((s) => (s.startsWith("node:") ? "node:" : s.startsWith("@") ? `${s.split("/").slice(0, 2).join("/")}/` : s)))].sort();
    }
    expect(found).toEqual(declared);
  });

  it("are type-checked with the project (tsconfig.json includes them)", () => {
    const config = ts.readConfigFile(join(projectRoot, "tsconfig.json"), ts.sys.readFile).config as { include: string[] };
    expect(config.include).toContain("templates/runtime");
  });

  it("are in the committed generated sets byte for byte below the header, wherever a set has them", () => {
    const generated = join(projectRoot, "generated");
    let copies = 0;
    for (const set of readdirSync(generated)) {
      for (const file of staticFiles) {
        let contents: string;
        try {
          contents = readFileSync(join(generated, set, "runtime", file), "utf8");
        } catch {
          continue;
        }
        expect(bodyOf(contents), `${set}/${file}`).toBe(readFileSync(join(RUNTIME_DIR, file), "utf8"));
        copies++;
      }
    }
    // Every set has runtime/protocol/json.ts; the two with a form elicitation have runtime/protocol/elicitation-forms.ts.
    expect(copies).toBeGreaterThanOrEqual(5);
  });
});

describe("names the static modules export through a set's modules", () => {
  // The ext-tasks draft with one more definition, named like what server.ts and client.ts
  // re-export from server-core.ts and client-core.ts: index.ts could not export both.
  const draft = JSON.parse(readFileSync(join(projectRoot, "schemas", "ext-tasks-2026-05-22.schema.json"), "utf8")) as { $defs: Record<string, unknown> };
  const withDefinition = (name: string) => {
    const schema = structuredClone(draft);
    schema.$defs[name] = { type: "object", properties: { x: { type: "string" } } };
    const uri = "https://example.test/ext.json";
    return generateFromMemory({
      documents: [{ uri, json: schema }],
      roots: Object.keys(schema.$defs).map((def) => ({ name: def, uri: `${uri}#/$defs/${encodeURIComponent(def)}` })),
      format: false,
    });
  };

  it.each([
    ["TaskLimitError", "server"],
    ["JsonRpcError", "server"],
    ["RequestTimeoutError", "client"],
    ["TasksClientSignal", "client"],
  ])("a definition named %s clashes with the generated %s.ts", async (name, module) => {
    await expect(withDefinition(name)).rejects.toThrow(`the definition name "${name}" is also exported by the generated ${module}.ts`);
  });

  it("a name only a static module uses inside itself does not clash", async () => {
    const { files } = await withDefinition("TaskEngine");
    expect(files.map((f) => f.name)).toContain("runtime/server/core.ts");
  });
});

describe("names a set's modules import from static modules", () => {
  it("a definition imported into server.ts under a name server.ts also imports from a static module is a located error", async () => {
    // The draft's task type renamed StoredTaskOf: server.ts imports it from types.ts and the
    // engine's StoredTaskOf from server-engine.ts.
    const text = readFileSync(join(projectRoot, "schemas", "ext-tasks-2026-05-22.schema.json"), "utf8");
    const renamed = JSON.parse(text.replace('\n    "Task": {', '\n    "StoredTaskOf": {').replaceAll('"#/$defs/Task"', '"#/$defs/StoredTaskOf"')) as { $defs: object };
    expect(Object.keys(renamed.$defs)).toContain("StoredTaskOf");
    const uri = "https://example.test/ext.json";
    const generating = generateFromMemory({
      documents: [{ uri, json: renamed }],
      roots: Object.keys(renamed.$defs).map((def) => ({ name: def, uri: `${uri}#/$defs/${def}` })),
      format: false,
    });
    await expect(generating).rejects.toThrow('the definition name "StoredTaskOf" is also a name the generated server.ts imports from another module of the set');
  });
});
