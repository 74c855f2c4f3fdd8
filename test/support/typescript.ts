import ts from "typescript";

/**
 * The compiler settings generated code must pass (README.md › The generated API), plus what an
 * ESM package on NodeNext needs. Generated code leans on no ambient Node or DOM types, so none are loaded.
 */
export const STRICT_COMPILER_OPTIONS: ts.CompilerOptions = {
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  verbatimModuleSyntax: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  types: [],
  skipLibCheck: true,
};
