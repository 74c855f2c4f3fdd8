/** Types of results.mjs (the module that prints a benchmark's tables and writes them into README.md). */
export function writeRequested(argv?: readonly string[]): boolean;
export function benchArgs(argv?: readonly string[]): string[];
export function machineLine(): string;
export function commandLine(argv?: readonly string[]): string;
export function stamp(options?: { command?: string; now?: Date }): string;
export function parseStamp(line: string): { date: string; command: string; machine: string; loadAtStart: number; loadAtEnd: number } | undefined;
export function markdownTable(header: readonly string[], rows: readonly (readonly (string | number)[])[], align?: readonly ("l" | "r")[]): string;
export function publishSection(options: { name: string; markdown: string; command?: string; readmePath?: string; argv?: readonly string[] }): void;
export function markers(name: string): { open: string; close: string };
export function replaceSection(readme: string, name: string, body: string): string;
export function readSections(readme: string): { name: string; body: string; line: number }[];
export function benchOptions<T extends Record<string, { type: "string" | "boolean" }>>(
  options: T,
  settings?: { positionals?: number; argv?: readonly string[] },
): { values: { [K in keyof T]?: T[K]["type"] extends "boolean" ? boolean : string }; positionals: string[] };
export function usageError(message: string, argv?: readonly string[]): never;
export function positiveInteger(value: unknown, flag: string): number;
export function usageOf(scriptPath: string | undefined): string;
