/**
 * `mcp-gateway import FILE.json`: prints the gateway.yaml equivalent of a Claude Desktop,
 * Claude Code, Cursor or VS Code MCP config on stdout (redirect it into gateway.yaml).
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { ESCAPED_NOTE, importClientConfig, importedYaml, parseJsonc } from "../config/mod.ts";
import { GatewayError } from "../shared/errors.ts";

/** Converts and prints; a file that is not such a config is a config error (exit 2). */
export function importCommand(file: string): number {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new GatewayError("USAGE", `import: cannot read ${file}: ${(err as Error).message}`);
  }
  const imported = importClientConfig(parseJsonc(text, file), file);
  process.stdout.write(importedYaml(imported, basename(file)));
  const count = Object.keys(imported.config.servers).length;
  process.stderr.write(`imported ${count} server(s) from ${file}\n`);
  if (imported.escaped.length > 0) {
    process.stderr.write(
      `${imported.escaped.length} value(s) held \${…} or $$ as text. ${ESCAPED_NOTE}: ` +
        `${imported.escaped.join(", ")}\n`,
    );
  }
  return 0;
}
