/** The text of `mcp-tasks-gen --help` (every command prints it). */
import { DEFAULT_CONFIG_FILE } from "../config/config.js";
import { BUNDLED_SET_NAMES } from "../init/bundled.js";
import { DEFAULT_INIT_OUT_DIR } from "../init/init.js";
import { VERSION } from "../version.js";

export const HELP = `mcp-tasks-gen ${VERSION}: TypeScript bindings for the MCP Tasks protocol and elicitation, from their JSON Schemas.

Usage:
  mcp-tasks-gen init [--out DIR] [--emit js] [--extension .mts] [--set NAME]... [--runtime PARTS] [--force]
                                      write a ${DEFAULT_CONFIG_FILE} naming the bundled
                                      schema sets (${BUNDLED_SET_NAMES.join(", ")});
                                      --out: where the generated folders go
                                      (default ${DEFAULT_INIT_OUT_DIR}); --set: only these sets;
                                      --runtime: these parts in every set that can take
                                      them; --force: replace an existing config; --config FILE: write
                                      the config there instead; a project whose package.json
                                      is not "type": "module" gets "extension": ".mts"
  mcp-tasks-gen [--force]             generate every set of ${DEFAULT_CONFIG_FILE}
  mcp-tasks-gen --check               write nothing; exit 1 if generated files are stale
  mcp-tasks-gen --schema FILE --out DIR [--force]
                                      generate one ad-hoc set from schema files
  mcp-tasks-gen lint [--json] [--strict] [--config FILE | --schema FILE...]
                                      report schema problems without generating, and
                                      why a set gets no client.ts/server.ts
  mcp-tasks-gen diff OLD NEW [--json] [--fail-on-breaking]
                                      list the changes of the generated API between two
                                      revisions; OLD and NEW are each a schema file, a folder
                                      of schema files, or the name of a set of the config

Options:
  --config FILE     config file (default: ./${DEFAULT_CONFIG_FILE})
  --check           compare instead of writing; lists each differing file
  --schema FILE     a schema file (repeatable); its definitions and titled root are generated
  --out DIR         output folder for --schema
  --remote URL=FILE map a remote $ref URL to a local file (repeatable; with --schema, or
                    with schema files and folders given to diff)
  --name FILE#/POINTER=Name
                    with --schema: the TypeScript name of the schema at that JSON pointer
                    (repeatable; the way out of a name clash); in a config: "names"
  --annotation KEYWORD
                    with --schema: keep a non-standard keyword as an annotation
                    (repeatable); in a config: "annotations"
  --dialect D       the JSON Schema dialect of documents without $schema: draft-04,
                    draft-06, draft-07, 2019-09 or 2020-12 (default 2020-12; a remote
                    without $schema takes the dialect of the schema referring to it
                    unless this is given); overrides the config's "defaultDialect"
  --allof MODE      how allOf of objects is read: json-schema (default: JSON Schema's
                    meaning) or merged (the TypeScript intersection); overrides the config
  --emit LANG       ts (default): TypeScript; js: JavaScript ES modules with .d.ts
                    declarations, for projects without a TypeScript build step;
                    overrides the config's "emit"
  --extension EXT   .ts (default) or .mts: ES module files whatever the project's
                    package.json says (with --emit js: .mjs + .d.mts), for CommonJS
                    projects; overrides the config's "extension"
  --runtime PARTS   runtime parts written beside the stubs, comma-separated (repeatable):
                    http-client, http-server, stdio (Node's typings), sdk-client,
                    sdk-server (@modelcontextprotocol/sdk ^1.24), sqlite-store
                    (better-sqlite3 ^12), redis-store (ioredis ^5), postgres-store
                    (pg ^8);
                    with --schema or init; in a config: "runtime" of the set
  --no-stubs        with --schema: types and validators only; in a config: "stubs": false
  --strict          lint warnings are errors: exit 2 and write nothing
  --verbose         (generating) also say what happens quietly: why a set gets no
                    client.ts or server.ts
  --force           (generating) delete what a user added to, or edited in, a generated
                    folder (one holding .mcp-tasks-gen.json) instead of refusing; it never
                    replaces another folder, nor a file in the place of a folder
  --json            (lint, diff) print JSON instead of text
  --fail-on-breaking
                    (diff) exit 1 when a change breaks clients or servers
  --help            show this help
  --version         show the version

mcp-tasks-gen replaces only what it wrote: each generated folder holds a manifest
(.mcp-tasks-gen.json) listing its files and their sha256. A target holding anything else (or
a file where a folder should be) stops the run with exit 2, nothing written.

Lint findings print as file#/json/pointer: [rule-id] message on stderr while generating; they
are warnings and do not change the exit code unless --strict is given. Findings about bundled
sets are shown by \`mcp-tasks-gen lint\` only; a set's "lint": { "RULE-ID": "off" } silences a rule.

Exit codes: 0 done, 1 --check found differences (diff: a breaking change, with --fail-on-breaking),
2 bad input or configuration, an output folder in the way (or lint findings with --strict),
3 internal error.
`;
