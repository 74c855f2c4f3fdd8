/**
 * Naming: the one place that chooses TypeScript identifiers. Definitions keep the name the
 * schema gives them; anonymous objects and discriminated-union variants get a name from their
 * place (`GetTaskRequest` › `params` → `GetTaskRequestParams`; a `mode: "form"` variant of
 * `McpServerElicitationRequestParams` → `McpServerElicitationRequestParamsForm`); identical shapes of
 * one role (the `_meta` of every `…Result`) are declared once, as `ResultMeta` (see sharedRoles). No
 * counters, ever: a definition name that is not an identifier keeps the meaning of its punctuation
 * (`ConditionalValueDef<(number[]|ExprRef)>` → `ConditionalValueDefOfNumberArrayOrExprRef`, see
 * spokenName); a clash that remains falls back to a longer, still meaningful name, then to a suffix
 * from the definition's own place (clashSuffixed), with a warning naming the `names` entry to add.
 */
import { createHash } from "node:crypto";
import { GeneratorError, formatLocation, remedyText, type Diagnostic, type SourceLocation } from "../diagnostics.js";
import { isIdentifier, pascalCase, spokenName, type ChosenName } from "../names.js";
import type { Definition, DefinitionId, Node, RefNode } from "../ir/nodes.js";
import { copyKey } from "../ir/structure.js";
import { mapChildren, mapObjectChildren, visitNodes } from "../ir/walk.js";

/** Like pascalCase, but keeps separators visible, for names that would otherwise clash. */
function spelledOut(text: string): string {
  const named: Record<string, string> = { "/": "Slash", ".": "Dot", "-": "Dash", "_": "Underscore", ":": "Colon", " ": "Space" };
  return spokenName(text.replace(/[/.\-_: ]/g, (c) => ` ${named[c]} `));
}

/** The part of a property name that names the thing: `io.modelcontextprotocol/related-task` → `RelatedTask`. */
function placeName(property: string): string {
  const last = property.split("/").pop() ?? property;
  return pascalCase(last);
}

/**
 * The identifier a definition is declared under: its schema name when that is an identifier,
 * else the name in PascalCase. Names starting with `$` or `_` are PascalCased too: those prefixes
 * belong to the generator's private names in generated code, which definitions must not reach.
 * Names of JavaScript and TypeScript globals (`Error`, `Promise`, `Record`, `Object`) are kept:
 * generated code never refers to a global by a name a definition can shadow in the same module.
 */
export function definitionName(def: Definition): string {
  return isIdentifier(def.nameHint) && !/^[$_]/.test(def.nameHint) ? def.nameHint : spokenName(def.nameHint);
}

/**
 * The last resort for a definition whose name clashes: the name, `_`, and the first six hex digits of
 * the SHA-256 of the definition's place as the schema writes it (the document's file name without
 * folders, `#`, the JSON pointer). A function of the definition alone, so the same on every run and
 * machine, whatever the order definitions are met in; `digits` grows only if two places share a prefix.
 */
export function clashSuffixed(name: string, loc: SourceLocation, digits = 6): string {
  const place = `${loc.file.split("/").pop() ?? loc.file}#${loc.pointer}`;
  return `${name}_${createHash("sha256").update(place).digest("hex").slice(0, digits)}`;
}

/** A name clash resolved by a fallback name: a warning, with the `names` entry that would choose better. */
export type NameClashWarning = Diagnostic;

export interface NamedDefinition extends Definition {
  readonly name: string;
  /** For hoisted definitions: the definition they were found in. */
  readonly owner?: DefinitionId;
}

export interface NamingOptions {
  /** Names the user chose (config `names`, `--name`), by the location of the schema they name (`file#/pointer`). */
  readonly chosen?: ReadonlyMap<string, ChosenName>;
  /** The set in the config, so a clash can say what to add there; absent for an ad-hoc run. */
  readonly setOrigin?: SourceLocation;
  /** Hears each clash resolved by a fallback name (see resolveClashes). */
  readonly onClash?: (warning: NameClashWarning) => void;
}

/**
 * Names every definition, then hoists anonymous objects and discriminated variants into
 * definitions of their own (replacing them by references), named from their place.
 */
export function nameDefinitions(definitions: readonly Definition[], options: NamingOptions = {}): NamedDefinition[] {
  const chosen = options.chosen ?? new Map<string, ChosenName>();
  const chosenFor = (loc: SourceLocation) => chosen.get(formatLocation(loc));
  checkChosenNames(definitions, chosen);
  const taken = new Map<string, Definition>();
  const named: NamedDefinition[] = [];
  // Definitions of the input files first: their names are the schema's own, and a clash between
  // two of them is the schema's problem to fix. A definition only reached through a `$ref` yields
  // its plain name to them and takes a name qualified by where it lives. Chosen names are the
  // user's word: they are claimed first.
  const ordered = [...definitions.filter((d) => d.exported), ...definitions.filter((d) => !d.exported)];
  for (const def of ordered) {
    const choice = chosenFor(def.loc);
    if (choice) taken.set(choice.name, def);
  }
  const resolved = resolveClashes(ordered.filter((d) => d.exported && !chosenFor(d.loc)), taken, chosen, options);
  for (const def of ordered) {
    const choice = chosenFor(def.loc);
    if (choice) {
      named.push({ ...def, name: choice.name });
      continue;
    }
    const settled = resolved.get(def.id);
    if (settled !== undefined) {
      named.push({ ...def, name: settled });
      continue;
    }
    const plain = definitionName(def);
    const clash = taken.get(plain);
    let name = plain;
    if (clash) name = [qualifiedName(def, plain), pascalCase(`${def.loc.file} ${def.loc.pointer}`)].find((n) => !taken.has(n))!;
    if (taken.has(name)) throw new GeneratorError(def.loc, `no unique name for this definition (tried "${plain}" and "${name}")`);
    taken.set(name, def);
    named.push({ ...def, name });
  }
  const position = new Map(definitions.map((d, i) => [d.id, i]));
  named.sort((a, b) => position.get(a.id)! - position.get(b.id)!);

  // Names chosen for inline shapes are reserved too, so no derived name takes them first.
  const names = new Set([...taken.keys(), ...[...chosen.values()].map((c) => c.name)]);
  const roles = sharedRoles(named, names, chosenFor);
  return hoistShapes(named, names, chosenFor, roles).definitions;
}

/**
 * The names of the input files' definitions (those not chosen), claimed into `taken`. A name wanted
 * by one definition is its. Where several want one name N, a definition the schema itself calls N
 * (an identifier as written) keeps it (the first such in source order, when two documents both
 * have N); every other one takes the first of these that no other definition wants and that is
 * free: its name with its separators spelled out (`task-status` → `TaskDashStatus`), its name
 * after its document's (`TreeSchemaTree`), then N with its place's suffix (clashSuffixed). Each
 * fallback is reported once (options.onClash) with the `names` entry that would choose better.
 */
function resolveClashes(
  exported: readonly Definition[],
  taken: Map<string, Definition>,
  chosen: ReadonlyMap<string, ChosenName>,
  options: NamingOptions,
): Map<DefinitionId, string> {
  const wanting = new Map<string, Definition[]>();
  for (const def of exported) {
    const plain = definitionName(def);
    wanting.set(plain, [...(wanting.get(plain) ?? []), def]);
  }
  const names = new Map<DefinitionId, string>();
  const yielding: { def: Definition; plain: string; keeper: Definition | undefined; rivals: Definition[] }[] = [];
  for (const [plain, defs] of wanting) {
    const owner = taken.get(plain);
    const keeper = owner ? undefined : defs.length === 1 ? defs[0] : defs.find((d) => d.nameHint === plain);
    if (keeper) {
      taken.set(plain, keeper);
      names.set(keeper.id, plain);
    }
    for (const def of defs) if (def !== keeper) yielding.push({ def, plain, keeper: keeper ?? owner, rivals: defs.filter((d) => d !== def) });
  }
  const unavailable = (name: string) => wanting.has(name) || taken.has(name) || isChosen(chosen, name);
  const candidates = (y: (typeof yielding)[number]) => [spelledOut(y.def.nameHint), qualifiedName(y.def, y.plain)].filter((n) => n !== y.plain && isIdentifier(n));
  let open = yielding;
  for (let level = 0; level < 2 && open.length > 0; level++) {
    const at = open.map((y) => candidates(y)[level]);
    const count = new Map<string, number>();
    for (const name of at) if (name !== undefined) count.set(name, (count.get(name) ?? 0) + 1);
    open = open.filter((y, i) => {
      const name = at[i];
      if (name === undefined || count.get(name) !== 1 || unavailable(name)) return true;
      taken.set(name, y.def);
      names.set(y.def.id, name);
      return false;
    });
  }
  for (const y of open) {
    const name = [6, 12, 64].map((digits) => clashSuffixed(y.plain, y.def.loc, digits)).find((n) => !unavailable(n));
    if (name === undefined) throw new GeneratorError(y.def.loc, `no unique name for this definition (tried "${y.plain}" with its place's suffix)`);
    taken.set(name, y.def);
    names.set(y.def.id, name);
  }
  for (const y of yielding) {
    const name = names.get(y.def.id)!;
    const others = (y.keeper ? [y.keeper] : y.rivals).map((d) => d.loc);
    const remedy = { target: y.def.loc, suggestion: name, ...(options.setOrigin ? { set: options.setOrigin } : {}) };
    options.onClash?.({
      severity: "warning",
      rule: "name-clash",
      location: y.def.loc,
      message: `named "${name}": "${y.plain}" is also the name of ${others.map(formatLocation).join(", ")}; ${remedyText(remedy)} (or a better name)`,
      // A config's `names` key is relative to the config, as the message has it; `--name`'s is shown like the other places.
      places: options.setOrigin ? others : [...others, y.def.loc],
    });
  }
  return names;
}

/**
 * A role: one property of owners of one kind, the kind being the last word of the owner's name
 * (`_meta` of `CancelTaskResult` and of `GetTaskResult` is the role `Result` › `_meta`).
 */
type RoleKey = string;

function roleKey(ownerName: string, property: string): RoleKey {
  return JSON.stringify([kindOf(ownerName), property]);
}

/** The last word of a PascalCase name: `GetTaskResult` → `Result`, `ElicitRequestURLParams` → `Params`. */
export function kindOf(name: string): string {
  const words = name.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+/g);
  return words?.[words.length - 1] ?? name;
}

/** A shape found in a property of a named owner, that becomes a type of its own. */
interface HoistedShape {
  readonly role: RoleKey;
  /** The name it was declared under. */
  readonly name: string;
  readonly owner: string;
  readonly property: string;
  readonly shape: string;
  readonly chosen: boolean;
  /** The roles of the shapes it is found inside, outermost first. */
  readonly inside: readonly RoleKey[];
}

/**
 * Equal for shapes that would be declared alike: the same structure and the same annotations on
 * every node, the root's included (its description becomes the type's comment; `default`,
 * `examples` and `format` are printed too).
 */
function declarationKey(node: Node): string {
  const docs: unknown[] = [];
  visitNodes(node, (n) => docs.push(n.docs ?? null));
  return `${copyKey(node)}${JSON.stringify(docs)}`;
}

/** A role whose shapes are declared once, under `name`. */
interface SharedRole {
  readonly name: string;
}

/**
 * The roles whose shapes are declared once. A role is shared when it occurs under at least two
 * owners, every occurrence has the same shape (descriptions included), none has a chosen name,
 * and the role's name (`ResultMeta`: the kind, then the property) is free. Roles are found from
 * the outside in: once `Result` › `_meta` is shared, what is inside it has one owner (`ResultMeta`),
 * so `io.modelcontextprotocol/related-task` there is simply `ResultMetaRelatedTask`.
 */
function sharedRoles(
  named: readonly NamedDefinition[],
  names: ReadonlySet<string>,
  chosenFor: (loc: SourceLocation) => ChosenName | undefined,
): Map<RoleKey, SharedRole> {
  const roles = new Map<RoleKey, SharedRole>();
  for (;;) {
    const { shapes, definitions } = hoistShapes(named, new Set(names), chosenFor, roles);
    // Names hoisted shapes take by their place (a `Result` with a `meta` object is `ResultMeta` too).
    const placeNames = new Map(shapes.map((s) => [s.name, s.role]));
    const hoistedNames = new Set(definitions.filter((d) => d.owner !== undefined).map((d) => d.name));
    const byRole = new Map<RoleKey, HoistedShape[]>();
    for (const shape of shapes) byRole.set(shape.role, [...(byRole.get(shape.role) ?? []), shape]);
    const candidates = new Map<RoleKey, SharedRole>();
    for (const [role, found] of byRole) {
      if (roles.has(role) || new Set(found.map((f) => f.owner)).size < 2) continue;
      if (found.some((f) => f.chosen || f.shape !== found[0]!.shape)) continue;
      // What is inside a shared shape has that one owner and is named from it (`ResultMetaRelatedTask`):
      // a look-alike elsewhere (an added definition holding the same nested shape) must not pull it
      // into a role of its own and rename it.
      if (found.some((f) => f.inside.some((r) => roles.has(r)))) continue;
      const name = `${kindOf(found[0]!.owner)}${placeName(found[0]!.property)}`;
      if (!isIdentifier(name) || names.has(name) || [...roles.values(), ...candidates.values()].some((r) => r.name === name)) continue;
      // Taken by a shape of another place (not an occurrence of this role): each keeps its place's name.
      if (hoistedNames.has(name) && placeNames.get(name) !== role) continue;
      candidates.set(role, { name });
    }
    // Outermost first: a role found inside another candidate waits for the next round.
    const outermost = [...candidates].filter(([role]) => !byRole.get(role)!.some((f) => f.inside.some((r) => candidates.has(r))));
    if (outermost.length === 0) return roles;
    for (const [role, shared] of outermost) roles.set(role, shared);
  }
}

/**
 * Hoists anonymous objects and discriminated variants into definitions of their own (replacing
 * them by references), named from their place; a shape of a shared role is hoisted once, under
 * the role's name, and every occurrence refers to it.
 */
function hoistShapes(
  named: readonly NamedDefinition[],
  names: Set<string>,
  chosenFor: (loc: SourceLocation) => ChosenName | undefined,
  roles: ReadonlyMap<RoleKey, SharedRole>,
): { definitions: NamedDefinition[]; shapes: HoistedShape[] } {
  const result: NamedDefinition[] = [];
  const shapes: HoistedShape[] = [];
  // Shared roles' names are reserved, so no name derived from a place takes one first.
  for (const role of roles.values()) names.add(role.name);
  const sharedIds = new Map<RoleKey, DefinitionId>();
  // A shared shape found in an exported definition is exported, whichever definition hoisted it.
  const exportedShared = new Set<DefinitionId>();
  for (const def of named) {
    // Parents before the children hoisted out of them, in the order they appear.
    const hoisted: (NamedDefinition | undefined)[] = [];
    const claim = (candidates: string[], node: Node): string => {
      const name = candidates.find((c) => !names.has(c));
      if (name === undefined) {
        throw new GeneratorError(node.loc, `no unique name for this inline schema (tried ${candidates.map((c) => `"${c}"`).join(", ")})`);
      }
      names.add(name);
      return name;
    };
    const hoist = (node: Node, owner: Owner, place: string, property?: string): RefNode => {
      const role = property === undefined ? undefined : roleKey(owner.name, property);
      const shared = role === undefined ? undefined : roles.get(role);
      const known = role === undefined ? undefined : sharedIds.get(role);
      if (known !== undefined) {
        if (def.exported) exportedShared.add(known);
        return { kind: "ref", target: known, loc: node.loc };
      }
      const name = shared?.name ?? chosenFor(node.loc)?.name ?? claim(nestedNames(def.name, owner, place, node.loc.pointer), node);
      if (role !== undefined && property !== undefined) {
        shapes.push({ role, name, owner: owner.name, property, shape: declarationKey(node), chosen: chosenFor(node.loc) !== undefined, inside: owner.roles });
      }
      const id = `${formatLocation(node.loc)}@${name}`;
      if (shared) sharedIds.set(role!, id);
      const slot = hoisted.push(undefined) - 1;
      const body = visitChildren(node, { name, level: owner.level + 1, place, roles: role === undefined ? owner.roles : [...owner.roles, role] });
      hoisted[slot] = { id, loc: node.loc, node: body, nameHint: name, exported: def.exported, name, owner: def.id };
      return { kind: "ref", target: id, loc: node.loc };
    };
    const visit = (node: Node, owner: Owner, place: string | undefined, property?: string): Node => {
      if (place !== undefined && node.kind === "object" && node.properties.length > 0) return hoist(node, owner, place, property);
      if (place !== undefined && node.kind === "union" && node.discriminator) return hoist(node, owner, place, property);
      return visitChildren(node, owner);
    };
    const visitChildren = (node: Node, owner: Owner): Node => {
      switch (node.kind) {
        case "object":
          return mapObjectChildren(
            node,
            (child, name) => visit(child, owner, placeName(name), name),
            (child) => visit(child, owner, undefined),
          );
        case "map":
          return mapChildren(node, (child) => visit(child, owner, child === node.values ? "Value" : undefined));
        case "array":
          return mapChildren(node, (child) => visit(child, owner, child === node.items ? "Item" : undefined));
        case "union": {
          const discriminator = node.discriminator;
          if (!discriminator) return mapChildren(node, (child) => visit(child, owner, undefined));
          const labels = discriminator.cases.map((c) => c.values.map((v) => pascalCase(String(v))).join("Or"));
          const clashing = new Set(labels.filter((l, i) => labels.indexOf(l) !== i));
          return {
            ...node,
            variants: node.variants.map((variant, i) => {
              if (variant.kind !== "object") return visit(variant, owner, undefined);
              const values = discriminator.cases[i]!.values.map(String);
              const label = clashing.has(labels[i]!) ? values.map(spelledOut).join("Or") : labels[i]!;
              return hoist(variant, owner, label);
            }),
          };
        }
        default:
          return mapChildren(node, (child) => visit(child, owner, undefined));
      }
    };
    const body = visitChildren(def.node, { name: def.name, level: 0, place: "", roles: [] });
    result.push({ ...def, node: body }, ...hoisted.filter((h): h is NamedDefinition => h !== undefined));
  }
  return { definitions: result.map((d) => (exportedShared.has(d.id) && !d.exported ? { ...d, exported: true } : d)), shapes };
}

function isChosen(chosen: ReadonlyMap<string, ChosenName>, name: string): boolean {
  return [...chosen.values()].some((c) => c.name === name);
}

/**
 * A chosen name must be new: not chosen twice, and not the name another input definition already
 * has (reported at the choice, which is where the fix goes).
 */
function checkChosenNames(definitions: readonly Definition[], chosen: ReadonlyMap<string, ChosenName>): void {
  if (chosen.size === 0) return;
  const byName = new Map<string, ChosenName>();
  for (const choice of chosen.values()) {
    const other = byName.get(choice.name);
    if (other) throw choiceError(choice, `the name "${choice.name}" is also chosen for ${keyOf(other)}`);
    byName.set(choice.name, choice);
  }
  for (const def of definitions) {
    const choice = byName.get(definitionName(def));
    if (def.exported && choice && !chosen.has(formatLocation(def.loc))) {
      throw choiceError(choice, `the name "${choice.name}" is already the name of ${formatLocation(def.loc)}; choose another`, def.loc);
    }
  }
}

function keyOf(choice: ChosenName): string {
  return "flag" in choice.origin ? choice.origin.flag : formatLocation(choice.origin);
}

/** An error about a chosen name, located where it was chosen (the config entry, or the flag). */
export function choiceError(choice: ChosenName, detail: string, related?: SourceLocation): GeneratorError {
  return "flag" in choice.origin
    ? new GeneratorError(undefined, `${choice.origin.flag}: ${detail}`, "config", undefined, related)
    : new GeneratorError(choice.origin, detail, "config", undefined, related);
}

/** `Tree` from `schemas/tree.schema.json` → `TreeSchemaTree`: the document's name, then the definition's. */
function qualifiedName(def: Definition, plain: string): string {
  const document = (def.loc.file.split("/").pop() ?? "").replace(/\.json$/, "");
  return `${pascalCase(document)}${plain}`;
}

/** The hoisted shape (or the definition itself, level 0) that a nested shape is found in. */
interface Owner {
  readonly name: string;
  /** How many hoisted shapes deep it is inside its definition. */
  readonly level: number;
  /** The place it was hoisted from (`""` for the definition). */
  readonly place: string;
  /** The roles of the property shapes it is inside (see sharedRoles). */
  readonly roles: readonly RoleKey[];
}

/** Shapes nested up to this many levels deep spell out their whole path from the definition. */
const SPELLED_OUT_LEVELS = 4;

/**
 * Candidate names of a nested anonymous shape, in order of preference. Up to SPELLED_OUT_LEVELS
 * deep, the owner's name and the place (`GetTaskResult` › `_meta` › `io.…/related-task` →
 * `GetTaskResultMetaRelatedTask`). Deeper, the name would grow with depth (and the validators with
 * its square), so it keeps only the definition's name and the last two places
 * (`Config` › … › `primary` › `key` → `ConfigPrimaryKey`); when those clash (a chain of the same
 * property), the level says which one it is (`RootAALevel37`): a place, not a counter. The
 * JSON-pointer name is the last resort, as before.
 */
function nestedNames(definition: string, owner: Owner, place: string, pointer: string): string[] {
  const level = owner.level + 1;
  if (level <= SPELLED_OUT_LEVELS) return [`${owner.name}${place}`, `${owner.name}${place}Object`, `${owner.name}${pascalCase(pointer)}`];
  const lastTwo = `${definition}${owner.place}${place}`;
  return [lastTwo, `${lastTwo}Level${level}`, `${definition}${pascalCase(pointer)}`];
}
