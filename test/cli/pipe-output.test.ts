/**
 * Large command output into a pipe that is read slowly arrives whole before the command exits:
 * `import` of a 1 MB client config, `call` of a 2 MiB result, `tools --json` of a long list,
 * and 4 MiB of a script's `print` output that `run` writes to stderr.
 * Runs the CLI from source on the runtime the tests run on, and the compiled binary when
 * MCPGW_BINARY names it (before, Bun cut the output at 64–400 KB and exited 0).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { importClientConfig, importedYaml, parseJsonc } from "../../src/config/client/mod.ts";
import { selfCommand } from "../../src/runtime/mod.ts";
import { fixture } from "../_helpers/gateway.ts";

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `cmd args` with stdout and stderr to pipes, `slow` of them read slowly (40 ms after every
 * chunk), so the command's writes queue up behind a full pipe as they do behind a slow consumer.
 */
function slowRead(
  cmd: readonly string[],
  args: string[],
  cwd: string,
  slow: "stdout" | "stderr" = "stdout",
): Promise<Run> {
  const child = spawn(cmd[0]!, [...cmd.slice(1), ...args], {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const got = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  for (const name of ["stdout", "stderr"] as const) {
    const stream = child[name]!;
    stream.on("data", (chunk: Buffer) => {
      got[name].push(chunk);
      if (name !== slow) return;
      stream.pause();
      setTimeout(() => stream.resume(), 40);
    });
  }
  const text = (chunks: Buffer[]) => Buffer.concat(chunks).toString("utf8");
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.kill(child.pid!, "SIGKILL");
      reject(new Error(`no exit within 120s; stderr:\n${text(got.stderr)}`));
    }, 120_000);
    // "close": the exit status and the end of both pipes, so nothing is still in flight here.
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: text(got.stdout), stderr: text(got.stderr) });
    });
  });
}

const COMMANDS: Array<[string, string[]]> = [["source", selfCommand()]];
if (process.env.MCPGW_BINARY) COMMANDS.push(["binary", [process.env.MCPGW_BINARY]]);

describe("large output into a slow pipe", () => {
  let dir: string;
  let clientConfig: string;
  const MIB = 1024 * 1024;
  const MIB2 = 2 * MIB;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), "mcpgw-pipe-"));
    const servers: Record<string, unknown> = {};
    for (let i = 0; i < 2000; i++) {
      servers[`server-${i}`] = { command: "node", args: [`--flag-${i}`, "x".repeat(480)] };
    }
    clientConfig = join(dir, "claude_desktop_config.json");
    writeFileSync(clientConfig, JSON.stringify({ mcpServers: servers }));
    writeFileSync(
      join(dir, "gateway.yaml"),
      `servers:\n  big: { command: node, args: [${JSON.stringify(fixture("big-result.mjs"))}] }\n` +
        `  echo: { command: node, args: [${JSON.stringify(fixture("echo.mjs"))}], ` +
        `env: { ECHO_EXTRA_TOOLS: "9000" } }\n`,
    );
  });

  for (const [label, cmd] of COMMANDS) {
    it(`${label}: import of a 1 MB config prints all of it`, async () => {
      const text = readFileSync(clientConfig, "utf8");
      const expected = importedYaml(
        importClientConfig(parseJsonc(text, clientConfig), clientConfig),
        "claude_desktop_config.json",
      );
      assert.ok(expected.length > 1_000_000, `only ${expected.length} bytes expected`);
      const r = await slowRead(cmd, ["import", clientConfig], dir);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout.length, expected.length);
      assert.equal(r.stdout, expected);
    });

    it(`${label}: call of a 2 MiB result prints all of it`, async () => {
      const r = await slowRead(cmd, ["call", "big__big", JSON.stringify({ bytes: MIB2 })], dir);
      assert.equal(r.code, 0, r.stderr);
      const result = JSON.parse(r.stdout) as { content: Array<{ text: string }> };
      assert.equal(result.content[0]!.text.length, MIB2);
    });

    it(`${label}: run prints 4 MiB of script output to stderr, all of it`, async () => {
      writeFileSync(join(dir, "loud.lua"), `print(string.rep("z", ${4 * MIB})) return "done"`);
      const r = await slowRead(cmd, ["run", "loud.lua"], dir, "stderr");
      assert.equal(r.code, 0, r.stderr.slice(-500));
      assert.equal(r.stdout, "done\n");
      // The longest run of z: a runtime warning on stderr may hold a lone "z" before it.
      const runs = (r.stderr.match(/z+/g) ?? [""]).map((z) => z.length);
      assert.equal(Math.max(...runs), 4 * MIB, r.stderr.slice(0, 300));
    });

    it(`${label}: tools --json of a long list prints all of it`, async () => {
      const r = await slowRead(cmd, ["tools", "--json"], dir);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.stdout.length > 1_000_000, `only ${r.stdout.length} bytes`);
      const { tools } = JSON.parse(r.stdout) as { tools: Array<{ name: string }> };
      assert.equal(tools.filter((t) => t.name.startsWith("echo__extra_")).length, 9000);
    });
  }
});
