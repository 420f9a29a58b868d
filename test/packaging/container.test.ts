/**
 * The container image (`packaging/Containerfile`), built with buildah (vfs storage, chroot
 * isolation) from the compiled binary: it runs as a non-root user with `/data` as its state
 * volume and a health check on `/healthz`, and serves its example config — run with podman, or,
 * where podman cannot run a container on this machine, from the image's own root file system
 * with `buildah run` (chroot), as the image's user, with its entry point and config. What could
 * not be done here (pull the base, run podman) is reported as a test diagnostic.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { authedHttpClient } from "../security/_http.ts";
import { ROOT, textOf } from "../_helpers/gateway.ts";
import { type GatewayProcess, startGatewayProcess } from "../_helpers/process.ts";
import { ImageStore } from "./_image.ts";

const BINARY = join(ROOT, "dist/mcp-gateway");
const TOKEN = "container-smoke-token-0123456789";
const IMAGE = "localhost/mcp-gateway:test";
const hasBuildah = spawnSync("buildah", ["--version"]).status === 0;
const SKIP = !process.env.MCPGW_BINARY || !existsSync(BINARY)
  ? "MCPGW_BINARY not set, or dist/mcp-gateway not built (npm test builds it)"
  : !hasBuildah && process.env.CI !== "true"
  ? "buildah not installed (Debian package buildah)"
  : false;

/** The image config as buildah shows it (Docker format: it keeps HEALTHCHECK). */
interface ImageConfig {
  User: string;
  Env: string[];
  Entrypoint: string[];
  Cmd: string[];
  Volumes: Record<string, unknown>;
  ExposedPorts: Record<string, unknown>;
  Healthcheck: { Test: string[] };
}

describe("the container image", { skip: SKIP }, () => {
  let store: ImageStore;
  let config: ImageConfig;

  before(() => {
    assert.ok(hasBuildah, "buildah is required in CI (apt-get install -y buildah podman)");
    store = new ImageStore();
    const base = store.base(BINARY);
    console.error(`# container image base: ${base.note}`);
    store.buildah([
      "build",
      "--quiet",
      "--format",
      "docker",
      "--build-arg",
      `BASE=${base.name}`,
      "-f",
      join(ROOT, "packaging/Containerfile"),
      "-t",
      IMAGE,
      ROOT,
    ]);
    const inspected = JSON.parse(store.buildah(["inspect", "--type", "image", IMAGE]));
    config = inspected.Docker.config;
  });
  after(() => store?.remove());

  it("runs the binary as a non-root user, with /data as its state volume", () => {
    assert.equal(config.User, "10001:10001");
    assert.deepEqual(config.Entrypoint, ["/usr/local/bin/mcp-gateway"]);
    assert.deepEqual(config.Cmd, ["--config", "/etc/mcp-gateway/gateway.yaml"]);
    assert.ok("/data" in config.Volumes);
    assert.ok("8787/tcp" in config.ExposedPorts);
    assert.ok(config.Env.includes("HOME=/data"));
    assert.ok(config.Env.includes("MIMALLOC_PURGE_DELAY=1000"), "the allocator's purge delay");
  });

  it("checks its health on /healthz", () => {
    assert.equal(config.Healthcheck.Test[0], "CMD");
    assert.match(
      config.Healthcheck.Test.join(" "),
      /\/dev\/tcp\/127\.0\.0\.1\/8787.*GET \/healthz/,
    );
  });

  it("serves its example config: the health check passes and an MCP client calls greet", async () => {
    const { gateway, stop, exec, how } = await runImage(store);
    console.error(`# container run: ${how}`);
    try {
      // The image's own health check command, pointed at the port this run listens on.
      const port = new URL(gateway.url).port;
      const check = config.Healthcheck.Test.slice(1).map((a) => a.replace("/8787", `/${port}`));
      assert.equal(exec(check), 0, "the health check passes");
      const client = await authedHttpClient(gateway.url, TOKEN);
      try {
        const { tools } = await client.listTools();
        assert.ok(tools.some((t) => t.name === "greet"), tools.map((t) => t.name).join());
        const result = await client.callTool({ name: "greet", arguments: { name: "image" } });
        assert.match(textOf(result), /Hello, image!/);
      } finally {
        await client.close();
      }
    } finally {
      await stop();
    }
  });
});

/**
 * Runs the image on the host's network, listening on a free loopback port (`--listen` after the
 * image's own `--config`): with podman when it can run containers here, else from the image's
 * root file system with `buildah run` (the same user, entry point and config). Returns the
 * gateway, how it ran, a way to run a command beside it in the image, and its stop.
 */
async function runImage(store: ImageStore): Promise<{
  gateway: GatewayProcess;
  how: string;
  exec: (cmd: string[]) => number;
  stop: () => Promise<void>;
}> {
  const args = ["--config", "/etc/mcp-gateway/gateway.yaml", "--listen", "127.0.0.1:0"];
  const env = { ...process.env, BUILDAH_ISOLATION: "chroot" };
  const name = `mcpgw-smoke-${process.pid}`;
  // podman's default rlimits are raised past what a machine without CAP_SYS_RESOURCE may set:
  // ask for limits below the usual ones instead (a smoke test needs few).
  const podman = store.podmanArgs([
    "run",
    "--rm",
    "--name",
    name,
    "--network",
    "host",
    "--no-healthcheck",
    "--ulimit",
    "nofile=4096:4096",
    "--ulimit",
    "nproc=4096:4096",
    "-e",
    `MCP_GATEWAY_TOKEN=${TOKEN}`,
    IMAGE,
    ...args,
  ]);
  try {
    const gateway = await startGatewayProcess("podman", podman, { cwd: ROOT, env });
    return {
      gateway,
      how: "podman run",
      exec: (cmd) =>
        spawnSync("podman", store.podmanArgs(["exec", name, ...cmd]), { timeout: 30_000 })
          .status ?? 1,
      stop: () => stopChild(gateway),
    };
  } catch (err) {
    const why = String((err as Error).message).split("\n").filter((l) => /Error/.test(l)).join(
      "; ",
    );
    const c = store.buildah(["from", "--quiet", "--name", `${name}-b`, IMAGE]).trim();
    const user = ["--isolation", "chroot", "--network", "host", "--user", "10001:10001"];
    const gateway = await startGatewayProcess("buildah", [
      ...store.global,
      "run",
      ...user,
      "-e",
      `MCP_GATEWAY_TOKEN=${TOKEN}`,
      c,
      "--",
      "/usr/local/bin/mcp-gateway",
      ...args,
    ], { cwd: ROOT, env });
    return {
      gateway,
      how: `podman could not run a container here (${why || "no error line"}); ran the image's ` +
        `root file system with buildah run (chroot) as 10001:10001`,
      exec: (cmd) =>
        spawnSync("buildah", [...store.global, "run", ...user, c, "--", ...cmd], {
          env,
          timeout: 30_000,
        }).status ?? 1,
      stop: () => stopChild(gateway),
    };
  }
}

/** Stops a gateway started in the image and waits for it to go. */
async function stopChild({ child }: GatewayProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const gone = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await gone;
  clearTimeout(timer);
}
