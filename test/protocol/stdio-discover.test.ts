/**
 * `--stdio` and clients that negotiate their era (the SDK v2 client in `auto` mode): the
 * `server/discover` probe is answered at once with -32601 (the stdio door speaks 2025-11-25), not
 * after every upstream has started; messages sent meanwhile are served in order once the door
 * is up; a client gone before it was served (the SDK's throwaway probe process) does not keep the
 * gateway waiting for the start; and the real v2 client connects in `auto` mode, on its own stdio
 * transport and probing in place (then on one process).
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { selfCommand } from "../../src/runtime/mod.ts";
import { fixture, waitFor } from "../_helpers/gateway.ts";

/** How long the slow upstream takes to start: far beyond every bound below. */
const SLOW_MS = 20_000;

function config(servers: string, gateway = ""): string {
  const dir = mkdtempSync(join(tmpdir(), "mcpgw-stdio-discover-"));
  const file = join(dir, "gateway.yaml");
  writeFileSync(
    file,
    `gateway:\n  state: ${JSON.stringify(join(dir, "state"))}\n${gateway}servers:\n${servers}`,
  );
  return file;
}

const ECHO = `  echo:\n    command: node\n    args: [${JSON.stringify(fixture("echo.mjs"))}]\n`;
const SLOW =
  `  slow:\n    command: node\n    args: [${JSON.stringify(fixture("slow-start.mjs"))}]\n` +
  `    env: { SLOW_START_MS: "${SLOW_MS}" }\n`;

/** A gateway on `--stdio` with its answers collected line by line. */
function gateway(file: string): { child: ChildProcess; answers: Record<string, unknown>[] } {
  const [command, ...args] = selfCommand();
  const child = spawn(command!, [...args, "--stdio", "--config", file, "--log-level", "warn"], {
    stdio: ["pipe", "pipe", "ignore"],
  });
  const answers: Record<string, unknown>[] = [];
  let buffer = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
      answers.push(JSON.parse(buffer.slice(0, i)));
      buffer = buffer.slice(i + 1);
    }
  });
  return { child, answers };
}

const send = (child: ChildProcess, ...messages: unknown[]) =>
  child.stdin!.write(messages.map((m) => JSON.stringify(m) + "\n").join(""));

const DISCOVER = {
  jsonrpc: "2.0",
  id: "probe",
  method: "server/discover",
  params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } },
};

const started: ChildProcess[] = [];
after(() => {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

describe("server/discover on --stdio", () => {
  it("is answered before the upstreams start, and a client gone then does not wait for them", async () => {
    const { child, answers } = gateway(config(SLOW, "  startWait: 60s\n"));
    started.push(child);
    const exited = new Promise((r) => child.once("exit", r));
    send(child, DISCOVER);
    const answer = await waitFor(
      () => answers.find((a) => a.id === "probe"),
      SLOW_MS / 2,
      "the probe's answer while the slow upstream still starts",
    );
    assert.deepEqual(answer?.error, { code: -32601, message: "Method not found" });
    child.stdin!.end();
    let ended = false;
    void exited.then(() => (ended = true));
    await waitFor(() => ended, SLOW_MS / 2, "the gateway to end without waiting for the start");
  });

  it("serves what was sent before the door was up, in order, once it is", async () => {
    const { child, answers } = gateway(config(ECHO));
    started.push(child);
    send(
      child,
      DISCOVER,
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "raw", version: "1.0.0" },
        },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/list",
      },
    );
    await waitFor(() => answers.length >= 3, 30_000, "three answers");
    assert.deepEqual(answers.map((a) => a.id), ["probe", 1, 2]);
    const tools = (answers[2]!.result as { tools: { name: string }[] }).tools;
    assert.ok(tools.some((t) => t.name.startsWith("echo__")), JSON.stringify(tools));
    child.stdin!.end();
    await new Promise((r) => child.once("exit", r));
  });
});

describe("the SDK v2 client in auto mode over --stdio", () => {
  /** Probes in place: the SDK takes its throwaway-process road for its own class only. */
  class InPlace extends StdioClientTransport {}

  for (
    const [name, Transport] of [["its stdio transport", StdioClientTransport], [
      "probing in place",
      InPlace,
    ]] as const
  ) {
    it(`connects on 2025-11-25 (${name})`, async () => {
      const file = config(ECHO);
      const pids = join(file, "..", "pids");
      writeFileSync(pids, "");
      const quoted = selfCommand().map((a) => `'${a}'`).join(" ");
      const transport = new Transport({
        command: "sh",
        // Each spawn leaves its pid: how many processes the connect cost.
        args: ["-c", `echo $$ >> '${pids}'; exec ${quoted} --stdio --config '${file}'`],
        stderr: "ignore",
      });
      const client = new Client({ name: "auto", version: "1.0.0" }, {
        versionNegotiation: { mode: "auto" },
      });
      try {
        await client.connect(transport);
        assert.equal(client.getNegotiatedProtocolVersion(), "2025-11-25");
        const { tools } = await client.listTools();
        assert.ok(tools.some((t) => t.name.startsWith("echo__")));
        const spawned = readFileSync(pids, "utf8").trim().split("\n").length;
        // The SDK's own transport probes on a throwaway process of the same command.
        assert.equal(spawned, Transport === InPlace ? 1 : 2);
      } finally {
        await client.close();
      }
    });
  }
});
