/** `mcp-gateway tools`: connect the upstreams and print the aggregated tool list. */
import { LOCAL_CALLER } from "../gateway/mod.ts";
import { bootGateway, readConfig } from "./boot.ts";

/** Prints every listed tool; upstreams that are down are reported on stderr (exit 1 if any). */
export async function toolsCommand(configFile: string, json: boolean): Promise<number> {
  const { gateway } = await bootGateway(await readConfig(configFile), true);
  try {
    const tools = gateway.listTools(LOCAL_CALLER);
    if (json) {
      process.stdout.write(JSON.stringify({ tools }, null, 2) + "\n");
    } else {
      const width = Math.min(48, Math.max(0, ...tools.map((t) => t.name.length)));
      for (const t of tools) {
        const desc = (t.description ?? "").split("\n")[0]!.slice(0, 100);
        process.stdout.write(`${t.name.padEnd(width)}  ${desc}\n`);
      }
    }
    const down = gateway.pool.all().filter((u) => u.state === "down");
    for (const u of down) process.stderr.write(`server ${u.name} is down: ${u.lastError}\n`);
    return down.length > 0 ? 1 : 0;
  } finally {
    await gateway.stop();
  }
}
