/**
 * Naming inside generated validator code: module-level constants (regular expressions, value
 * sets) shared by content, private helper functions, runtime imports, and per-function locals.
 * Names come from counters in emission order, so output is deterministic.
 */
export class ModuleScope {
  private readonly constants = new Map<string, string>();
  private readonly helperNames = new Set<string>();
  readonly constantDeclarations: string[] = [];
  readonly helperFunctions: string[] = [];
  readonly runtimeImports = new Set<string>();

  /** A runtime helper from `runtime.ts`, imported on first use. */
  runtime(name: string): string {
    this.runtimeImports.add(name);
    return name;
  }

  /** A module constant, shared by every use with the same initializer. */
  constant(prefix: string, initializer: string): string {
    const existing = this.constants.get(initializer);
    if (existing) return existing;
    const name = `${prefix}${this.constants.size + 1}`;
    this.constants.set(initializer, name);
    this.constantDeclarations.push(`const ${name} = ${initializer};`);
    return name;
  }

  /** A fresh name for a private helper function. */
  helperName(base: string): string {
    for (let i = 1; ; i++) {
      const name = `${base}${i}`;
      if (!this.helperNames.has(name)) {
        this.helperNames.add(name);
        return name;
      }
    }
  }
}

/** Local variable names within one generated function. */
export class FunctionScope {
  private count = 0;
  local(hint: string): string {
    this.count++;
    return `${hint}${this.count}`;
  }
}

/** Property access on a narrowed JSON object, safe for names Object.prototype also has. */
export function propertyAccess(object: string, name: string, scope: ModuleScope): string {
  if (PROTOTYPE_NAMES.has(name)) return `${scope.runtime("ownValue")}(${object}, ${JSON.stringify(name)})`;
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? `${object}.${name}` : `${object}[${JSON.stringify(name)}]`;
}

const PROTOTYPE_NAMES = new Set([...Object.getOwnPropertyNames(Object.prototype), "__proto__"]);

export function indent(lines: readonly string[]): string[] {
  return lines.map((l) => `  ${l}`);
}

/** Whether generated code refers to an identifier (to leave out what nothing reads). */
export function mentions(code: string | readonly string[], identifier: string): boolean {
  const pattern = new RegExp(`\\b${identifier.replace(/\$/g, "\\$")}\\b`);
  return typeof code === "string" ? pattern.test(code) : code.some((line) => pattern.test(line));
}
