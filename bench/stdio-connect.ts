/**
 * How long an SDK v2 client takes to connect to `mcp-gateway --stdio` (one echo upstream), by
 * negotiation mode, and how many gateway processes each connect spawns: `legacy` (initialize at
 * once), `auto` on the SDK's own stdio transport (it probes `server/discover` on a throwaway
 * process of the same command, then starts the one it keeps) and `auto` on a subclass of it (the
 * SDK probes in place, on the one process). `bun bench/stdio-connect.ts [--runs=N]
 * [--gateway=auto|binary|source|deno]`; prints the median connect time of each.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { gatewayCommand, type GatewayMode, ROOT } from "./procs.ts";
import { median } from "./stats.ts";

const arg = (name: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=", 2)[1];
const runs = Number(arg("runs") ?? 3);
const { argv, label } = gatewayCommand((arg("gateway") ?? "auto") as GatewayMode);

const dir = mkdtempSync(join(tmpdir(), "mcpgw-stdio-connect-"));
const config = join(dir, "gateway.yaml");
const pids = join(dir, "pids");
writeFileSync(
  config,
  `gateway:\n  state: ${JSON.stringify(join(dir, "state"))}\nservers:\n  echo:\n` +
    `    command: node\n    args: [${
      JSON.stringify(join(ROOT, "test/fixtures/servers/echo.mjs"))
    }]\n`,
);

/** Probes in place: the SDK takes the throwaway-process road for its own class only. */
class InPlace extends StdioClientTransport {}

const MODES = [
  { name: "legacy", mode: "legacy", Transport: StdioClientTransport },
  { name: "auto (SDK stdio transport)", mode: "auto", Transport: StdioClientTransport },
  { name: "auto (probing in place)", mode: "auto", Transport: InPlace },
] as const;

/** One connect: its time, the processes spawned and the era it settled on. */
async function connectOnce(m: (typeof MODES)[number]) {
  writeFileSync(pids, "");
  const quoted = argv.map((a) => `'${a}'`).join(" ");
  const transport = new m.Transport({
    command: "sh",
    // Each spawn of the command leaves its pid: the count is the processes this connect cost.
    args: ["-c", `echo $$ >> '${pids}'; exec ${quoted} --stdio --config '${config}'`],
    stderr: "ignore",
  });
  const client = new Client({ name: "bench", version: "1.0.0" }, {
    versionNegotiation: { mode: m.mode },
  });
  const start = performance.now();
  await client.connect(transport);
  const ms = performance.now() - start;
  await client.listTools();
  const era = client.getNegotiatedProtocolVersion();
  await client.close();
  const spawned = readFileSync(pids, "utf8").trim().split("\n").filter(Boolean).length;
  return { ms, spawned, era };
}

console.log(`gateway: ${label}; ${runs} runs each`);
for (const m of MODES) {
  const all = [];
  for (let i = 0; i < runs; i++) all.push(await connectOnce(m));
  const ms = median(all.map((r) => r.ms));
  const spawned = [...new Set(all.map((r) => r.spawned))].join("/");
  console.log(
    `${m.name.padEnd(28)} connect ${ms.toFixed(0).padStart(5)} ms (median)  ` +
      `processes ${spawned}  era ${all[0]!.era}`,
  );
}
