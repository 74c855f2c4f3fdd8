/** The config file a run reads unless `--config` names another (its own module: the bin reads it before loading the rest). */
export const DEFAULT_CONFIG_FILE = "mcp-tasks-gen.config.json";
