/** `mcp-tasks-gen diff`: two schema sets, loaded and analyzed, compared as generated APIs. */
import type { ResolvedSet } from "../config/config.js";
import { loadSet } from "../generate.js";
import { diffModels, type ApiDiff } from "./diff.js";

export { diffModels, hasBreaking, type ApiChange, type ApiDiff, type ChangeKind, type Flow, type Impact, type RevisionInput } from "./diff.js";
export { renderDiffJson, renderDiffText } from "./render.js";

/** Loads both sets (each in its own allOf mode) and compares what they generate. */
export function diffSets(before: ResolvedSet, after: ResolvedSet, rootDir: string, labels?: { old: string; new: string }): ApiDiff {
  const oldModel = loadSet(before, rootDir).model;
  const newModel = loadSet(after, rootDir).model;
  return diffModels(
    { label: labels?.old ?? before.name, model: oldModel, allOf: before.allOf },
    { label: labels?.new ?? after.name, model: newModel, allOf: after.allOf },
  );
}
