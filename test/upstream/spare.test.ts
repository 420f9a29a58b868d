/**
 * The spare process of an `isolation: session` server (`servers.<name>.spare`): a session's
 * process was started before the session opened, each spare goes to one owner and is never
 * handed to another, it counts in `maxSessions` and never lets a token past its share, it is
 * stopped by PID on reload, config change and shutdown, a server that crashes at start does not
 * make it loop, and the per-user connections (whose credential is their owner's) never get one.
 * Every process is a real child (`fixtures/servers/spare-probe.mjs` says its pid and start time).
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { parseConfig } from "../../src/config/mod.ts";
import { createLogger } from "../../src/shared/log.ts";
import { UpstreamPool } from "../../src/upstream/mod.ts";
import {
  fixture,
  nodeServer,
  startTestGateway,
  type TestGateway,
  textOf,
  waitFor,
} from "../_helpers/gateway.ts";
import { alive, recordedPids } from "../ops/_ops.ts";
import { problemsOf } from "../config/_problems.ts";

const token = (name: string) => `${name}-spare-token-0123456789abcdef`;
const AUTH = `auth:
    tokens: [${["a", "b"].map((n) => `{ name: ${n}, token: "${token(n)}" }`).join(", ")}]`;

/** A fresh folder with a PIDS_FILE, and the `env:` that makes the fixture write to it. */
function pidsFile(): { dir: string; pids: string; env: (extra?: string) => string } {
  const dir = mkdtempSync(join(tmpdir(), "mcpgw-spare-"));
  const pids = join(dir, "pids");
  return {
    dir,
    pids,
    env: (extra = "") => `env: { PIDS_FILE: ${JSON.stringify(pids)}${extra} }`,
  };
}

/** A client of `token` (or none), with a roots handler when `roots` is given. */
async function session(url: string, who?: string, roots?: string[]): Promise<Client> {
  const client = new Client(
    { name: "spare-test", version: "1.0.0" },
    { capabilities: roots ? { roots: { listChanged: true } } : {} },
  );
  if (roots) {
    client.setRequestHandler(
      ListRootsRequestSchema,
      () => ({ roots: roots.map((uri) => ({ uri })) }),
    );
  }
  const headers: Record<string, string> = who ? { authorization: `Bearer ${token(who)}` } : {};
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }),
  );
  return client;
}

/** The process that answers this session's calls: its pid and when it started. */
async function whoami(client: Client): Promise<{ pid: number; startedAt: number }> {
  const r = await client.callTool({ name: "probe__whoami", arguments: {} });
  assert.notEqual(r.isError, true, textOf(r));
  return JSON.parse(textOf(r));
}

/** Kills (by PID) whatever a failing test left alive, and says which were. */
function leftAlive(pids: string): number[] {
  const left = recordedPids(pids).map((p) => p.pid).filter(alive);
  for (const pid of left) {
    try {
      process.kill(pid, "SIGKILL");
    } catch { /* gone */ }
  }
  return left;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Ends the session on the gateway too (DELETE), so its processes are released now. */
async function end(client: Client): Promise<void> {
  await (client.transport as StreamableHTTPClientTransport).terminateSession().catch(() => {});
  await client.close();
}

describe("a session-isolated server keeps one spare process", () => {
  const { pids, env } = pidsFile();
  let gw: TestGateway;
  const clients: Client[] = [];
  const spare = () => gw.running.gateway.pool.isolated.sparesOf("probe")[0];
  const open = async (who: string) => {
    const c = await session(gw.url, who);
    clients.push(c);
    return c;
  };
  before(async () => {
    gw = await startTestGateway(`
gateway:
  ${AUTH}
servers:
  probe: ${
      nodeServer(
        "spare-probe.mjs",
        `isolation: session, maxSessions: 3, maxSessionsPerToken: 2, ${env()}`,
      )
    }
`);
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await gw?.stop();
    leftAlive(pids);
  });

  it("a session gets a process started before it opened; each owner its own, never reused", async () => {
    await waitFor(() => spare()?.state === "up", 30_000, "the first spare");
    // The shared instance came up first; the spare was started after it.
    const [, first] = recordedPids(pids);
    assert.ok(first, "a spare process was started before any session");
    const openedA1 = Date.now();
    const a1 = await open("a");
    const gotA1 = await whoami(a1);
    assert.equal(gotA1.pid, first.pid, "the session took the spare");
    assert.ok(gotA1.startedAt < openedA1, "its process was started before the session opened");

    // Taking it started the next one in the background.
    await waitFor(() => spare()?.state === "up", 30_000, "the second spare");
    const second = recordedPids(pids)[2]!;
    const openedA2 = Date.now();
    const a2 = await open("a");
    const gotA2 = await whoami(a2);
    assert.equal(gotA2.pid, second.pid);
    assert.ok(gotA2.startedAt < openedA2);
    assert.notEqual(gotA2.pid, gotA1.pid, "the spare is not shared between sessions");

    // Two owners of three: there is room for a spare, and a token at its share cannot take it.
    await waitFor(() => spare()?.state === "up", 30_000, "the third spare");
    const waiting = spare();
    const a3 = await open("a");
    const refused = await a3.callTool({ name: "probe__whoami", arguments: {} });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /token "a" already holds 2 session processes/);
    assert.equal(spare(), waiting, "the refused session did not take (or stop) the spare");

    // b takes it; three owners fill maxSessions, so no spare is started.
    const b1 = await open("b");
    const gotB1 = await whoami(b1);
    assert.equal(gotB1.pid, recordedPids(pids)[3]!.pid);
    await pause(500);
    assert.equal(spare(), undefined, "no spare while maxSessions leaves no room");
    assert.equal(recordedPids(pids).length, 4, "shared + three session processes, no more");
    const b2 = await open("b");
    const full = await b2.callTool({ name: "probe__whoami", arguments: {} });
    assert.equal(full.isError, true);
    assert.match(textOf(full), /already runs 3 session processes \(maxSessions: 3\)/);

    // A session closes: its process is stopped, never handed on; a fresh spare takes the room.
    await end(a1);
    await waitFor(() => !alive(gotA1.pid), 10_000, "a1's process to stop");
    await waitFor(() => spare()?.state === "up", 30_000, "a spare once there is room");
    const gotB2 = await whoami(b2);
    const mine = new Set([gotA1.pid, gotA2.pid, gotB1.pid]);
    assert.ok(!mine.has(gotB2.pid), "a process once taken is never given to another owner");
    assert.equal(gotB2.pid, recordedPids(pids)[4]!.pid);
    // The owners still have their own.
    assert.deepEqual([(await whoami(a2)).pid, (await whoami(b1)).pid], [gotA2.pid, gotB1.pid]);
  });

  it("shutdown stops every process, the spare's included", async () => {
    // The last session gives back its slot, so a spare is up when the gateway stops.
    await end(clients.pop()!);
    await waitFor(() => spare()?.state === "up", 30_000, "a spare");
    const all = recordedPids(pids).map((p) => p.pid);
    assert.ok(all.some(alive), "processes run before the stop");
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await gw.stop();
    await waitFor(() => !all.some(alive), 5000, "every process to be gone").catch(() => {});
    assert.deepEqual(leftAlive(pids), [], JSON.stringify(recordedPids(pids)));
  });
});

describe("reload and spare: 0", () => {
  const { dir, pids, env } = pidsFile();
  let gw: TestGateway;
  const spare = () => gw.running.gateway.pool.isolated.sparesOf("probe")[0];
  const yaml = (extra: string) => `
servers:
  probe: ${nodeServer("spare-probe.mjs", `isolation: session, ${extra}${env()}`)}
`;
  const reload = async (extra: string) => {
    writeFileSync(join(dir, "gateway.yaml"), yaml(extra));
    await gw.running.reload("test");
  };
  before(async () => {
    gw = await startTestGateway(yaml(""), { dir });
  });
  after(async () => {
    await gw?.stop();
    leftAlive(pids);
  });

  it("a changed config stops the spare by PID and starts one of the new config", async () => {
    await waitFor(() => spare()?.state === "up", 30_000, "the spare");
    const old = recordedPids(pids)[1]!;
    await reload("maxSessions: 5, ");
    await waitFor(() => !alive(old.pid), 10_000, "the old spare to stop");
    await waitFor(() => spare()?.state === "up", 30_000, "the new config's spare");
    assert.equal(spare()!.config.maxSessions, 5);
  });

  it("spare: 2 keeps two, within maxSessions", async () => {
    await reload("maxSessions: 2, spare: 2, ");
    const spares = () => gw.running.gateway.pool.isolated.sparesOf("probe");
    await waitFor(
      () => spares().length === 2 && spares().every((u) => u.state === "up"),
      30_000,
      "two spares",
    );
    const opened = Date.now();
    const c = await session(gw.url);
    try {
      const got = await whoami(c);
      assert.ok(got.startedAt < opened, "it took one of the two");
      await pause(500);
      // One owner and one spare fill maxSessions: 2, so the taken one is not replaced.
      assert.equal(spares().length, 1);
    } finally {
      await end(c);
    }
    await waitFor(() => spares().length === 2, 10_000, "the room given back to a spare");
  });

  it("spare: 0 stops it and starts none; a session then waits for its own start", async () => {
    const before = recordedPids(pids);
    await reload("spare: 0, ");
    await waitFor(() => before.every((p) => !alive(p.pid)), 10_000, "the old processes to stop");
    assert.equal(spare(), undefined);
    const started = recordedPids(pids).length; // the new shared instance
    const opened = Date.now();
    const c = await session(gw.url);
    try {
      const got = await whoami(c);
      assert.ok(got.startedAt >= opened, "with spare: 0 the process starts on demand");
      assert.equal(recordedPids(pids).length, started + 1, "one process for the session, no spare");
    } finally {
      await end(c);
    }
  });

  it("removing the server leaves no process", async () => {
    writeFileSync(join(dir, "gateway.yaml"), "servers: {}\n");
    await gw.running.reload("test");
    const all = recordedPids(pids).map((p) => p.pid);
    await waitFor(() => !all.some(alive), 10_000, "every process to stop").catch(() => {});
    assert.deepEqual(leftAlive(pids), []);
  });
});

describe("a spare of a server that crashes at start", () => {
  const { dir, pids, env } = pidsFile();
  const attempts = join(dir, "attempts");
  const count = () => readFileSync(attempts, "utf8").split("\n").filter(Boolean).length;
  let gw: TestGateway;
  before(async () => {
    // Only the first start serves (the shared instance); every later one exits at once.
    const extra = `, ONCE_FILE: ${JSON.stringify(join(dir, "once"))}, ATTEMPTS_FILE: ${
      JSON.stringify(attempts)
    }`;
    gw = await startTestGateway(`
servers:
  probe: ${
      nodeServer(
        "spare-probe.mjs",
        `isolation: session, restart: { initialDelay: 50ms, maxRestarts: 2 }, ${env(extra)}`,
      )
    }
`);
  });
  after(async () => {
    await gw?.stop();
    leftAlive(pids);
  });

  it("backs off and gives up; a session does not start another spare", async () => {
    const spare = () => gw.running.gateway.pool.isolated.sparesOf("probe")[0];
    await waitFor(() => spare()?.gaveUp, 30_000, "the spare to give up");
    // The shared instance's start, the spare's and its two restarts.
    assert.equal(count(), 4);
    const c = await session(gw.url);
    try {
      const r = await c.callTool({ name: "probe__whoami", arguments: {} });
      assert.equal(r.isError, true, "the session's own process cannot start either");
    } finally {
      await end(c);
    }
    await waitFor(() => gw.running.gateway.pool.isolated.count("probe") === 0, 10_000);
    // The session's process (and its restarts, if it lived to have them) — and nothing else:
    // its release found the spare given up, so none was started again.
    const settled = count();
    assert.ok(settled <= 7, `attempts: ${settled}`);
    await pause(1500);
    assert.equal(count(), settled, "no start loop");
    assert.equal(spare()?.gaveUp, true);
  });
});

describe("the spare key", () => {
  it("applies with isolation: session only; defaults to 1 there and 0 elsewhere", () => {
    assert.deepEqual(problemsOf("servers:\n  s: { command: x, spare: 2 }\n"), [
      "servers.s.spare: spare applies with isolation: session only",
    ]);
    assert.match(
      problemsOf("servers:\n  s: { command: x, isolation: session, spare: -1 }\n")[0]!,
      /^servers\.s\.spare: /,
    );
    const spares = (extra: string) =>
      parseConfig(`servers:\n  s: { command: x${extra} }\n`).servers[0]!.spare;
    assert.deepEqual([
      spares(", isolation: session"),
      spares(""),
      spares(", isolation: session, spare: 0"),
    ], [1, 0, 0]);
  });
});

describe("pre-start and ownership", () => {
  it("a spare's roots/list before the take waits for its owner and gets the owner's", async () => {
    const { pids, env } = pidsFile();
    const gw = await startTestGateway(`
servers:
  probe: ${
      nodeServer(
        "spare-probe.mjs",
        `isolation: session, roots: client, ${env(", ROOTS_AT_START: '1'")}`,
      )
    }
`);
    const spare = () => gw.running.gateway.pool.isolated.sparesOf("probe")[0];
    const clients: Client[] = [];
    const seen = async (c: Client) => {
      const r = await c.callTool({ name: "probe__roots_seen", arguments: {} });
      return JSON.parse(textOf(r)) as { roots?: string[]; error?: string }[];
    };
    try {
      for (const who of ["a", "b"]) {
        // The spare is up (it asked for roots at initialize, and nobody answered yet).
        await waitFor(() => spare()?.state === "up", 30_000, "the spare");
        const c = await session(gw.url, undefined, [`file:///owner-${who}`]);
        clients.push(c);
        const got = await waitFor(
          async () => {
            const s = await seen(c);
            return s.length > 0 ? s : undefined;
          },
          10_000,
          `${who}'s roots`,
        );
        assert.deepEqual(got, [{ roots: [`file:///owner-${who}`] }], "its owner's, nobody else's");
      }
    } finally {
      await Promise.all(clients.map(end));
      await gw.stop();
      leftAlive(pids);
    }
  });

  it("per-user connections keep no spare (their credential is their owner's)", async () => {
    const { dir, pids, env } = pidsFile();
    const config = parseConfig(
      `
servers:
  probe: { command: node, args: [${
        JSON.stringify(fixture("spare-probe.mjs"))
      }], isolation: session, ${env()} }
`,
      { file: join(dir, "gateway.yaml") },
    ).servers[0]!;
    const pool = new UpstreamPool([config], createLogger("test"));
    try {
      pool.users.prime(config);
      assert.equal(pool.users.sparesOf("probe")[0], undefined);
      pool.isolated.prime(config);
      await waitFor(() => pool.isolated.sparesOf("probe")[0]?.state === "up", 30_000);
      assert.equal(recordedPids(pids).length, 1, "only the session table started one");
    } finally {
      await pool.stopAll();
    }
    const all = recordedPids(pids).map((p) => p.pid);
    await waitFor(() => !all.some(alive), 5000).catch(() => {});
    assert.deepEqual(leftAlive(pids), []);
  });
});
