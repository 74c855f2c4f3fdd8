/** `index.ts`: the set's public surface, re-exporting its modules. */
export interface IndexEntry {
  readonly file: string;
  readonly typeOnly: boolean;
  /** Re-export the module as one namespace of this name (its exports are named like the types). */
  readonly namespace?: string;
}

export function emitIndex(modules: readonly IndexEntry[]): string {
  return (
    modules
      .map((m) =>
        m.namespace
          ? `export * as ${m.namespace} from "./${m.file}";`
          : m.typeOnly
            ? `export type * from "./${m.file}";`
            : `export * from "./${m.file}";`,
      )
      .join("\n") + "\n"
  );
}
