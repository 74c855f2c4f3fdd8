/** The diff as text (grouped, one change a line) and as JSON. */
import type { ApiChange, ApiDiff } from "./diff.js";

const MARK: Readonly<Record<string, string>> = {
  "method-added": "+",
  "notification-added": "+",
  "definition-added": "+",
  "property-added": "+",
  "value-added": "+",
  "variant-added": "+",
  "method-removed": "-",
  "notification-removed": "-",
  "definition-removed": "-",
  "property-removed": "-",
  "value-removed": "-",
  "variant-removed": "-",
  "definition-renamed": "→",
};

/** How a change that is not about one property is labelled inside its definition. */
const LABEL: Readonly<Record<string, string>> = {
  "shape-changed": "shape",
  closed: "additional properties",
  opened: "additional properties",
  "discriminator-changed": "discriminator",
  "variant-added": "variants",
  "variant-removed": "variants",
  "value-added": "values",
  "value-removed": "values",
  "type-narrowed": "type",
  "type-widened": "type",
  "type-changed": "type",
};

function impactText(c: ApiChange): string {
  const broken = [c.client === "breaking" ? "clients" : undefined, c.server === "breaking" ? "servers" : undefined].filter(Boolean);
  return broken.length ? `[breaks ${broken.join(", ")}]` : "[compatible]";
}

function line(c: ApiChange, label: string, indent: string): string[] {
  const lines = [`${indent}${MARK[c.kind] ?? "~"} ${label}: ${c.description}  ${impactText(c)}`];
  if (c.hint) lines.push(`${indent}    hint: ${c.hint}`);
  return lines;
}

export function renderDiffText(diff: ApiDiff): string {
  const out: string[] = [`mcp-tasks-gen diff: ${diff.old} → ${diff.new}`];
  out.push(
    "Impact: who must change their code for the new revision. Requests flow client → server, results and notifications",
    "server → client; narrowing what is valid breaks the sender, widening it breaks the receiver.",
  );
  const methods = diff.changes.filter((c) => c.method !== undefined);
  if (methods.length) {
    out.push("", "Methods and notifications");
    for (const c of methods) out.push(...line(c, c.subject, "  "));
  }
  const definitions = diff.changes.filter((c) => c.definition !== undefined);
  const whole = definitions.filter((c) => c.kind === "definition-added" || c.kind === "definition-removed" || c.kind === "definition-renamed");
  const inside = definitions.filter((c) => !whole.includes(c));
  if (inside.length) {
    out.push("", "Changed definitions");
    const names = [...new Set(inside.map((c) => c.definition!))];
    for (const name of names) {
      const own = inside.filter((c) => c.definition === name);
      const flows = own.find((c) => c.flows)?.flows ?? [];
      out.push(`  ${name}${flows.length ? ` (${flows.map((f) => f.replace("-to-", " → ")).join(", ")})` : ""}`);
      for (const c of own) out.push(...line(c, c.property ?? LABEL[c.kind] ?? c.kind, "    "));
    }
  }
  if (whole.length) {
    out.push("", whole.some((c) => c.kind === "definition-renamed") ? "Added, removed and renamed definitions" : "Added and removed definitions");
    for (const c of whole) out.push(...line(c, c.subject, "  "));
  }
  const s = diff.summary;
  out.push(
    "",
    s.changes === 0
      ? "No changes to the generated API."
      : `${s.changes} change(s): ${s.breakingForClients} break clients, ${s.breakingForServers} break servers, ${s.compatible} compatible.`,
  );
  return out.join("\n") + "\n";
}

export function renderDiffJson(diff: ApiDiff): string {
  return JSON.stringify(diff, null, 2) + "\n";
}
