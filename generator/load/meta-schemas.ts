/**
 * The meta-schemas of every dialect, bundled in the package's `schemas/meta/` (SOURCE.md there
 * says where they come from), by the URI each is known by. A `$ref` to one resolves to the copy,
 * never to the network; the registry loads a copy only when something refers to it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_PREFIX, packageRoot } from "../init/bundled.js";

const FOLDER = "schemas/meta";

/** URI (no fragment) → file under schemas/meta/. */
const META_SCHEMA_FILES: Readonly<Record<string, string>> = {
  "http://json-schema.org/draft-04/schema": "draft-04.json",
  "http://json-schema.org/draft-06/schema": "draft-06.json",
  "http://json-schema.org/draft-07/schema": "draft-07.json",
  "https://json-schema.org/draft/2019-09/schema": "2019-09/schema.json",
  ...vocabularies("2019-09", ["applicator", "content", "core", "format", "meta-data", "validation"]),
  "https://json-schema.org/draft/2020-12/schema": "2020-12/schema.json",
  ...vocabularies("2020-12", ["applicator", "content", "core", "format-annotation", "meta-data", "unevaluated", "validation"]),
};

function vocabularies(version: string, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.map((name) => [`https://json-schema.org/draft/${version}/meta/${name}`, `${version}/meta/${name}.json`]));
}

export interface BundledMetaSchema {
  /** The URI it is known by (no fragment). */
  readonly uri: string;
  /** How messages and headers name it: `mcp-tasks-gen:schemas/meta/<file>`. */
  readonly display: string;
  readonly json: unknown;
}

/** The bundled meta-schema known as `uri` (without fragment), or undefined when none is. */
export function bundledMetaSchema(uri: string): BundledMetaSchema | undefined {
  const key = uri.replace(/^https:\/\/json-schema\.org\/draft-0([467])\//, "http://json-schema.org/draft-0$1/");
  if (!Object.hasOwn(META_SCHEMA_FILES, key)) return undefined;
  const file = `${FOLDER}/${META_SCHEMA_FILES[key]!}`;
  return { uri: key, display: `${PACKAGE_PREFIX}${file}`, json: JSON.parse(readFileSync(join(packageRoot(), file), "utf8")) as unknown };
}
