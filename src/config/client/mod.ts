/**
 * @module A client's config (Claude Desktop, Claude Code, Cursor, VS Code) as a gateway config:
 * `mcp-gateway import`, and a client's JSON file given as `--config`. A room of its own so
 * that a gateway started from `gateway.yaml` never loads it, nor its JSONC parser.
 */
export {
  ESCAPED_NOTE,
  importClientConfig,
  importedYaml,
  isClientConfig,
  parseJsonc,
} from "./import.ts";
export type { ImportedConfig } from "./import.ts";
