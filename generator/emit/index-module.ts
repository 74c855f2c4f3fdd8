/** `index.ts`: the set's public surface, re-exporting its modules. */
export function emitIndex(modules: readonly { file: string; typeOnly: boolean }[]): string {
  return modules
    .map((m) => (m.typeOnly ? `export type * from "./${m.file}";` : `export * from "./${m.file}";`))
    .join("\n") + "\n";
}
