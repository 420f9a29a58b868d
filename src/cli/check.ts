/** `mcp-gateway check`: validate the config and say what it holds. */
import { readConfig } from "./boot.ts";

/** Validates; a config error propagates (exit 2) with every problem and its YAML path. */
export function checkCommand(configFile: string): number {
  const config = readConfig(configFile);
  const servers = config.servers.map((s) =>
    `${s.name} (${s.kind === "stdio" ? s.command : s.url})`
  );
  process.stdout.write(
    `${config.file}: ok — ${config.servers.length} server(s)${
      servers.length ? ": " + servers.join(", ") : ""
    }\n`,
  );
  return 0;
}
