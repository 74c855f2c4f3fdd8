/** Formatting with prettier under fixed options: a user's prettier config must not change our bytes. */
import * as prettier from "prettier";

const OPTIONS: prettier.Options = {
  parser: "typescript",
  printWidth: 100,
  tabWidth: 2,
  useTabs: false,
  semi: true,
  singleQuote: false,
  trailingComma: "all",
  bracketSpacing: true,
  arrowParens: "always",
  endOfLine: "lf",
};

export function formatTypeScript(code: string): Promise<string> {
  return prettier.format(code, OPTIONS);
}
