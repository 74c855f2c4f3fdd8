/**
 * The document registry: every loaded document, every schema resource in it (by `$id`) and every
 * anchor, with the base URI and dialect in force at each schema. `$ref` resolution happens here
 * and only here; it never reaches the network: a URI is either registered or an error.
 */
import { formatLocation, GeneratorError, type SourceLocation } from "../diagnostics.js";
import {
  dialectOf,
  KNOWN_DIALECT_URIS,
  refHasSiblings,
  SCHEMA_ARRAY_KEYWORDS,
  SCHEMA_KEYWORDS,
  SCHEMA_MAP_KEYWORDS,
  type Dialect,
} from "./dialect.js";
import { appendPointer, parsePointer } from "./json-pointer.js";
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
  readonly documents: LocatedSchema[] = [];

  constructor(private readonly defaultDialect: Dialect) {}

  addDocument(input: DocumentInput): LocatedSchema {
    const loc = { file: input.file, pointer: "" };
    const dialect = this.dialectAt(input.json, loc, this.defaultDialect);
    const context: SchemaContext = { loc, baseUri: stripEmptyFragment(input.retrievalUri), dialect };
    const root: LocatedSchema = { schema: input.json, context };
    this.resources.set(context.baseUri, root);
    for (const alias of input.aliases ?? []) this.resources.set(stripEmptyFragment(alias), root);
    this.register(input.json, context, true);
    const registered = input.json !== null && typeof input.json === "object" ? this.contexts.get(input.json) : undefined;
    const located = registered ? { schema: input.json, context: registered } : root;
    this.documents.push(located);
    return located;
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
    const found = this.lookup(resourceUri, fragment);
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

  private dialectAt(schema: unknown, loc: SourceLocation, inherited: Dialect): Dialect {
    if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return inherited;
    const declared = (schema as Record<string, unknown>).$schema;
    if (declared === undefined) return inherited;
    if (typeof declared !== "string") {
      throw new GeneratorError({ ...loc, pointer: appendPointer(loc.pointer, "$schema") }, "$schema must be a string");
    }
    const dialect = dialectOf(declared);
    if (!dialect) {
      throw new GeneratorError(
        { ...loc, pointer: appendPointer(loc.pointer, "$schema") },
        `unknown $schema dialect "${declared}"; supported: ${KNOWN_DIALECT_URIS.join(", ")}`,
      );
    }
    return dialect;
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
    const hasRef = typeof obj.$ref === "string";
    // In draft-07 a $ref replaces the whole schema, $id beside it included.
    const idApplies = !(hasRef && !refHasSiblings(ctx.dialect));
    if (typeof obj.$id === "string" && idApplies) {
      const dialect = this.dialectAt(obj, ctx.loc, ctx.dialect);
      if (obj.$id.startsWith("#") && dialect === "draft-07") {
        // A draft-07 plain-name fragment identifier is an anchor, not a new base.
        this.anchors.set(`${splitFragment(ctx.baseUri)[0]}#${obj.$id.slice(1)}`, { schema, context: { ...ctx, dialect } });
      } else {
        let uri: string;
        try {
          uri = stripEmptyFragment(resolveUri(obj.$id, ctx.baseUri));
        } catch (e) {
          throw new GeneratorError({ ...ctx.loc, pointer: appendPointer(ctx.loc.pointer, "$id") }, (e as Error).message);
        }
        // A draft-07 `$id` may end in a plain-name fragment ("https://x/y#name"): the schema is then
        // the resource "https://x/y" (a base URI never has a fragment) and "name" is an anchor in it.
        const [resource, anchor] = splitFragment(uri);
        if (anchor !== "" && !anchor.startsWith("/") && dialect === "draft-07") {
          uri = resource;
          this.anchors.set(`${resource}#${anchor}`, { schema, context: { ...ctx, baseUri: resource, dialect } });
        }
        ctx = { ...ctx, baseUri: uri, dialect };
        const holder = this.resources.get(uri);
        if (isDocumentRoot && holder && holder.schema !== schema && holder.context.loc.file !== ctx.loc.file && holder.context.loc.pointer === "") {
          // Two documents with one URI: a `$ref` into either would silently reach one of them.
          const other = { file: holder.context.loc.file, pointer: "/$id" };
          throw new GeneratorError(
            { ...ctx.loc, pointer: appendPointer(ctx.loc.pointer, "$id") },
            `"$id" ${JSON.stringify(obj.$id)} names the same document as ${formatLocation(other)}${String(obj.$id).includes("#") ? " (a fragment names an anchor, not a document)" : ""}, so a $ref could reach either; give each document its own $id`,
            "input",
            undefined,
            other,
          );
        }
        if (!holder || isDocumentRoot) this.resources.set(uri, { schema, context: ctx });
      }
    } else if (isDocumentRoot) {
      ctx = { ...ctx, dialect: this.dialectAt(obj, ctx.loc, ctx.dialect) };
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
      if (typeof anchor === "string" && ctx.dialect !== "draft-07") {
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
