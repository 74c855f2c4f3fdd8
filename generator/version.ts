/** The generator's version, from its package.json (named in every generated header). */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { templatesDir } from "./emit/templates.js";

export const VERSION: string = (JSON.parse(readFileSync(join(templatesDir(), "..", "package.json"), "utf8")) as { version: string }).version;
