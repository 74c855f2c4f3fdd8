/** The names a Handlebars template reads, for checking them against a typed view model (test/runtime/template-views.test.ts). */
import type Handlebars from "handlebars";

// `hbs` is the namespace handlebars' typings declare; the import brings them in.
type Program = ReturnType<typeof Handlebars.parse>;
type Node = hbs.AST.Node;
export type Names = { [key: string]: Names | true };

/**
 * The names a template reads, as a tree shaped like ViewKeys: `true` for a plain value, nested for
 * `{{a.b}}` and for the items of an `#each` list. `{{../x}}` inside an `#each` reads the enclosing scope.
 */
export function namesRead(program: Program): Names {
  const root: Names = {};
  /** Records a path read in `scope` (`a.b` → scope.a.b = true); an object already recorded there stays one. */
  const record = (scope: Names, parts: readonly string[]): void => {
    const owner = objectAt(scope, parts.slice(0, -1));
    const last = parts[parts.length - 1]!;
    owner[last] ??= true;
  };
  /** The object recorded at a path, made one if it was a plain value or absent. */
  const objectAt = (scope: Names, parts: readonly string[]): Names => {
    let at = scope;
    for (const part of parts) {
      const next = at[part];
      at = next === undefined || next === true ? (at[part] = {}) : next;
    }
    return at;
  };
  /** Adds what `from` records to `into` (two `#each` over one list may read different parts of its items). */
  const merge = (into: Names, from: Names): void => {
    for (const [key, value] of Object.entries(from)) {
      if (value === true) into[key] ??= true;
      else merge(objectAt(into, [key]), value);
    }
  };
  const scopeOf = (scopes: readonly Names[], path: hbs.AST.PathExpression): Names => scopes[scopes.length - 1 - path.depth]!;
  const read = (path: hbs.AST.PathExpression, scopes: readonly Names[]): void => {
    if (path.data || path.parts.length === 0) return;
    record(scopeOf(scopes, path), path.parts);
  };
  const visit = (node: Node, scopes: readonly Names[]): void => {
    switch (node.type) {
      case "Program":
        for (const statement of (node as Program).body) visit(statement, scopes);
        return;
      case "MustacheStatement":
      case "SubExpression": {
        const call = node as hbs.AST.MustacheStatement;
        if (call.params.length === 0 && call.path.type === "PathExpression") read(call.path as hbs.AST.PathExpression, scopes);
        for (const param of call.params) visit(param, scopes);
        return;
      }
      case "PathExpression":
        read(node as hbs.AST.PathExpression, scopes);
        return;
      case "BlockStatement": {
        const block = node as hbs.AST.BlockStatement;
        const helper = (block.path as hbs.AST.PathExpression).original;
        const subject = block.params[0] as hbs.AST.PathExpression | undefined;
        if (helper === "each" && subject) {
          // The list's items are a scope of their own, recorded under the list's name.
          const item: Names = {};
          visit(block.program, [...scopes, item]);
          const scope = scopeOf(scopes, subject);
          if (Object.keys(item).length > 0) merge(objectAt(scope, subject.parts), item);
          else record(scope, subject.parts);
        } else {
          for (const param of block.params) visit(param, scopes);
          visit(block.program, scopes);
        }
        if (block.inverse) visit(block.inverse, scopes);
        return;
      }
      default:
        return;
    }
  };
  visit(program, [root]);
  return root;
}

