/**
 * The document registry: every loaded document, every schema resource in it (by `$id`) and every
 * anchor, with the base URI and dialect in force at each schema. `$ref` resolution happens here
 * and only here; it never reaches the network: a URI is either registered or an error.
 */
import { formatLocation, GeneratorError, type SourceLocation } from "../diagnostics.js";
import {
  dialectOf,
  idFragmentIsAnchor,
  idKeyword,
  isDraft03OrOlder,
  KNOWN_DIALECT_URIS,
  refHasSiblings,
  SCHEMA_ARRAY_KEYWORDS,
  SCHEMA_KEYWORDS,
  SCHEMA_MAP_KEYWORDS,
  type Dialect,
} from "./dialect.js";
import { appendPointer, parsePointer } from "./json-pointer.js";
import { bundledMetaSchema } from "./meta-schemas.js";
import { hasVocabularies, isKnownVocabulary } from "./vocabularies.js";
import { resolveUri, splitFragment, stripEmptyFragment } from "./uri.js";

/**
 * How deep schemas may nest in a document (a schema directly under `properties`, `items`, `anyOf`
 * and the like of another is one level deeper; `$ref`s do not count). The generator's stages
 * recurse along nesting; the CLI's stack (STACK_SIZE_MB in cli/main.ts) holds this many levels.
 */
export const MAX_NESTING_LEVELS = 1000;

/** Where a schema sits and what is in force there. */
export interface SchemaContext {
  readonly loc: SourceLocation;
  readonly baseUri: string;
  readonly dialect: Dialect;
  /**
   * The standard vocabularies in force, when the resource's `$schema` is a custom meta-schema with
   * `$vocabulary` (the keywords of the others are annotations); undefined: all of the dialect's.
   */
  readonly vocabularies?: ReadonlySet<string>;
}

/** How a resource is read: its dialect and, under a custom meta-schema, its vocabularies. */
type Reading = Pick<SchemaContext, "dialect" | "vocabularies">;

function withReading(context: SchemaContext, reading: Reading): SchemaContext {
  const { vocabularies: _inherited, ...rest } = context;
  return { ...rest, dialect: reading.dialect, ...(reading.vocabularies ? { vocabularies: reading.vocabularies } : {}) };
}

/** A schema value (object or boolean) with its context. */
export interface LocatedSchema {
  readonly schema: unknown;
  readonly context: SchemaContext;
}

export interface DocumentInput {
  /** Path shown in messages (relative to the config, forward slashes). */
  readonly file: string;
  /** The URI the document is known by before its `$id` (a file: URL or a mapped remote URL). */
  readonly retrievalUri: string;
  readonly json: unknown;
  /** Extra URIs that must resolve to this document (remote URL mappings). */
  readonly aliases?: readonly string[];
  /**
   * Without `$schema`, the document is read in the dialect of the first schema whose `$ref`
   * reaches it, rather than the default (a remote written for the document that refers to it).
   */
  readonly inheritsDialect?: boolean;
}

const NO_ANCHORS: ReadonlyMap<string, LocatedSchema> = new Map();

/** The name `$recursiveAnchor: true` (2019-09) is kept under among the dynamic anchors; no `$dynamicAnchor` can start with `$`. */
export const RECURSIVE_ANCHOR = "$recursiveAnchor";

export class SchemaRegistry {
  private readonly resources = new Map<string, LocatedSchema>();
  private readonly anchors = new Map<string, LocatedSchema>();
  /** Per resource (base URI), its `$dynamicAnchor`s by name: what a `$dynamicRef` may be bound to. */
  private readonly dynamicAnchors = new Map<string, Map<string, LocatedSchema>>();
  private readonly contexts = new WeakMap<object, SchemaContext>();
  /** Documents whose dialect the first `$ref` into them decides (see DocumentInput.inheritsDialect), by file. */
  private readonly undecided = new Map<string, DocumentInput>();
  readonly documents: LocatedSchema[] = [];

  constructor(private readonly defaultDialect: Dialect) {}

  addDocument(input: DocumentInput): LocatedSchema {
    const declares = input.json !== null && typeof input.json === "object" && !Array.isArray(input.json) && "$schema" in input.json;
    if (input.inheritsDialect && !declares) this.undecided.set(input.file, input);
    const located = this.registerDocument(input, this.defaultDialect);
    this.documents.push(located);
    return located;
  }

  private registerDocument(input: DocumentInput, inherited: Dialect): LocatedSchema {
    const loc = { file: input.file, pointer: "" };
    const context = withReading({ loc, baseUri: stripEmptyFragment(input.retrievalUri), dialect: inherited }, this.readingAt(input.json, loc, { dialect: inherited }));
    const root: LocatedSchema = { schema: input.json, context };
    this.resources.set(context.baseUri, root);
    for (const alias of input.aliases ?? []) this.resources.set(stripEmptyFragment(alias), root);
    this.register(input.json, context, true);
    const registered = input.json !== null && typeof input.json === "object" ? this.contexts.get(input.json) : undefined;
    return registered ? { schema: input.json, context: registered } : root;
  }

  /** Reads an undecided document again in `dialect`: its resources, anchors and contexts are replaced. */
  private decideDialect(input: DocumentInput, dialect: Dialect): void {
    this.undecided.delete(input.file);
    for (const map of [this.resources, this.anchors]) {
      for (const [uri, located] of map) if (located.context.loc.file === input.file) map.delete(uri);
    }
    const located = this.registerDocument(input, dialect);
    const index = this.documents.findIndex((d) => d.context.loc.file === input.file);
    if (index >= 0) this.documents[index] = located;
  }

  /** The context recorded for a schema object while registering, if it was one. */
  contextOf(schema: object): SchemaContext | undefined {
    return this.contexts.get(schema);
  }

  /** The `$dynamicAnchor`s of the resource whose base URI is `baseUri`, by name (empty when none). */
  dynamicAnchorsOf(baseUri: string): ReadonlyMap<string, LocatedSchema> {
    return this.dynamicAnchors.get(baseUri) ?? NO_ANCHORS;
  }

  /** Whether any registered schema has a `$dynamicAnchor` (else no dynamic scope can matter). */
  get hasDynamicAnchors(): boolean {
    return this.dynamicAnchors.size > 0;
  }

  /** Resolves a `$ref` (or `keyword`, a `$dynamicRef`) found at `from`; throws a located error when nothing matches. */
  resolveRef(ref: string, from: SchemaContext, keyword = "$ref"): LocatedSchema {
    const where = { file: from.loc.file, pointer: appendPointer(from.loc.pointer, keyword) };
    let absolute: string;
    try {
      absolute = resolveUri(ref, from.baseUri);
    } catch (e) {
      throw new GeneratorError(where, `cannot resolve ${keyword} "${ref}": ${(e as Error).message}`);
    }
    const [resourceUri, fragment] = splitFragment(absolute);
    if (!this.resources.has(resourceUri)) {
      // A dialect's meta-schema (or one of its vocabularies) resolves to the bundled copy.
      const meta = bundledMetaSchema(resourceUri);
      if (meta) this.addDocument({ file: meta.display, retrievalUri: meta.uri, json: meta.json });
    }
    let found = this.lookup(resourceUri, fragment);
    const undecided = found && this.undecided.get(found.context.loc.file);
    if (undecided) {
      // The first $ref into a remote without `$schema` gives it the referring schema's dialect.
      if (found!.context.dialect !== from.dialect) {
        this.decideDialect(undecided, from.dialect);
        found = this.lookup(resourceUri, fragment);
      } else {
        this.undecided.delete(undecided.file);
      }
    }
    if (!found) {
      const known = this.resources.has(resourceUri);
      throw new GeneratorError(
        where,
        known
          ? `${keyword} "${ref}" does not resolve: "${fragment}" not found in ${resourceUri}`
          : /^https?:/.test(resourceUri) && !resourceUri.startsWith("http://localhost")
            ? `${keyword} "${ref}" points to ${resourceUri}, which has no local copy; map that URL to a file under "remotes" in the config (the network is never used)`
            : `${keyword} "${ref}" does not resolve: no schema is known as ${resourceUri}`,
      );
    }
    return found;
  }

  private lookup(resourceUri: string, fragment: string): LocatedSchema | undefined {
    const resource = this.resources.get(resourceUri);
    if (fragment === "") return resource;
    if (!fragment.startsWith("/")) return this.anchors.get(`${resourceUri}#${fragment}`);
    if (!resource) return undefined;
    return this.walkPointer(resource, parsePointer(fragment));
  }

  private walkPointer(start: LocatedSchema, tokens: readonly string[]): LocatedSchema | undefined {
    let { schema, context } = start;
    for (const token of tokens) {
      let next: unknown;
      if (Array.isArray(schema)) {
        if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
        next = schema[Number(token)];
      } else if (schema !== null && typeof schema === "object" && Object.prototype.hasOwnProperty.call(schema, token)) {
        next = (schema as Record<string, unknown>)[token];
      }
      if (next === undefined) return undefined;
      const known = next !== null && typeof next === "object" ? this.contexts.get(next) : undefined;
      context = known ?? { ...context, loc: { file: context.loc.file, pointer: appendPointer(context.loc.pointer, token) } };
      schema = next;
    }
    return { schema, context };
  }

  private readingAt(schema: unknown, loc: SourceLocation, inherited: Reading): Reading {
    if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return inherited;
    const declared = (schema as Record<string, unknown>).$schema;
    if (declared === undefined) return inherited;
    if (typeof declared !== "string") {
      throw new GeneratorError({ ...loc, pointer: appendPointer(loc.pointer, "$schema") }, "$schema must be a string");
    }
    const dialect = dialectOf(declared);
    if (dialect) return { dialect };
    const custom = this.customMetaSchema(declared, { ...loc, pointer: appendPointer(loc.pointer, "$schema") });
    if (custom) return custom;
    if (isDraft03OrOlder(declared)) {
      throw new GeneratorError(
        { ...loc, pointer: appendPointer(loc.pointer, "$schema") },
        `$schema "${declared}" is draft-03 or older, which mcp-tasks-gen does not read; the oldest dialect it reads is draft-04 (http://json-schema.org/draft-04/schema#)`,
      );
    }
    throw new GeneratorError(
      { ...loc, pointer: appendPointer(loc.pointer, "$schema") },
      `unknown $schema dialect "${declared}"; supported: ${KNOWN_DIALECT_URIS.join(", ")}, or a meta-schema registered before the schema (a remote) that is read in one of them`,
    );
  }

  /**
   * A `$schema` naming a registered meta-schema of our own making: its schemas are read in the
   * meta-schema's dialect, with the standard vocabularies its `$vocabulary` lists (all of them when
   * it has none). A required vocabulary mcp-tasks-gen does not know is an error at `$schema`.
   */
  private customMetaSchema(uri: string, where: SourceLocation): Reading | undefined {
    let absolute: string;
    try {
      absolute = stripEmptyFragment(resolveUri(uri, "file:///"));
    } catch {
      return undefined;
    }
    const meta = this.resources.get(absolute);
    if (!meta || meta.schema === null || typeof meta.schema !== "object" || Array.isArray(meta.schema)) return undefined;
    const { dialect } = meta.context;
    const listed = (meta.schema as Record<string, unknown>).$vocabulary;
    if (listed === undefined || !hasVocabularies(dialect)) return { dialect, ...(meta.context.vocabularies ? { vocabularies: meta.context.vocabularies } : {}) };
    const metaLoc = { file: meta.context.loc.file, pointer: appendPointer(meta.context.loc.pointer, "$vocabulary") };
    if (listed === null || typeof listed !== "object" || Array.isArray(listed)) throw new GeneratorError(metaLoc, "$vocabulary must be an object of vocabulary URIs to booleans");
    const vocabularies = new Set<string>();
    for (const [vocabulary, required] of Object.entries(listed)) {
      if (isKnownVocabulary(dialect, vocabulary)) vocabularies.add(vocabulary);
      else if (required === true) {
        throw new GeneratorError(
          where,
          `$schema "${uri}" requires the vocabulary "${vocabulary}" (${formatLocation(metaLoc)}), which mcp-tasks-gen does not implement, so it cannot tell what its keywords mean; only JSON Schema ${dialect}'s standard vocabularies are known (an optional one, false, is ignored)`,
          "input",
          undefined,
          metaLoc,
        );
      }
    }
    return { dialect, vocabularies };
  }

  /**
   * Records contexts, resources and anchors for a schema and all its subschemas, `level` schemas
   * deep in its document. Deeper than MAX_NESTING_LEVELS is an error here, before any later stage
   * recurses that deep.
   */
  private register(schema: unknown, context: SchemaContext, isDocumentRoot = false, level = 0): void {
    if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return;
    if (level > MAX_NESTING_LEVELS) throw new GeneratorError(context.loc, `nesting deeper than ${MAX_NESTING_LEVELS} levels`);
    const obj = schema as Record<string, unknown>;
    let ctx = context;
    // A resource's own `$schema` picks its dialect, and the dialect says which keyword names a
    // resource (`id` in draft-04, `$id` later); `$schema` elsewhere in a resource means nothing.
    const reading = isDocumentRoot || typeof obj.$id === "string" || typeof obj.id === "string" ? this.readingAt(obj, ctx.loc, ctx) : ctx;
    const declared = reading.dialect;
    // An embedded resource of another dialect may be named in either's way: the enclosing one's
    // (how the enclosing schema sees a resource) or its own.
    const idName = typeof obj[idKeyword(declared)] === "string" ? idKeyword(declared) : idKeyword(ctx.dialect);
    const id = obj[idName];
    const hasRef = typeof obj.$ref === "string";
    // Up to draft-07 a $ref replaces the whole schema, the identifier beside it included.
    const idApplies = !(hasRef && !refHasSiblings(declared));
    if (typeof id === "string" && idApplies) {
      const dialect = declared;
      if (id.startsWith("#") && idFragmentIsAnchor(dialect)) {
        // A plain-name fragment identifier (draft-04 to draft-07) is an anchor, not a new base.
        ctx = withReading(ctx, reading);
        this.anchors.set(`${splitFragment(ctx.baseUri)[0]}#${id.slice(1)}`, { schema, context: ctx });
      } else {
        let uri: string;
        try {
          uri = stripEmptyFragment(resolveUri(id, ctx.baseUri));
        } catch (e) {
          throw new GeneratorError({ ...ctx.loc, pointer: appendPointer(ctx.loc.pointer, idName) }, (e as Error).message);
        }
        // A draft-04 to draft-07 identifier may end in a plain-name fragment ("https://x/y#name"): the schema is then
        // the resource "https://x/y" (a base URI never has a fragment) and "name" is an anchor in it.
        const [resource, anchor] = splitFragment(uri);
        if (anchor !== "" && !anchor.startsWith("/") && idFragmentIsAnchor(dialect)) {
          uri = resource;
          this.anchors.set(`${resource}#${anchor}`, { schema, context: withReading({ ...ctx, baseUri: resource }, reading) });
        }
        ctx = withReading({ ...ctx, baseUri: uri }, reading);
        const holder = this.resources.get(uri);
        if (isDocumentRoot && holder && holder.schema !== schema && holder.context.loc.file !== ctx.loc.file && holder.context.loc.pointer === "") {
          // Two documents with one URI: a `$ref` into either would silently reach one of them.
          const other = { file: holder.context.loc.file, pointer: `/${idName}` };
          throw new GeneratorError(
            { ...ctx.loc, pointer: appendPointer(ctx.loc.pointer, idName) },
            `"${idName}" ${JSON.stringify(id)} names the same document as ${formatLocation(other)}${id.includes("#") ? " (a fragment names an anchor, not a document)" : ""}, so a $ref could reach either; give each document its own ${idName}`,
            "input",
            undefined,
            other,
          );
        }
        if (!holder || isDocumentRoot) this.resources.set(uri, { schema, context: ctx });
      }
    } else if (isDocumentRoot) {
      ctx = withReading(ctx, reading);
    }
    // 2019-09: `$recursiveAnchor: true` at a resource's root is that resource's one dynamic anchor.
    const resourceRoot = isDocumentRoot || (typeof obj.$id === "string" && idApplies);
    if (obj.$recursiveAnchor === true && resourceRoot && ctx.dialect === "2019-09") {
      const byName = this.dynamicAnchors.get(ctx.baseUri) ?? new Map<string, LocatedSchema>();
      byName.set(RECURSIVE_ANCHOR, { schema, context: ctx });
      this.dynamicAnchors.set(ctx.baseUri, byName);
    }
    for (const anchorKeyword of ["$anchor", "$dynamicAnchor"]) {
      const anchor = obj[anchorKeyword];
      if (typeof anchor === "string" && !idFragmentIsAnchor(ctx.dialect)) {
        this.anchors.set(`${ctx.baseUri}#${anchor}`, { schema, context: ctx });
        if (anchorKeyword === "$dynamicAnchor" && ctx.dialect === "2020-12") {
          const byName = this.dynamicAnchors.get(ctx.baseUri) ?? new Map<string, LocatedSchema>();
          if (!byName.has(anchor)) byName.set(anchor, { schema, context: ctx });
          this.dynamicAnchors.set(ctx.baseUri, byName);
        }
      }
    }
    this.contexts.set(obj, ctx);
    const child = (value: unknown, ...tokens: (string | number)[]) =>
      this.register(value, { ...ctx, loc: { file: ctx.loc.file, pointer: appendPointer(ctx.loc.pointer, ...tokens) } }, false, level + 1);
    for (const keyword of SCHEMA_KEYWORDS) if (keyword in obj) child(obj[keyword], keyword);
    for (const keyword of SCHEMA_ARRAY_KEYWORDS) {
      const list = obj[keyword];
      if (Array.isArray(list)) list.forEach((s, i) => child(s, keyword, i));
    }
    for (const keyword of SCHEMA_MAP_KEYWORDS) {
      const map = obj[keyword];
      if (map && typeof map === "object" && !Array.isArray(map)) {
        for (const [key, s] of Object.entries(map)) child(s, keyword, key);
      }
    }
    if (Array.isArray(obj.items)) obj.items.forEach((s, i) => child(s, "items", i));
    else if ("items" in obj) child(obj.items, "items");
    const deps = obj.dependencies;
    if (deps && typeof deps === "object" && !Array.isArray(deps)) {
      for (const [key, s] of Object.entries(deps)) if (!Array.isArray(s)) child(s, "dependencies", key);
    }
  }
}
