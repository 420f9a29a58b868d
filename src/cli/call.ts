/** `mcp-gateway call TOOL [JSON]`: one call through the gateway, the result on stdout. */
import { enterCall, LOCAL_CALLER } from "../gateway/mod.ts";
import { GatewayError } from "../shared/errors.ts";
import { bootGateway, readConfig } from "./boot.ts";

/** Parses the JSON argument object; anything but an object is a usage error. */
export function parseCallArgs(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new GatewayError(
      "USAGE",
      `call: JSON arguments are not valid JSON: ${(err as Error).message}`,
    );
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    throw new GatewayError("USAGE", 'call: JSON arguments must be an object like {"key": "value"}');
  }
  return value as Record<string, unknown>;
}

/** Prints the CallToolResult as JSON; exit 1 when it is an error result. */
export async function callCommand(
  configFile: string,
  tool: string,
  json: string | undefined,
): Promise<number> {
  const args = parseCallArgs(json);
  const { gateway } = await bootGateway(await readConfig(configFile), true);
  try {
    const result = await gateway.callTool(tool, args, enterCall(LOCAL_CALLER));
    process.stdout.write(JSON.stringify(result, null, 2) + "\n");
    return result.isError ? 1 : 0;
  } finally {
    await gateway.stop();
  }
}
