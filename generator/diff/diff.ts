/**
 * The diff between two revisions of a schema set, as changes of the generated API: definitions,
 * their properties and types, enum values, union variants, discriminators, and the methods and
 * notifications of the method table. Models (after analyze) are compared by definition name.
 *
 * Every change is classified for a client and for a server by who must change their code to
 * work with the new revision:
 * - Data flows from a sender to a receiver: requests and their params from client to server,
 *   results and notifications from server to client (a definition used by both, or by none,
 *   counts both ways).
 * - A change that narrows what is valid (a new required property, a removed enum value, a type
 *   narrowed, optional → required, an object closed) breaks the sender: values it sends today
 *   are rejected. A change that widens it (a new enum value, required → optional, a type widened,
 *   a property removed that was required, a property added to a closed object) breaks the
 *   receiver: it may be handed values it does not handle.
 * - A removed definition breaks both (code that imports it no longer compiles); an added one
 *   breaks nobody.
 * - A request method added breaks servers (they must answer it; an old one says -32601); removed,
 *   it breaks clients (their calls now fail). A notification added breaks nobody (receivers ignore
 *   notifications they do not know); removed, it breaks clients, which wait for it in vain.
 */
import type { Model } from "../analyze/model.js";
import type { MethodEntry } from "../analyze/methods.js";
import type { NamedDefinition } from "../analyze/naming.js";
import type { AllOfMode } from "../config/config.js";
import type { Node } from "../ir/nodes.js";
import { definitionByName, objectView, type ObjectView, type PropertyView } from "../ir/query.js";
import { visitNodes } from "../ir/walk.js";
import { MeaningComparer } from "./meaning.js";
import { pairRenames } from "./similar.js";
import {
  compareDomains,
  contextOf,
  discriminatorOf,
  domainOf,
  formOf,
  nameOf,
  outline,
  variantNames,
  within,
  type Domain,
  type ModelContext,
} from "./api-model.js";

export type ChangeKind =
  | "method-added"
  | "method-removed"
  | "method-changed"
  | "notification-added"
  | "notification-removed"
  | "notification-changed"
  | "definition-added"
  | "definition-removed"
  | "definition-renamed"
  | "shape-changed"
  | "property-added"
  | "property-removed"
  | "property-required"
  | "property-optional"
  | "type-narrowed"
  | "type-widened"
  | "type-changed"
  | "value-added"
  | "value-removed"
  | "variant-added"
  | "variant-removed"
  | "closed"
  | "opened"
  | "discriminator-changed";

export type Flow = "client-to-server" | "server-to-client";
export type Impact = "breaking" | "compatible";

export interface ApiChange {
  readonly kind: ChangeKind;
  /** What changed: `tasks/result`, `Task`, `Task.ttl`. */
  readonly subject: string;
  readonly definition?: string;
  readonly property?: string;
  readonly method?: string;
  /** What happened, in words (`required property removed (was integer | null)`). */
  readonly description: string;
  /** Which way the data flows (for definitions). */
  readonly flows?: readonly Flow[];
  readonly client: Impact;
  readonly server: Impact;
  /** Why it is classified as it is. */
  readonly why: string;
  /** A likely explanation, such as a rename (`ttl → ttlMs`). */
  readonly hint?: string;
}

export interface RevisionInput {
  /** How the revision is named in the output (set name or file). */
  readonly label: string;
  readonly model: Model;
  readonly allOf?: AllOfMode;
}

export interface ApiDiff {
  readonly old: string;
  readonly new: string;
  readonly changes: readonly ApiChange[];
  readonly summary: { readonly changes: number; readonly breakingForClients: number; readonly breakingForServers: number; readonly compatible: number };
}

export function diffModels(before: RevisionInput, after: RevisionInput): ApiDiff {
  const oldCtx = contextOf(before.model, before.allOf ?? "json-schema");
  const newCtx = contextOf(after.model, after.allOf ?? "json-schema");
  const oldFlows = flowsOf(oldCtx);
  const newFlows = flowsOf(newCtx);
  const flowsFor = (name: string): Flow[] => {
    const set = new Set([...(oldFlows.get(name) ?? []), ...(newFlows.get(name) ?? [])]);
    return FLOWS.filter((f) => set.has(f));
  };

  const meaning = new MeaningComparer(oldCtx, newCtx);
  const changes: ApiChange[] = [
    ...diffMethods(before.model.methods.requests, after.model.methods.requests, "request", oldCtx, newCtx, meaning),
    ...diffMethods(before.model.methods.notifications, after.model.methods.notifications, "notification", oldCtx, newCtx, meaning),
  ];
  const renames = renamedDefinitions(before.model, after.model, meaning);
  const renamedTo = new Map(renames.map(([from, to]) => [from.name, to] as const));
  const renamedFrom = new Set(renames.map(([, to]) => to.name));
  for (const def of after.model.definitions) {
    const old = definitionByName(oldCtx.model.definitions, def.name);
    if (renamedFrom.has(def.name)) {
      for (const [from] of renames.filter(([, to]) => to === def)) {
        changes.push(definitionRenamed(from, def, FLOWS.filter((f) => flowsFor(from.name).includes(f) || flowsFor(def.name).includes(f))));
      }
    } else if (!old) changes.push(definitionAdded(def, newCtx));
    else changes.push(...diffDefinition(old, def, oldCtx, newCtx, flowsFor(def.name), meaning));
  }
  for (const def of before.model.definitions) {
    if (!definitionByName(newCtx.model.definitions, def.name) && !renamedTo.has(def.name)) changes.push(definitionRemoved(def, oldCtx, flowsFor(def.name)));
  }
  explainAddedStatuses(changes, before.model, after.model);
  const breakingForClients = changes.filter((c) => c.client === "breaking").length;
  const breakingForServers = changes.filter((c) => c.server === "breaking").length;
  const compatible = changes.filter((c) => c.client === "compatible" && c.server === "compatible").length;
  return { old: before.label, new: after.label, changes, summary: { changes: changes.length, breakingForClients, breakingForServers, compatible } };
}

/**
 * A status the new revision adds (analyze/status.ts) is said as such where it shows: the status
 * type's new value, a task's `status`, the union's new variant. It breaks the receiving side's
 * exhaustive matches (`matchStatus`, `StatusHandlers`, a `switch` over the status), which is what
 * widening already classifies; the words say which code that is.
 */
function explainAddedStatuses(changes: ApiChange[], before: Model, after: Model): void {
  const old = new Set(before.status?.statuses ?? []);
  const added = (after.status?.statuses ?? []).filter((s) => !old.has(s));
  if (added.length === 0 || !after.status) return;
  const variants = new Map((after.status.variantUnion?.variants ?? []).map((v) => [v.name, v.status]));
  const why = "receivers' exhaustive matches over the status (matchStatus and its StatusHandlers, a switch over task.status) must handle it: they no longer compile or fall through";
  changes.forEach((c, i) => {
    const value = /^value "(.*)" added$/.exec(c.description)?.[1];
    const aboutStatus = c.definition === after.status!.statusType || c.property === "status";
    if (c.kind === "value-added" && value !== undefined && added.includes(value) && aboutStatus) {
      changes[i] = { ...c, description: `status "${value}" added: exhaustive matches over the status on the receiving side must handle it`, why };
    }
    const variant = /^union variant (.*) added$/.exec(c.description)?.[1];
    const status = variant === undefined ? undefined : variants.get(variant);
    if (c.kind === "variant-added" && status !== undefined && added.includes(status)) {
      changes[i] = { ...c, description: `union variant ${variant} added (the task with status "${status}"): exhaustive matches on the receiving side must handle it`, why };
    }
  });
}

export function hasBreaking(diff: ApiDiff): boolean {
  return diff.changes.some((c) => c.client === "breaking" || c.server === "breaking");
}

// ---------------------------------------------------------------------------------------------
// Who sends what
// ---------------------------------------------------------------------------------------------

const FLOWS: readonly Flow[] = ["client-to-server", "server-to-client"];

/**
 * The flows of every definition: from the method table (requests client → server, results and
 * notifications server → client) through every reference; a definition no message reaches is
 * seeded from its name (`...ClientCapabilities`, `...Request...` → client to server;
 * `...ServerCapabilities`, `...Result`, `...Notification...` → server to client) or counts both ways.
 */
function flowsOf(ctx: ModelContext): Map<string, Set<Flow>> {
  const flows = new Map<string, Set<Flow>>();
  const spread = (name: string | undefined, flow: Flow) => {
    if (!name) return;
    const known = flows.get(name) ?? new Set<Flow>();
    if (known.has(flow)) return;
    known.add(flow);
    flows.set(name, known);
    const def = definitionByName(ctx.model.definitions, name);
    if (!def) return;
    visitNodes(def.node, (node) => {
      if (node.kind === "ref") spread(nameOf(node, ctx), flow);
    });
  };
  for (const request of ctx.model.methods.requests) {
    spread(request.message, "client-to-server");
    spread(request.result, "server-to-client");
  }
  for (const notification of ctx.model.methods.notifications) spread(notification.message, "server-to-client");
  // Then the definitions no message reaches, from those nothing else refers to (their roots), so a
  // referenced one takes its flows from where it is used rather than from its own name.
  const referenced = new Set<string>();
  for (const def of ctx.model.definitions) {
    visitNodes(def.node, (node) => {
      const name = nameOf(node, ctx);
      if (name !== undefined && name !== def.name) referenced.add(name);
    });
  }
  for (const def of ctx.model.definitions) {
    if (flows.has(def.name) || referenced.has(def.name)) continue;
    for (const flow of guessedFlows(def.name)) spread(def.name, flow);
  }
  for (const def of ctx.model.definitions) {
    if (!flows.has(def.name)) for (const flow of FLOWS) spread(def.name, flow); // only in a cycle of references
  }
  return flows;
}

function guessedFlows(name: string): Flow[] {
  if (/ClientCapabilit/.test(name)) return ["client-to-server"];
  if (/ServerCapabilit/.test(name)) return ["server-to-client"];
  if (/Request/.test(name)) return ["client-to-server"];
  if (/Result|Notification/.test(name)) return ["server-to-client"];
  return [...FLOWS];
}

/** Classifies a data change: narrowing breaks senders, widening breaks receivers. */
function dataImpact(flows: readonly Flow[], narrows: boolean, widens: boolean): Pick<ApiChange, "client" | "server" | "why" | "flows"> {
  const broken = new Set<"client" | "server">();
  for (const flow of flows) {
    const [sender, receiver] = flow === "client-to-server" ? (["client", "server"] as const) : (["server", "client"] as const);
    if (narrows) broken.add(sender);
    if (widens) broken.add(receiver);
  }
  const reasons: string[] = [];
  if (narrows) reasons.push("the new revision rejects values the old one accepted, so senders must change");
  if (widens) reasons.push("the new revision allows values the old one did not, so receivers must handle them");
  if (!narrows && !widens) reasons.push("every value valid before is valid after, and no new ones reach an old peer");
  return {
    flows,
    client: broken.has("client") ? "breaking" : "compatible",
    server: broken.has("server") ? "breaking" : "compatible",
    why: reasons.join("; "),
  };
}

// ---------------------------------------------------------------------------------------------
// Methods and notifications
// ---------------------------------------------------------------------------------------------

/**
 * Methods by method name. A method whose message, params or result is now another declaration is
 * compared by structure: declarations that admit the same values are a rename of the type only.
 */
function diffMethods(
  before: readonly MethodEntry[],
  after: readonly MethodEntry[],
  kind: "request" | "notification",
  oldCtx: ModelContext,
  newCtx: ModelContext,
  meaning: MeaningComparer,
): ApiChange[] {
  /** Whether two declarations (by name, one per revision) describe the same values. */
  const sameStructure = (oldName: string | undefined, newName: string | undefined): boolean => {
    if (oldName === newName) return true;
    if (oldName !== undefined && newName !== undefined) {
      const a = definitionByName(oldCtx.model.definitions, oldName);
      const b = definitionByName(newCtx.model.definitions, newName);
      if (a && b && meaning.same(a.node, b.node)) return true;
    }
    const a = oldName ? definitionByName(oldCtx.model.definitions, oldName) : undefined;
    const b = newName ? definitionByName(newCtx.model.definitions, newName) : undefined;
    return a !== undefined && b !== undefined && diffDefinition(a, b, oldCtx, newCtx, FLOWS, meaning).length === 0;
  };
  const oldBy = new Map(before.map((m) => [m.method, m]));
  const newBy = new Map(after.map((m) => [m.method, m]));
  const removed = before.filter((m) => !newBy.has(m.method));
  const added = after.filter((m) => !oldBy.has(m.method));
  // A method whose message definition keeps its name under a new method name was probably renamed.
  const renamedTo = new Map<string, string>();
  const renamedFrom = new Map<string, string>();
  for (const r of removed) {
    const a = added.find((m) => m.message === r.message);
    if (a) {
      renamedTo.set(r.method, a.method);
      renamedFrom.set(a.method, r.method);
    }
  }
  const renameHint = (from: string, to: string, message: string) => ({ hint: `renamed? ${from} → ${to} (both are ${message})` });
  const changes: ApiChange[] = [];
  for (const m of removed) {
    const to = renamedTo.get(m.method);
    changes.push({
      kind: kind === "request" ? "method-removed" : "notification-removed",
      subject: m.method,
      method: m.method,
      description: `${kind} removed (${m.message})`,
      client: "breaking",
      server: "compatible",
      why:
        kind === "request"
          ? "clients that call it get -32601 (method not found) from servers of the new revision"
          : "clients that wait for it no longer get it",
      ...(to ? renameHint(m.method, to, m.message) : {}),
    });
  }
  for (const m of added) {
    const from = renamedFrom.get(m.method);
    changes.push({
      kind: kind === "request" ? "method-added" : "notification-added",
      subject: m.method,
      method: m.method,
      description: `${kind} added (${m.message}${m.result ? ` → ${m.result}` : ""})`,
      client: "compatible",
      server: kind === "request" ? "breaking" : "compatible",
      why:
        kind === "request"
          ? "servers must answer it (a server of the old revision answers -32601); clients need not call it"
          : "receivers ignore notifications they do not know; senders may start sending it",
      ...(from ? renameHint(from, m.method, m.message) : {}),
    });
  }
  for (const m of after) {
    const old = oldBy.get(m.method);
    if (!old) continue;
    const parts: string[] = [];
    if (old.message !== m.message) parts.push(`message ${old.message} → ${m.message}`);
    if ((old.params ?? "") !== (m.params ?? "")) parts.push(`params ${old.params ?? "(inline)"} → ${m.params ?? "(inline)"}`);
    if ((old.result ?? "") !== (m.result ?? "")) parts.push(`result ${old.result ?? "(none)"} → ${m.result ?? "(none)"}`);
    if (old.paramsRequired !== m.paramsRequired) parts.push(m.paramsRequired ? "params now required" : "params now optional");
    if (parts.length === 0) continue;
    // Params named on one side and written inline on the other, in messages of the same meaning: no change.
    const paramsOnly = old.message === m.message || sameStructure(old.message, m.message);
    if (paramsOnly && old.paramsRequired === m.paramsRequired && sameStructure(old.result, m.result) && (old.params === undefined || m.params === undefined)) continue;
    const renamedOnly =
      old.paramsRequired === m.paramsRequired &&
      sameStructure(old.message, m.message) &&
      sameStructure(old.params, m.params) &&
      sameStructure(old.result, m.result);
    changes.push({
      kind: kind === "request" ? "method-changed" : "notification-changed",
      subject: m.method,
      method: m.method,
      description: renamedOnly ? `${parts.join(", ")} (the same structure under another name)` : parts.join(", "),
      client: renamedOnly ? "compatible" : "breaking",
      server: renamedOnly ? "compatible" : "breaking",
      why: renamedOnly
        ? "the same values on the wire; only the name of the declaration changed"
        : "the types both sides use for this method are now different declarations; their own changes are listed under them",
    });
  }
  return changes;
}

// ---------------------------------------------------------------------------------------------
// Definitions
// ---------------------------------------------------------------------------------------------

function definitionAdded(def: NamedDefinition, ctx: ModelContext): ApiChange {
  const discriminator = discriminatorOf(def.node, ctx);
  const extra = discriminator ? `, discriminated on ${discriminator.property}` : "";
  return {
    kind: "definition-added",
    subject: def.name,
    definition: def.name,
    description: `definition added: ${outline(def.node, ctx)}${extra}`,
    client: "compatible",
    server: "compatible",
    why: "a new declaration changes nothing that exists",
  };
}

/**
 * Definitions that left under one name and came back under another with the same meaning: a
 * rename, not a removal and an addition. Two that left may come back as one (a shape named from
 * two places, now one definition both refer to).
 */
function renamedDefinitions(before: Model, after: Model, meaning: MeaningComparer): [NamedDefinition, NamedDefinition][] {
  const gone = before.definitions.filter((d) => !definitionByName(after.definitions, d.name));
  const fresh = after.definitions.filter((d) => !definitionByName(before.definitions, d.name));
  const pairs: [NamedDefinition, NamedDefinition][] = [];
  const taken = new Set<string>();
  for (const old of gone) {
    const match = fresh.find((d) => !taken.has(d.name) && meaning.same(old.node, d.node)) ?? fresh.find((d) => meaning.same(old.node, d.node));
    if (!match) continue;
    taken.add(match.name);
    pairs.push([old, match]);
  }
  return pairs;
}

function definitionRenamed(before: NamedDefinition, after: NamedDefinition, flows: readonly Flow[]): ApiChange {
  return {
    kind: "definition-renamed",
    subject: after.name,
    definition: after.name,
    description: `renamed from ${before.name}, the same values: code that imports ${before.name} must import ${after.name}`,
    flows,
    client: "compatible",
    server: "compatible",
    why: "the wire is unchanged (every value valid before is valid after); only an import of the old name breaks, said here once",
  };
}

function definitionRemoved(def: NamedDefinition, ctx: ModelContext, flows: readonly Flow[]): ApiChange {
  return {
    kind: "definition-removed",
    subject: def.name,
    definition: def.name,
    description: `definition removed (was ${outline(def.node, ctx)})`,
    flows,
    client: "breaking",
    server: "breaking",
    why: "code that uses the type or its validators no longer compiles",
  };
}

function diffDefinition(
  before: NamedDefinition,
  after: NamedDefinition,
  oldCtx: ModelContext,
  newCtx: ModelContext,
  flows: readonly Flow[],
  meaning: MeaningComparer,
): ApiChange[] {
  // The same values, however written (another layout, order, names of what it refers to): no change.
  if (meaning.same(before.node, after.node)) return [];
  const name = after.name;
  const changes: ApiChange[] = [];
  const change = (kind: ChangeKind, description: string, narrows: boolean, widens: boolean, extra: Partial<ApiChange> = {}) =>
    changes.push({ kind, subject: extra.property ? `${name}.${extra.property}` : name, definition: name, description, ...dataImpact(flows, narrows, widens), ...extra });

  const oldOutline = outline(before.node, oldCtx);
  const newOutline = outline(after.node, newCtx);
  const oldForm = formOf(before.node);
  const newForm = formOf(after.node);
  const oldView = objectView(before.node, oldCtx.model.byId, oldCtx.allOf);
  const newView = objectView(after.node, newCtx.model.byId, newCtx.allOf);
  // A new layout of the same object (a flat request → `JSONRPCRequest & { method; params }`) is no
  // change of the API: the shape is reported only when the properties or their being required change too.
  const layoutOnly = oldView !== undefined && newView !== undefined && sameProperties(oldView, newView);
  const shapeChanged = !layoutOnly && (oldForm !== newForm || (newForm === "intersection" && oldOutline !== newOutline));
  const shapeIndex = changes.length;

  const variantsOld = variantNames(before.node, oldCtx);
  const variantsNew = variantNames(after.node, newCtx);
  if (oldView && newView) {
    changes.push(...diffProperties(name, after, oldView, newView, oldCtx, newCtx, flows, meaning));
  } else if (oldForm === "enum" && newForm === "enum") {
    changes.push(...diffValues(name, domainOf([before.node], oldCtx), domainOf([after.node], newCtx), flows));
  } else if (!(variantsOld && variantsNew)) {
    const kind = compareDomains(domainOf([before.node], oldCtx), domainOf([after.node], newCtx));
    if (kind !== "same") change(`type-${kind}`, `type ${kind}: ${oldOutline} → ${newOutline}`, kind !== "widened", kind !== "narrowed");
  }
  if (variantsOld && variantsNew) {
    for (const v of variantsOld) if (!variantsNew.includes(v)) change("variant-removed", `union variant ${v} removed`, true, false);
    for (const v of variantsNew) if (!variantsOld.includes(v)) change("variant-added", `union variant ${v} added`, false, true);
  }

  const discOld = discriminatorOf(before.node, oldCtx);
  const discNew = discriminatorOf(after.node, newCtx);
  if (discOld?.property !== discNew?.property) {
    const description = !discOld
      ? `now discriminated on ${discNew!.property} (${discNew!.values.join(" | ")}): types get one named variant per value`
      : !discNew
        ? `no longer discriminated on ${discOld.property}`
        : `discriminator ${discOld.property} → ${discNew.property}`;
    changes.push({
      kind: "discriminator-changed",
      subject: name,
      definition: name,
      description,
      flows,
      client: discOld ? "breaking" : "compatible",
      server: discOld ? "breaking" : "compatible",
      why: discOld
        ? "code that tells the variants apart by the old discriminator must change"
        : "a discriminator alone changes no valid value; what each variant requires is reported on its own",
    });
  }

  if (shapeChanged) {
    const rest = changes.slice(shapeIndex);
    const client = rest.some((c) => c.client === "breaking") ? "breaking" : "compatible";
    const server = rest.some((c) => c.server === "breaking") ? "breaking" : "compatible";
    changes.splice(shapeIndex, 0, {
      kind: "shape-changed",
      subject: name,
      definition: name,
      description: `${oldOutline} → ${newOutline}`,
      flows,
      client,
      server,
      why: rest.length ? "as the changes below it" : "the declaration's form changed",
      ...flattenHint(before, after, oldCtx, newCtx),
    });
  }
  return changes;
}

/** `{ task: Task }` became `... & Task`: the referenced object's properties moved to the top. */
function flattenHint(before: NamedDefinition, after: NamedDefinition, oldCtx: ModelContext, newCtx: ModelContext): { hint?: string } {
  if (before.node.kind !== "object" || after.node.kind !== "intersection") return {};
  const parts = new Set(after.node.parts.map((p) => nameOf(p, newCtx)).filter((n): n is string => n !== undefined));
  const moved = before.node.properties.find((p) => p.node.kind === "ref" && parts.has(nameOf(p.node, oldCtx) ?? ""));
  if (!moved) return {};
  const target = nameOf(moved.node, oldCtx)!;
  return { hint: `flattened: the ${target} that was in "${moved.name}" now makes up ${after.name} itself (its properties sit at the top level)` };
}

function diffProperties(
  name: string,
  after: NamedDefinition,
  oldView: ObjectView,
  newView: ObjectView,
  oldCtx: ModelContext,
  newCtx: ModelContext,
  flows: readonly Flow[],
  meaning: MeaningComparer,
): ApiChange[] {
  const changes: ApiChange[] = [];
  const removed = [...oldView.properties.values()].filter((p) => !newView.properties.has(p.name));
  const added = [...newView.properties.values()].filter((p) => !oldView.properties.has(p.name));
  const flattened = new Map(removed.map((p) => [p.name, flattenedInto(p, after, oldCtx, newCtx)] as const));
  const renames = pairRenames(
    removed.filter((p) => !flattened.get(p.name)).map((p) => p.name),
    added.map((p) => p.name),
  );
  const renameHint = (from: string, to: string): string => {
    const a = oldView.properties.get(from)!;
    const b = newView.properties.get(to)!;
    const before = typeText(a, oldCtx);
    const after = typeText(b, newCtx);
    return `renamed? ${from} → ${to}${before !== after ? ` (type ${before} → ${after})` : ""}`;
  };
  const hintFor = (property: string): { hint?: string } => {
    const pair = renames.find(([from, to]) => from === property || to === property);
    if (pair) return { hint: renameHint(pair[0], pair[1]) };
    return {};
  };
  const push = (kind: ChangeKind, property: string, description: string, narrows: boolean, widens: boolean, extra: { hint?: string } = {}) =>
    changes.push({ kind, subject: `${name}.${property}`, definition: name, property, description, ...dataImpact(flows, narrows, widens), ...extra });

  const whole = (kind: ChangeKind, description: string, narrows: boolean, widens: boolean) =>
    changes.push({ kind, subject: name, definition: name, description, ...dataImpact(flows, narrows, widens) });
  if (!oldView.closed && newView.closed) whole("closed", "now rejects properties it does not declare (additionalProperties: false)", true, false);
  if (oldView.closed && !newView.closed) whole("opened", "now admits properties it does not declare", false, true);

  for (const p of removed) {
    const into = flattened.get(p.name);
    push(
      "property-removed",
      p.name,
      `${p.required ? "required" : "optional"} property removed (was ${typeText(p, oldCtx)})`,
      newView.closed,
      p.required,
      into ? { hint: into } : hintFor(p.name),
    );
  }
  for (const p of added) {
    const where = p.partial ? ", only in some variants" : "";
    push("property-added", p.name, `${p.required ? "required" : "optional"} property added (${typeText(p, newCtx)}${where})`, p.required, oldView.closed, hintFor(p.name));
  }
  for (const p of newView.properties.values()) {
    const o = oldView.properties.get(p.name);
    if (!o) continue;
    if (o.required && !p.required) push("property-optional", p.name, `now optional${p.partial ? " (only some variants declare it)" : ""}`, false, true);
    if (!o.required && p.required) push("property-required", p.name, "now required", true, false);
    changes.push(...diffPropertyType(name, o, p, oldCtx, newCtx, flows, meaning));
  }
  return changes;
}

/** A removed property holding a reference to an object that the new definition now is (flattened). */
function flattenedInto(p: PropertyView, after: NamedDefinition, oldCtx: ModelContext, newCtx: ModelContext): string | undefined {
  if (p.nodes.length !== 1 || after.node.kind !== "intersection") return undefined;
  const target = nameOf(p.nodes[0]!, oldCtx);
  if (!target) return undefined;
  const parts = after.node.parts.map((part) => nameOf(part, newCtx));
  return parts.includes(target) ? `its ${target} was flattened into ${after.name} (see shape)` : undefined;
}

function diffPropertyType(
  name: string,
  before: PropertyView,
  after: PropertyView,
  oldCtx: ModelContext,
  newCtx: ModelContext,
  flows: readonly Flow[],
  meaning: MeaningComparer,
): ApiChange[] {
  // Each schema of the property has one of the same meaning on the other side (a renamed or inlined type is the same type).
  const matched = (xs: readonly Node[], ys: readonly Node[], same: (x: Node, y: Node) => boolean) => xs.every((x) => ys.some((y) => same(x, y)));
  if (matched(before.nodes, after.nodes, (x, y) => meaning.same(x, y)) && matched(after.nodes, before.nodes, (y, x) => meaning.same(x, y))) return [];
  // The same named type on both sides: its own changes are reported under its name.
  const oldNames = before.nodes.map((n) => nameOf(n, oldCtx));
  const newNames = after.nodes.map((n) => nameOf(n, newCtx));
  const singleName = (names: (string | undefined)[]) => (names.every((n) => n !== undefined && n === names[0]) ? names[0] : undefined);
  const oldName = singleName(oldNames);
  if (oldName !== undefined && oldName === singleName(newNames)) return [];

  const a = propertyDomain(before, oldCtx);
  const b = propertyDomain(after, newCtx);
  const kind = compareDomains(a, b);
  if (kind === "same") return [];
  const property = after.name;
  const base = { subject: `${name}.${property}`, definition: name, property };
  if (isValueSet(a) && isValueSet(b)) {
    const changes: ApiChange[] = [];
    for (const [key, value] of a.values) {
      if (!b.values.has(key)) changes.push({ ...base, kind: "value-removed", description: `value ${JSON.stringify(value)} removed`, ...dataImpact(flows, true, false) });
    }
    for (const [key, value] of b.values) {
      if (!a.values.has(key)) changes.push({ ...base, kind: "value-added", description: `value ${JSON.stringify(value)} added`, ...dataImpact(flows, false, true) });
    }
    return changes;
  }
  return [
    {
      ...base,
      kind: `type-${kind}` as ChangeKind,
      description: `type ${kind}: ${typeText(before, oldCtx)} → ${typeText(after, newCtx)}`,
      ...dataImpact(flows, kind !== "widened", kind !== "narrowed"),
    },
  ];
}

/**
 * The values a property admits. Its schemas come from the branches that declare it: of an `allOf`
 * (every one holds: the narrowest says it, so an envelope's `method: string` beside `const
 * "tasks/get"` adds nothing) or of a union's variants (any one may hold: they add up).
 */
function propertyDomain(property: PropertyView, ctx: ModelContext): Domain {
  const domains = property.nodes.map((node) => domainOf([node], ctx));
  if (!property.all || domains.length < 2) return domainOf(property.nodes, ctx);
  const narrowest = narrowestNodes(property, ctx);
  const kept = narrowest.map((node) => domainOf([node], ctx));
  // Equal ones say the same; incomparable ones are united (coarse, as for a union).
  return kept.every((d) => within(d, kept[0]!) && within(kept[0]!, d)) ? kept[0]! : domainOf(narrowest, ctx);
}

/** The schemas of a property no other of its schemas is strictly narrower than. */
function narrowestNodes(property: PropertyView, ctx: ModelContext): Node[] {
  const domains = property.nodes.map((node) => domainOf([node], ctx));
  return property.nodes.filter((_, i) => !domains.some((other, j) => j !== i && within(other, domains[i]!) && !within(domains[i]!, other)));
}


/** The same property names on both sides, each required on one side exactly when on the other. */
function sameProperties(a: ObjectView, b: ObjectView): boolean {
  if (a.properties.size !== b.properties.size) return false;
  return [...a.properties.values()].every((p) => b.properties.get(p.name)?.required === p.required);
}

function diffValues(name: string, before: Domain, after: Domain, flows: readonly Flow[]): ApiChange[] {
  const changes: ApiChange[] = [];
  for (const [key, value] of before.values) {
    if (!after.values.has(key)) {
      changes.push({ kind: "value-removed", subject: name, definition: name, description: `value ${JSON.stringify(value)} removed`, ...dataImpact(flows, true, false) });
    }
  }
  for (const [key, value] of after.values) {
    if (!before.values.has(key)) {
      changes.push({ kind: "value-added", subject: name, definition: name, description: `value ${JSON.stringify(value)} added`, ...dataImpact(flows, false, true) });
    }
  }
  return changes;
}

function isValueSet(d: Domain): boolean {
  return !d.any && d.types.size === 0 && d.named.size === 0 && d.shapes.size === 0 && !d.items && !d.mapValues && d.values.size > 0;
}

function typeText(p: PropertyView, ctx: ModelContext): string {
  const shown = p.all && p.nodes.length > 1 ? narrowestNodes(p, ctx) : p.nodes;
  const texts = [...new Set(shown.map((n: Node) => outline(n, ctx, false)))];
  const joined = texts.join(" | ");
  return joined.length > 80 ? `${joined.slice(0, 77)}...` : joined;
}
