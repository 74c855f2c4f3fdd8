/** Types of hot-path.mjs (see there). */
export interface SetConfig {
  name: string;
  schemas: string[];
  remotes?: Record<string, string>;
  core?: { schema: string };
}
export interface SchemaDocument {
  file: string;
  uri: string;
  schema: Record<string, unknown>;
  role: "seed" | "remote" | "core";
}
export interface Found {
  doc: SchemaDocument;
  pointer: string;
  schema: unknown;
}
export interface HotPathDefinition {
  set: string;
  name: string;
  kind: "result" | "request" | "notification";
  checkedAs: string;
  method?: string;
}
export function setSchemas(set: SetConfig, root: string): { documents: SchemaDocument[]; find(name: string): Found | undefined };
export function methodOf(schema: unknown, resolveRef: (ref: string) => unknown): string | undefined;
export function hotPathDefinitions(set: SetConfig, root: string, outDir: string): { definitions: HotPathDefinition[]; skipped: string[] };
export function allHotPathDefinitions(config: { outDir?: string; sets: SetConfig[] }, root: string): HotPathDefinition[];
