/**
 * The stdio transport against real child processes writing the byte shapes a pipe delivers: a
 * line cut into many reads, a character cut between two reads (on stdout and on stderr), many
 * lines in one read, a line over the limit whose tail looks like a message, many messages
 * written in one tick, and a process tree that ignores SIGTERM at close.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { createLogger } from "../../src/shared/log.ts";
import { StdioTransport } from "../../src/upstream/stdio.ts";
import { trackedGroups } from "../../src/upstream/reaper.ts";
import { fixture, ROOT, waitFor } from "../_helpers/gateway.ts";
import { alive } from "../ops/_ops.ts";

type Message = JSONRPCMessage & { method?: string; params?: Record<string, unknown> };

/** A transport on `pipe-shapes.mjs MODE`, collecting what it delivers. */
async function shapes(mode: string, maxLineBytes?: number) {
  const messages: Message[] = [];
  const ended: string[] = [];
  const t = new StdioTransport({
    command: "node",
    args: [fixture("pipe-shapes.mjs"), mode],
    env: {},
    cwd: ROOT,
    log: createLogger("stdio-transport-test"),
    ...(maxLineBytes ? { maxLineBytes } : {}),
  });
  t.onmessage = (m) => messages.push(m as Message);
  t.onerror = (err) => ended.push(err.message);
  t.onclose = () => ended.push("closed");
  await t.start();
  return { t, messages, ended };
}

describe("the stdio transport's pipes", () => {
  it("reads one line written a byte at a time, multi-byte characters whole", async () => {
    const { t, messages } = await shapes("split");
    try {
      await waitFor(() => messages.length === 1, 20_000, "the split line");
      assert.deepEqual(messages[0]!.params, { text: "héllo € wörld" });
    } finally {
      await t.close();
    }
  });

  it("reads a thousand lines written at once, in order", async () => {
    const { t, messages } = await shapes("many");
    try {
      await waitFor(() => messages.length === 1000, 20_000, "1000 lines");
      assert.deepEqual(messages.map((m) => m.params!.i), [...Array(1000).keys()]);
    } finally {
      await t.close();
    }
  });

  it("drops a line over the limit whole: its tail is not read as a message", async () => {
    const { t, messages } = await shapes("overlong", 1000);
    try {
      await waitFor(() => messages.length > 0, 20_000, "the line after the long one");
      await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(messages.map((m) => m.method), ["after"]);
    } finally {
      await t.close();
    }
  });

  it("keeps a stderr character cut between two writes whole in the exit's last lines", async () => {
    const { t, ended } = await shapes("stderr");
    try {
      await waitFor(() => ended.includes("closed"), 20_000, "the exit");
      assert.deepEqual(t.exit, { code: 3, signal: null });
      assert.deepEqual(t.stderrTail, ["fatal: clé manquante"]);
      assert.equal(ended[0], "server process exited with code 3");
    } finally {
      await t.close();
    }
  });

  it("writes many messages sent in one tick, and their answers come back in order", async () => {
    const { t, messages } = await shapes("echo");
    try {
      const sends = [];
      for (let i = 0; i < 200; i++) {
        sends.push(t.send({ jsonrpc: "2.0", id: i, method: "ping" } as JSONRPCMessage));
      }
      await Promise.all(sends);
      await waitFor(() => messages.length === 200, 20_000, "200 answers");
      const answers = messages as unknown as { id: number; result: { n: number } }[];
      assert.deepEqual(answers.map((m) => m.id), [...Array(200).keys()]);
      assert.deepEqual(answers.map((m) => m.result.n), [...Array(200).keys()].map((i) => i + 1));
    } finally {
      await t.close();
    }
  });

  it("a send after the process died neither throws nor hangs the exit's report", async () => {
    const { t, ended } = await shapes("stderr");
    try {
      await waitFor(() => t.exit !== null || ended.length > 0, 20_000, "the exit");
      // The pipe's reader is gone (EPIPE): the send is dropped or refused, never thrown.
      await t.send({ jsonrpc: "2.0", id: 1, method: "ping" } as JSONRPCMessage).catch(() => {});
      await waitFor(() => ended.includes("closed"), 20_000, "the close");
      await assert.rejects(t.send({ jsonrpc: "2.0", id: 2, method: "ping" } as JSONRPCMessage));
    } finally {
      await t.close();
    }
  });

  it("close kills a tree that ignores SIGTERM, grandchild included, and forgets its group", async () => {
    const { t, messages } = await shapes("tree");
    const leader = t.pid!;
    let grandchild = 0;
    try {
      await waitFor(() => messages.length === 1, 20_000, "the grandchild's pid");
      grandchild = messages[0]!.params!.grandchild as number;
      assert.ok(alive(grandchild) && alive(leader));
      assert.ok(trackedGroups().includes(leader));
      await t.close();
      await waitFor(() => !alive(grandchild) && !alive(leader), 5000, "the tree to die");
      assert.ok(!trackedGroups().includes(leader));
    } finally {
      for (const pid of [leader, grandchild]) {
        try {
          if (pid) process.kill(pid, "SIGKILL");
        } catch { /* gone, as it should be */ }
      }
    }
  });
});
