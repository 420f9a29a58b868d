/**
 * Sandboxed stdio servers (`sandbox:`). The attack: a stdio server from a registry runs with the
 * gateway's rights — it reads `gateway.yaml` (tokens), writes where it likes, sees every other
 * process and opens any connection. A probe server tries each through the real gateway: boxed,
 * every attempt fails while its own `write:` and `read:` folders work; the same server unboxed
 * succeeds at each (so the probe can tell). The real filesystem server still serves its folder
 * inside the box, on one process per session too (`isolation: session`).
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  fixture,
  httpClient,
  ROOT,
  startTestGateway,
  type TestGateway,
  textOf,
} from "../_helpers/gateway.ts";

const PROBE = JSON.stringify(fixture("sandbox-probe.mjs"));
const FS_SERVER = JSON.stringify(
  join(ROOT, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"),
);

interface Attempt {
  ok: boolean;
  value?: unknown;
  error?: string;
}
interface Kernel {
  corePattern: Attempt;
  hostname: Attempt | null;
  masked: Record<string, Attempt>;
  userns: Attempt;
  noNewPrivs: string;
  seccomp: string;
}
interface Probe {
  kernel: Kernel | null;
  children: { started: number; error?: string } | null;
  memory: Attempt | null;
  read: Attempt | null;
  write: Attempt | null;
  processes: Attempt;
  tcp: Attempt | null;
  pid: number;
  cwd: string;
  home: string;
}

describe("a sandboxed stdio server", () => {
  let gw: TestGateway;
  let client: Client;
  let listener: Server;
  let port: number;
  let other: string;

  before(async () => {
    listener = createServer((s) => s.end());
    await new Promise<void>((r) => listener.listen(0, "127.0.0.1", r));
    port = (listener.address() as { port: number }).port;
    // The YAML names folders beside the config; they are made before the gateway starts.
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-sandbox-"));
    for (const d of ["docs", "data", "other", "fsdata", "work", "work/ref"]) {
      mkdirSync(join(dir, d));
    }
    writeFileSync(join(dir, "docs", "readme.txt"), "docs for the server");
    writeFileSync(join(dir, "fsdata", "hello.txt"), "hello from the allowed folder");
    other = join(dir, "other");
    const yaml = `
gateway:
  sandbox: true
servers:
  boxed:
    command: node
    args: [${PROBE}]
    sandbox: { read: ["./docs"], write: ["./data"] }
  open:
    command: node
    args: [${PROBE}]
    sandbox: false
  worker:
    command: node
    args: [${PROBE}]
    cwd: ./work
    sandbox: { read: ["./work/ref"] }
  limited:
    command: node
    args: [${PROBE}]
    sandbox: { memory: 256MiB, processes: 32 }
  fs:
    command: node
    args: [${FS_SERVER}, ${JSON.stringify(join(dir, "fsdata"))}]
    sandbox: { write: ["./fsdata"] }
  fs-session:
    command: node
    args: [${FS_SERVER}, ${JSON.stringify(join(dir, "fsdata"))}]
    sandbox: { write: ["./fsdata"] }
    isolation: session
`;
    gw = await startTestGateway(yaml, { dir });
    client = await httpClient(gw.url);
  });
  after(async () => {
    await client?.close();
    await gw?.stop();
    await new Promise((r) => listener?.close(r));
  });

  async function probe(server: string, args: Record<string, unknown>): Promise<Probe> {
    const r = await client.callTool({ name: `${server}__probe`, arguments: args });
    assert.equal(r.isError, undefined, textOf(r));
    return JSON.parse(textOf(r)) as Probe;
  }

  it("cannot read the gateway's config file", async () => {
    const config = join(gw.dir, "gateway.yaml");
    assert.equal((await probe("open", { read: config })).read?.ok, true);
    const boxed = await probe("boxed", { read: config });
    assert.equal(boxed.read?.ok, false);
    assert.equal(boxed.read?.error, "ENOENT");
  });

  it("cannot write outside its folders, but writes its write folder", async () => {
    const outside = join(other, "boxed.txt");
    assert.equal((await probe("boxed", { write: outside })).write?.ok, false);
    assert.throws(() => readFileSync(outside));
    // The control: unboxed, the same write lands.
    assert.equal((await probe("open", { write: join(other, "open.txt") })).write?.ok, true);
    assert.equal(readFileSync(join(other, "open.txt"), "utf8"), "probe");
    const inside = join(gw.dir, "data", "out.txt");
    assert.equal((await probe("boxed", { write: inside })).write?.ok, true);
    assert.equal(readFileSync(inside, "utf8"), "probe");
  });

  it("reads its read folder but cannot write it", async () => {
    const file = join(gw.dir, "docs", "readme.txt");
    const r = await probe("boxed", { read: file, write: join(gw.dir, "docs", "x.txt") });
    assert.equal(r.read?.value, "docs for the server");
    assert.equal(r.write?.ok, false);
  });

  it("a read folder inside its writable cwd stays read-only", async () => {
    const work = join(gw.dir, "work");
    const ref = await probe("worker", { write: join(work, "ref", "x.txt") });
    assert.equal(ref.write?.ok, false, JSON.stringify(ref.write));
    assert.throws(() => readFileSync(join(work, "ref", "x.txt")));
    assert.equal((await probe("worker", { write: join(work, "y.txt") })).write?.ok, true);
    assert.equal(readFileSync(join(work, "y.txt"), "utf8"), "probe");
  });

  it("cannot read $HOME", async () => {
    const home = process.env.HOME!;
    // A folder: EISDIR where it is visible, ENOENT where it is not.
    assert.equal((await probe("open", { read: home })).read?.error, "EISDIR");
    const r = await probe("boxed", { read: home });
    assert.equal(r.read?.error, "ENOENT");
    assert.equal(r.home, "/tmp");
  });

  it("sees no other process", async () => {
    const open = await probe("open", {});
    assert.ok((open.processes.value as number[]).includes(process.pid));
    const boxed = await probe("boxed", {});
    const pids = boxed.processes.value as number[];
    assert.ok(!pids.includes(process.pid), `the gateway's pid ${process.pid} is visible`);
    assert.ok(pids.length <= 3, `processes seen in the box: ${pids.join(", ")}`);
  });

  it("cannot connect to a listener on 127.0.0.1", async () => {
    assert.equal((await probe("open", { port })).tcp?.ok, true);
    const boxed = await probe("boxed", { port });
    assert.equal(boxed.tcp?.ok, false, JSON.stringify(boxed.tcp));
  });

  it("runs in an empty folder at the config's path when no cwd is written", async () => {
    const r = await probe("boxed", { read: join(gw.dir, "gateway.yaml") });
    assert.equal(r.cwd, gw.dir);
    assert.equal(r.read?.ok, false);
  });

  it("cannot write the host's kernel settings under /proc/sys, not even its own host name", async () => {
    const { kernel } = await probe("boxed", { kernel: true, hostname: true });
    assert.equal(kernel?.corePattern.ok, false, JSON.stringify(kernel?.corePattern));
    assert.equal(kernel?.hostname?.ok, false, JSON.stringify(kernel?.hostname));
    // The control (never writing): a gateway run as root could open it for writing.
    if (process.getuid?.() === 0) {
      const open = await probe("open", { kernel: true });
      assert.equal(open.kernel?.corePattern.ok, true);
    }
  });

  it("cannot read the /proc files a container runtime masks", async () => {
    const open = await probe("open", { kernel: true });
    const boxed = await probe("boxed", { kernel: true });
    for (const file of ["/proc/timer_list", "/proc/keys"]) {
      const seen = open.kernel?.masked[file];
      if (!seen?.ok) continue; // not on this kernel
      const r = boxed.kernel?.masked[file];
      // `/dev/null` bound over it, on a mount without devices: nothing, or refused.
      assert.ok(r?.ok ? r.value === 0 : r?.error === "EACCES", `${file}: ${JSON.stringify(r)}`);
    }
  });

  it("runs with no new privileges and a seccomp filter that refuses new namespaces", async () => {
    const { kernel } = await probe("boxed", { kernel: true });
    assert.equal(kernel?.noNewPrivs, "1");
    assert.equal(kernel?.seccomp, "2", "no seccomp filter is loaded");
    assert.equal(kernel?.userns.ok, false);
    assert.match(kernel?.userns.error ?? "", /Operation not permitted/);
    if (process.getuid?.() === 0) {
      assert.equal((await probe("open", { kernel: true })).kernel?.userns.ok, true);
    }
  });

  it("a memory bomb stops at the box's memory limit", async () => {
    assert.equal((await probe("open", { memory: 320 })).memory?.ok, true);
    const boxed = await probe("limited", { memory: 320 });
    assert.equal(boxed.memory?.ok, false, JSON.stringify(boxed.memory));
    // The box survives its failed allocation and still answers.
    assert.equal((await probe("limited", {})).pid > 0, true);
  });

  it("a fork bomb stops at the box's process limit, under a gateway run as root too", async () => {
    assert.equal((await probe("open", { children: 48 })).children?.started, 48);
    const boxed = await probe("limited", { children: 48 });
    assert.ok(boxed.children!.started < 32, JSON.stringify(boxed.children));
    assert.equal(boxed.children?.error, "EAGAIN");
    assert.equal((await probe("limited", {})).pid > 0, true);
  });

  for (const server of ["fs", "fs-session"]) {
    it(`the real filesystem server reads and writes its folder (${server})`, async () => {
      const dir = join(gw.dir, "fsdata");
      const read = await client.callTool({
        name: `${server}__read_text_file`,
        arguments: { path: join(dir, "hello.txt") },
      });
      assert.equal(textOf(read), "hello from the allowed folder");
      const written = await client.callTool({
        name: `${server}__write_file`,
        arguments: { path: join(dir, `${server}.txt`), content: "written in the box" },
      });
      assert.equal(written.isError, undefined, textOf(written));
      assert.equal(readFileSync(join(dir, `${server}.txt`), "utf8"), "written in the box");
    });
  }
});
