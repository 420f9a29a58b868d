/**
 * @module Configuration: strict schema, `${ENV}` expansion, YAML-path errors, normalised IR.
 */
export { configError, dotted, loadConfig, parseConfig, yamlLocator } from "./load.ts";
export type { ConfigProblem, LoadOptions, YamlLocator } from "./load.ts";
export { configJsonSchema, configSchema, NAME_PATTERN } from "./schema.ts";
export { splitListen } from "./normalise.ts";
export { loadEnvFile, parseEnvFile, writeEnvFile } from "./env-file.ts";
export { reachedFolder, realPath, within } from "./sandbox.ts";
export { BASE_ENV } from "./secret-env.ts";
export { formatDuration, formatSize, parseDuration, parseSize } from "./units.ts";
export type * from "./types.ts";
