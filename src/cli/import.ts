/**
 * `mcp-gateway import FILE.json [--write [--dry-run]]`: the gateway.yaml equivalent of a Claude
 * Desktop, Claude Code, Cursor, VS Code or Windsurf MCP config. Secrets found in it (`env`
 * values and headers named like tokens, keys, passwords) become `${VARS}`, their values written
 * to `gateway.env` beside the config (mode 0600), never into the YAML. Without `--write` the
 * YAML goes to stdout; with it, to `--config` (never over an existing file), and FILE.json is
 * rewritten in one step: the imported servers replaced by the gateway, started by the client
 * on that config (`--stdio`), the rest of the file kept and a backup made first.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import {
  ESCAPED_NOTE,
  importClientConfig,
  importedYaml,
  parseJsonc,
} from "../config/client/mod.ts";
import { writeEnvFile } from "../config/mod.ts";
import { GatewayError } from "../shared/errors.ts";
import { editJson } from "./client-file.ts";
import { clientOfFile, clientShape } from "./clients.ts";
import { report, stdioTarget } from "./connect-client.ts";

/** Options of `import`. */
export interface ImportOptions {
  write: boolean;
  /** Where `--write` puts gateway.yaml (`--config`). */
  config: string;
  dryRun: boolean;
}

/** Converts and prints or writes; a file that is not such a config is a config error (exit 2). */
export function importCommand(
  file: string,
  options: ImportOptions = { write: false, config: "gateway.yaml", dryRun: false },
): number {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new GatewayError("USAGE", `import: cannot read ${file}: ${(err as Error).message}`);
  }
  const parsed = parseJsonc(text, file);
  const imported = importClientConfig(parsed, file);
  const yaml = importedYaml(imported, basename(file));
  const configFile = resolve(options.config);
  const envFile = join(dirname(configFile), "gateway.env");
  const count = Object.keys(imported.config.servers).length;
  if (options.write) {
    if (existsSync(configFile) && !options.dryRun) {
      throw new GatewayError(
        "USAGE",
        `import --write: ${configFile} exists; choose another --config or move it away`,
      );
    }
    const top = parsed as Record<string, Record<string, unknown>>;
    const key = top.mcpServers !== undefined ? "mcpServers" : "servers";
    const kind = clientOfFile(resolve(file)) ?? (key === "servers" ? "vscode" : "claude-desktop");
    const target = stdioTarget(configFile, null, imported.secrets.size > 0 ? envFile : null);
    // Every server of the map was imported: the map becomes the gateway alone.
    const edit = editJson(resolve(file), [key], { "mcp-gateway": clientShape(kind).entry(target) });
    if (options.dryRun) {
      process.stdout.write(yaml);
    } else {
      writeFileSync(configFile, yaml);
      if (imported.secrets.size > 0) writeEnvFile(envFile, imported.secrets);
      process.stderr.write(`wrote ${count} server(s) to ${configFile}\n`);
    }
    report(edit, options.dryRun, `the gateway in place of ${count} server(s)`);
  } else {
    process.stdout.write(yaml);
    if (imported.secrets.size > 0) writeEnvFile(envFile, imported.secrets);
    process.stderr.write(`imported ${count} server(s) from ${file}\n`);
  }
  if (imported.secrets.size > 0 && !options.dryRun) {
    process.stderr.write(
      `${imported.secrets.size} secret(s) are \${VARS} in the YAML, their values in ${envFile} ` +
        `(mode 0600): ${[...imported.secrets.keys()].join(", ")}\n`,
    );
  }
  if (imported.escaped.length > 0) {
    process.stderr.write(
      `${imported.escaped.length} value(s) held \${…} or $$ as text. ${ESCAPED_NOTE}: ` +
        `${imported.escaped.join(", ")}\n`,
    );
  }
  return 0;
}
