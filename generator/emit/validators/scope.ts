/**
 * Naming inside generated validator code: module-level constants (regular expressions, value
 * sets) shared by content, private helper functions, the runtime namespace, and per-function locals.
 * Names come from what a helper checks, or from counters in emission order: output is deterministic.
 *
 * Which names cannot clash (definition names never start with `$` or `_`: the naming stage
 * guarantees it):
 * - public functions are `is`/`validate`/`parse` + a definition name, and definition types are
 *   imported under their own names (type space only);
 * - everything private at module level starts with `$`: the runtime namespace `$rt`, the
 *   constants (`$pattern1`), the private tests `$testX` and checks `$checkX` of definitions, and
 *   the helpers (`$isNullOrString`, named by what they
 *   check, see helper-names.ts; `$isXPart1` for a part of a big definition), so no definition-derived
 *   name reaches them, whatever the definitions are called (`Object` → `isObject`, `With` →
 *   `validateWith`, `XPart1` → `isXPart1`);
 * - locals are `value`, `path`, `errors`, `at` and numbered words (`value1`, `key2`, `item3`,
 *   numbered when their function is printed, see codegen/print.ts):
 *   none starts with `is`, `validate`, `parse` or `$`, so none shadows a module-level name a
 *   function body calls.
 */
import { and, as, call, compare, id, literal, member, namesOf, not, optionalMember, or, raw, str, TRUE, typeOf, type Expr, type FunctionDecl, type Stmt } from "./codegen/nodes.js";
import { printExpression, printFunction } from "./codegen/print.js";

export const RUNTIME_NAMESPACE = "$rt";

/** A module-level declaration as text, with the module-level names it reads. */
export interface Declaration {
  readonly name: string;
  readonly text: string;
  readonly uses: ReadonlySet<string>;
}

export class ModuleScope {
  private readonly constants = new Map<string, string>();
  private readonly helperNames = new Set<string>();
  readonly constantDeclarations: Declaration[] = [];
  /** The private helper functions as declared; printed once every call site is known (`finished`). */
  private readonly helpers: FunctionDecl[] = [];
  /** The tests some caller calls with `known` (see `callOnObject`). */
  private readonly calledOnObjects = new Set<string>();

  /** A runtime helper from `runtime.ts`, reached through the module's runtime namespace. */
  runtime(name: string): Expr {
    return id(this.runtimeName(name));
  }

  /** A name exported by `runtime.ts` as the module writes it (`$rt.wordsFor`), for code given as text. */
  runtimeName(name: string): string {
    return `${RUNTIME_NAMESPACE}.${name}`;
  }

  /**
   * `v` is a JSON object: an object whose prototype is `Object.prototype` (any realm) or null, so
   * an array, `Map`, `Date` or class instance is none. Written out at each place, calls and all: V8
   * answers `v.constructor` from the place's own inline cache, where a shared runtime function asking
   * `Object.getPrototypeOf` costs a call per object (about half the speed of `isX` on valid
   * messages), and `typeof v === "object" && v !== null` inline beats a call to a runtime type guard
   * saying the same (`npm run bench`: `is` 5–20% faster on small definitions). Anything else (an own
   * `constructor`, a null prototype, another realm, an array) goes to the runtime's `hasJsonPrototype`.
   * TypeScript narrows `v` only to `object` here: a function that reads members after this test
   * takes its parameter as `input` and reads it as a JSON object (`withObjectView`).
   */
  isJsonObject(v: Expr): Expr {
    return and(
      compare(typeOf(v), "===", str("object")),
      compare(v, "!==", literal("null")),
      or(compare(member(v, "constructor"), "===", id("Object")), call(this.runtime("hasJsonPrototype"), v)),
    );
  }

  /**
   * A function over `value: unknown` whose body begins by returning false unless `value` is a JSON
   * object (`isJsonObject`) takes its parameter as `input` and reads it as `value`, typed as a JSON
   * object (`const value = input as $rt.JsonObject;`: the next line tests exactly that, and the cast
   * is gone in JavaScript). Any other function is returned as it is.
   */
  withObjectView(fn: FunctionDecl): FunctionDecl {
    const [param, ...rest] = fn.params;
    if (param?.name !== "value" || param.type !== "unknown" || !this.opensWithObjectTest(fn.body)) return fn;
    const view: Stmt = { kind: "const", name: "value", init: raw(`input as ${this.runtimeType("JsonObject")}`, ["input"]) };
    return {
      ...fn,
      params: [{ ...param, name: "input" }, ...rest],
      returns: fn.returns.replace(/^value is /, "input is "),
      body: [view, ...fn.body],
    };
  }

  /**
   * A call of the test `name` (whose body `opensWithObjectTest`) on `v`, which the caller has already found
   * to be a JSON object (an earlier part of an `allOf`, the object a discriminated union read its tag
   * from): `name(v, true)`, and `name` takes `known` and skips its own object test then. A value
   * that an `allOf` and a union each test as an object was tested three times, every time reading
   * `constructor` at another place; where those places see many shapes each read is a megamorphic
   * lookup (`npm run bench`: `isTaskStatusNotification` of ext-tasks-draft 15–30% faster on invalid
   * values). One function with a flag, not a second copy: the validators are held to half of ajv's size.
   */
  callOnObject(name: string, v: Expr): Expr {
    this.calledOnObjects.add(name);
    return call(name, v, TRUE);
  }

  /**
   * A function as the module prints it: its object view (`withObjectView`), and `known` for a test some
   * caller calls on a known object (`callOnObject`): `if (!known && !(<object test>)) return false;`.
   */
  finished(declared: FunctionDecl): FunctionDecl {
    const fn = this.withObjectView(declared);
    if (!this.calledOnObjects.has(fn.name)) return fn;
    const [view, test, ...rest] = fn.body;
    if (view === undefined || fn === declared || test?.kind !== "if") throw new Error(`internal: ${fn.name} is called with known but has no object test`);
    const known: Stmt = { ...test, test: and(not(id("known")), test.test) };
    return { ...fn, params: [...fn.params, { name: "known", type: "boolean", optional: true }], body: [view, known, ...rest] };
  }

  /** The private helper functions, printed (after every call site was made: see `finished`). */
  helperFunctions(): Declaration[] {
    return this.helpers.map((declared) => {
      const fn = this.finished(declared);
      return { name: fn.name, text: printFunction(fn), uses: namesOf(fn.body) };
    });
  }

  /** Whether a test's body begins by returning false for anything but a JSON object (`isJsonObject`). */
  opensWithObjectTest(body: readonly Stmt[]): boolean {
    const first = body[0];
    if (first?.kind !== "if" || first.otherwise.length > 0) return false;
    const [then] = first.then;
    const returnsFalse = first.then.length === 1 && then?.kind === "return" && then.expr.kind === "bool" && !then.expr.value;
    return returnsFalse && printExpression(first.test) === (this.notObjectText ??= printExpression(not(this.isJsonObject(id("value")))));
  }

  private notObjectText: string | undefined;

  /**
   * The same test for the error mode, as one runtime call given the value's `constructor`, read here
   * (`isJsonObject(value, (value as object | null)?.constructor)`): that read is the place's own inline
   * cache, where the runtime's would be shared by every check (see `isJsonObject` in the runtime). The
   * rest of the test is shorter as a call, and the call's type guard narrows `v`.
   */
  isJsonObjectOnErrorPath(v: Expr): Expr {
    return call(this.runtime("isJsonObject"), v, optionalMember(as(v, "object | null"), "constructor"));
  }

  /** A runtime type from `runtime.ts`, as written in a parameter's type. */
  runtimeType(name: string): string {
    return this.runtimeName(name);
  }

  /**
   * A module constant, shared by every use with the same initializer; `uses`: the module-level
   * names the initializer reads (another constant it builds on).
   */
  constant(prefix: string, initializer: string, uses: readonly string[] = []): Expr {
    const existing = this.constants.get(initializer);
    if (existing) return id(existing);
    const name = `$${prefix}${this.constants.size + 1}`;
    this.constants.set(initializer, name);
    this.constantDeclarations.push({ name, text: `const ${name} = ${initializer};`, uses: new Set(uses) });
    return id(name);
  }

  /**
   * A private helper function, shared by every use with the same body: `declare(name)` builds it
   * under a name, and the first free name of `names` is chosen (else `fallback` with a part
   * number). The same check is one function, whatever asks.
   */
  sharedHelper(names: readonly string[], fallback: string, declare: (name: string) => FunctionDecl): string {
    const key = printFunction(declare("\u0000"));
    const existing = this.helpersByDeclaration.get(key);
    if (existing) return existing;
    const free = names.find((n) => !this.helperNames.has(n));
    const name = free ?? this.helperName(fallback);
    this.helperNames.add(name);
    this.helpersByDeclaration.set(key, name);
    this.addFunction(declare(name));
    return name;
  }

  /** A private helper function under a name from `helperName`. */
  addFunction(declared: FunctionDecl): void {
    this.helpers.push(declared);
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

/** Property access on a narrowed JSON object, safe for names Object.prototype also has. */
export function propertyAccess(object: Expr, name: string, scope: ModuleScope): Expr {
  if (PROTOTYPE_NAMES.has(name)) return call(scope.runtime("ownValue"), object, str(name));
  return member(object, name);
}

const PROTOTYPE_NAMES = new Set([...Object.getOwnPropertyNames(Object.prototype), "__proto__"]);
