/** `mcp-gateway run SCRIPT.lua`: run a Lua script against the configured upstreams. */
import { GatewayError } from "../shared/errors.ts";

/** Runs one script and prints its composed result. */
export function runCommand(_configFile: string, _script: string): Promise<number> {
  return Promise.reject(
    new GatewayError("USAGE", "run: the Lua runtime is not built into this version yet"),
  );
}
