/**
 * Where a server's page faults come from, by JavaScript function: `bun bench/faults.ts
 * [--target=gateway|floor] [--gateway=source|binary] [--sessions=N] [--warm=N] [--calls=N]
 * [--payload=BYTES] [--pause=MS] [--top=N]`. It starts the server (the gateway from source by
 * default, where functions keep their names — the compiled binary's are minified; or the floor)
 * with the runtime writing a JITDump — a record of every piece of code its compilers made, with
 * the function's name — drives `warm` calls of `payload` bytes each way (1 MiB by default), waits
 * `pause` ms and one second more (perf attaching), then makes `calls` more while `perf record -e
 * page-faults` samples every fault with its call stack, and prints the faults per call grouped by
 * the nearest JavaScript frames of each stack (native frames stay addresses: the runtime's binary
 * has no symbols).
 *
 * On the machines this project is measured on a page fault costs ~13 µs, and at 1 MiB each way
 * most of a call's CPU is faulting in memory the allocator had handed back; a CPU profile shows
 * the copy that faulted, not why its memory was fresh. This tells which code asked for the fresh
 * memory (a join of eight large requests into one string was found this way). Needs `perf` (Linux)
 * and runs no goal; a figure from it is per call, with the sampler's own cost in it, so compare two
 * runs of it, not a run of it with `npm run bench`.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { choosePinning } from "./pinning.ts";
import { killAll, startEchoTarget } from "./procs.ts";

/** One piece of compiled code: where it starts, how long it is, and its name. */
export interface CodeLoad {
  start: bigint;
  size: bigint;
  name: string;
}

/** The code loads of a JITDump file (the format Linux `perf` reads: a header, then records). */
export function readJitDump(bytes: Uint8Array): CodeLoad[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const loads: CodeLoad[] = [];
  let at = view.getUint32(8, true); // the header's own size
  while (at + 16 <= bytes.length) {
    const kind = view.getUint32(at, true);
    const size = view.getUint32(at + 4, true);
    if (size === 0 || at + size > bytes.length) break;
    if (kind === 0) { // JIT_CODE_LOAD: pid, tid, vma, code address, code size, index, name
      const nameStart = at + 56;
      const nameEnd = bytes.indexOf(0, nameStart);
      loads.push({
        start: view.getBigUint64(at + 32, true),
        size: view.getBigUint64(at + 40, true),
        name: new TextDecoder().decode(bytes.subarray(nameStart, nameEnd)),
      });
    }
    at += size;
  }
  return loads.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
}

/** The name of the code `address` falls in, or `undefined` when it is not compiled script code. */
export function nameAt(loads: readonly CodeLoad[], address: bigint): string | undefined {
  let lo = 0;
  let hi = loads.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const load = loads[mid]!;
    if (address < load.start) hi = mid - 1;
    else if (address >= load.start + load.size) lo = mid + 1;
    else return load.name;
  }
  return undefined;
}

/**
 * Samples of `perf script -F comm,ip` (one stack per blank-line-separated block, innermost first,
 * under the name of the thread that faulted) counted by that thread and their `depth` nearest
 * named frames; a stack with none is counted under the native frame that called the faulting
 * copy. Without the thread's name (`-F ip`) the frames alone are the key.
 */
export function groupStacks(
  script: string,
  loads: readonly CodeLoad[],
  depth = 3,
): { samples: number; groups: Map<string, number> } {
  const groups = new Map<string, number>();
  let samples = 0;
  for (const block of script.split(/\n\s*\n/)) {
    // perf indents a stack's addresses and not the thread's name above them: a thread may be
    // named with hex digits alone ("6"), so indentation, not the text, tells the two apart.
    const lines = block.split("\n").filter((l) => l.trim() !== "");
    const ips = lines.filter((l) => /^\s/.test(l)).map((l) => l.trim())
      .filter((l) => /^[0-9a-f]+$/.test(l));
    if (ips.length === 0) continue;
    samples++;
    const thread = /^\s/.test(lines[0]!) ? "" : `[${lines[0]!.trim()}] `;
    const names = ips.map((ip) => nameAt(loads, BigInt(`0x${ip}`))).filter((n) => n !== undefined);
    const key = thread +
      (names.length > 0
        ? names.slice(0, depth).join(" < ")
        : `(no script frame; native ${ips.slice(1, 3).join(" < ")})`);
    groups.set(key, (groups.get(key) ?? 0) + 1);
  }
  return { samples, groups };
}

async function main(): Promise<void> {
  const arg = (name: string, fallback: string) =>
    process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
  if (spawnSync("perf", ["--version"]).status !== 0) {
    console.error("faults: needs `perf` (Linux; on Debian the linux-perf package)");
    process.exit(2);
  }
  // The runtime writes its JITDump here, and perf its samples.
  const dir = mkdtempSync(join(tmpdir(), "mcpgw-faults-"));
  const target = arg("target", "gateway");
  const server = await startEchoTarget(target, {
    cpu: choosePinning().server,
    mode: arg("gateway", "source") === "binary" ? "binary" : "source",
    env: { BUN_JSC_useJITDump: "1", BUN_JSC_jitDumpDirectory: dir },
  });
  try {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { StreamableHTTPClientTransport } = await import(
      "@modelcontextprotocol/sdk/client/streamableHttp.js"
    );
    const clients = await Promise.all(
      Array.from({ length: Number(arg("sessions", "8")) }, async () => {
        const client = new Client({ name: "faults", version: "1" });
        await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
        return client;
      }),
    );
    const payload = Number(arg("payload", String(1024 * 1024)));
    const args = { text: "x".repeat(payload) };
    const drive = async (count: number) => {
      let left = count;
      await Promise.all(clients.map(async (client) => {
        while (left-- > 0) await client.callTool({ name: server.tool, arguments: args });
      }));
    };
    await drive(Number(arg("warm", "300")));
    // A pause before the measured calls: what the first calls after one fault on.
    await new Promise((resolve) => setTimeout(resolve, Number(arg("pause", "0"))));
    const data = join(dir, "perf.data");
    const perf = spawn("perf", [
      "record",
      "-q",
      "-e",
      "page-faults",
      "-c",
      "1",
      "-g",
      "-p",
      String(server.pid),
      "-o",
      data,
    ], { stdio: "ignore" });
    await new Promise((resolve) => setTimeout(resolve, 1000)); // perf attaches (a pause too)
    const calls = Number(arg("calls", "200"));
    await drive(calls);
    perf.kill("SIGINT");
    await new Promise((resolve) => perf.once("exit", resolve));
    await Promise.all(clients.map((c) => c.close()));
    // Only the server writes one (its upstream runs on Node), named after its pid and a thread.
    const dump = readdirSync(dir).find((f) => f.startsWith("jit-") && f.endsWith(".dump"));
    const loads = dump ? readJitDump(readFileSync(join(dir, dump))) : [];
    const script = spawnSync("perf", ["script", "-F", "comm,ip", "-i", data], {
      maxBuffer: 1 << 30,
    }).stdout.toString();
    const { samples, groups } = groupStacks(script, loads);
    // Small calls fault far less than once each: their figures need the decimals.
    const perCall = (count: number) => (count / calls).toFixed(payload < 65536 ? 3 : 1);
    console.log(
      `${target}, ${arg("sessions", "8")} session(s), ${payload} bytes each way: ` +
        `${perCall(samples)} page faults per call (${loads.length} code loads named)`,
    );
    const top = [...groups].sort((a, b) => b[1] - a[1]).slice(0, Number(arg("top", "20")));
    for (const [key, count] of top) console.log(`${perCall(count).padStart(8)}  ${key}`);
  } finally {
    await server.stop();
    killAll();
  }
}

// Bun and Deno set `import.meta.main` on the entry module; the tests import the readers only.
if ((import.meta as ImportMeta & { main?: boolean }).main) await main();
