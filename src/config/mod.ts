/**
 * @module Configuration: strict schema, `${ENV}` expansion, YAML-path errors, normalised IR.
 */
export { dotted, loadConfig, parseConfig } from "./load.ts";
export type { ConfigProblem, LoadOptions } from "./load.ts";
export { configJsonSchema, configSchema, NAME_PATTERN } from "./schema.ts";
export { splitListen } from "./normalise.ts";
export { formatDuration, formatSize, parseDuration, parseSize } from "./units.ts";
export type * from "./types.ts";
