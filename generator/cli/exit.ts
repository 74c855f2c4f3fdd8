/** The command's exit codes (cli/main.ts explains them); apart, so the bin can know them before it loads the commands. */
export const EXIT = { ok: 0, differences: 1, badInput: 2, internal: 3 } as const;
