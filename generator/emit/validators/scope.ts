/**
 * Naming inside generated validator code: module-level constants (regular expressions, value
 * sets) shared by content, private helper functions, the runtime namespace, and per-function locals.
 * Names come from what a helper checks, or from counters in emission order: output is deterministic.
 *
 * Which names cannot clash (definition names never start with `$` or `_`: the naming stage
 * guarantees it):
 * - public functions are `is`/`validate`/`parse` + a definition name, and definition types are
 *   imported under their own names (type space only);
 * - everything private at module level starts with `$`: the runtime namespace `$runtime`, the
 *   constants (`$pattern1`), `$checkX` and the helpers (`$isNullOrString`, named by what they
 *   check, see helper-names.ts; `$isXPart1` for a part of a big definition), so no definition-derived
 *   name reaches them, whatever the definitions are called (`Object` → `isObject`, `With` →
 *   `validateWith`, `XPart1` → `isXPart1`);
 * - locals are `value`, `path`, `errors`, `at` and numbered words (`value1`, `key2`, `item3`):
 *   none starts with `is`, `validate`, `parse` or `$`, so none shadows a module-level name a
 *   function body calls.
 */
export const RUNTIME_NAMESPACE = "$runtime";

export class ModuleScope {
  private readonly constants = new Map<string, string>();
  private readonly helperNames = new Set<string>();
  readonly constantDeclarations: string[] = [];
  readonly helperFunctions: string[] = [];

  /** A runtime helper or type from `runtime.ts`, reached through the module's runtime namespace. */
  runtime(name: string): string {
    return `${RUNTIME_NAMESPACE}.${name}`;
  }

  /** A module constant, shared by every use with the same initializer. */
  constant(prefix: string, initializer: string): string {
    const existing = this.constants.get(initializer);
    if (existing) return existing;
    const name = `$${prefix}${this.constants.size + 1}`;
    this.constants.set(initializer, name);
    this.constantDeclarations.push(`const ${name} = ${initializer};`);
    return name;
  }

  /**
   * A private helper function with this declaration, shared by every use with the same
   * declaration: `declare(name)` writes it under a name, and the first free name of `names` is
   * chosen (else `fallback` with a part number). The same check is one function, whatever asks.
   */
  sharedHelper(names: readonly string[], fallback: string, declare: (name: string) => string): string {
    const key = declare("\u0000");
    const existing = this.helpersByDeclaration.get(key);
    if (existing) return existing;
    const free = names.find((n) => !this.helperNames.has(n));
    const name = free ?? this.helperName(fallback);
    this.helperNames.add(name);
    this.helpersByDeclaration.set(key, name);
    this.helperFunctions.push(declare(name));
    return name;
  }

  private readonly helpersByDeclaration = new Map<string, string>();

  /** A fresh name for a private helper function (`base` is a private name, starting with `$`). */
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
  // `\b` does not work next to `$`: look for a character that cannot be part of an identifier instead.
  const pattern = new RegExp(`(^|[^\\w$])${identifier.replace(/\$/g, "\\$")}(?![\\w$])`);
  return typeof code === "string" ? pattern.test(code) : code.some((line) => pattern.test(line));
}
