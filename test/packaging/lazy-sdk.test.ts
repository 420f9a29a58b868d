/**
 * The SDK v2 packages (server and client, ~9 MiB of RSS together with their schemas) are loaded
 * only when 2026-07-28 traffic needs them: the door's classifier answers a 2025 client without
 * them (test/protocol/classify.test.ts), a stdio upstream's era probe is sent without them
 * (`src/upstream/modern/pre-probe.ts`), and — checked here — no module that the `serve`
 * command imports statically imports either; they come in through `import()` only. The same
 * walk holds `node:crypto` (hashes come from `src/runtime/hash.ts`), the SDK 1.x OAuth client
 * with its HTTP transports, the SDK's stdio server and `node:child_process` (children spawn
 * through `src/runtime/spawn.ts`: `Bun.spawn` on Bun, the module fetched at first use elsewhere)
 * and the client-config converter with its JSONC parser (only a `.json` config needs them) out
 * of the start-up graph.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../../src");

/** Specifiers a module imports for its values at load time (not `import type`, not `import()`). */
function staticImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const out: string[] = [];
  const re = /^(?:import|export)\s+(?!type\s)(?:[^;"']*?\sfrom\s*)?["']([^"']+)["']/gm;
  for (const m of text.matchAll(re)) out.push(m[1]!);
  return out;
}

/** Every package reached from `entry` through static imports of `src/` modules. */
function packagesReached(entry: string): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const spec of staticImports(file)) {
      if (spec.startsWith(".")) walk(join(dirname(file), spec));
      else packages.add(spec);
    }
  };
  walk(entry);
  return packages;
}

describe("the SDK v2 packages load only for 2026-07-28 traffic", () => {
  it("the door's own module imports it (the walk sees static imports)", () => {
    const reached = packagesReached(join(SRC, "session/modern/front.ts"));
    assert.ok(reached.has("@modelcontextprotocol/server"), [...reached].join(", "));
  });

  it("the upstream negotiation imports the v2 client", () => {
    const reached = packagesReached(join(SRC, "upstream/modern/negotiate.ts"));
    assert.ok(reached.has("@modelcontextprotocol/client"), [...reached].join(", "));
  });

  it("nothing the serve command imports statically reaches either", () => {
    const reached = packagesReached(join(SRC, "cli/serve-command.ts"));
    // The walk goes deep: the 2025 door's SDK 1.x server is reached.
    assert.ok(reached.has("@modelcontextprotocol/sdk/server/index.js"), [...reached].join(", "));
    assert.equal(reached.has("@modelcontextprotocol/server"), false, "the v2 server");
    assert.equal(reached.has("@modelcontextprotocol/client"), false, "the v2 client");
  });
});

describe("what one stdio upstream does not need is not imported at start", () => {
  it("the OAuth credential imports the SDK's OAuth client through import() (sdk-auth.ts)", () => {
    const text = readFileSync(join(SRC, "upstream/oauth/sdk-auth.ts"), "utf8");
    assert.match(text, /import\("@modelcontextprotocol\/sdk\/client\/auth\.js"\)/);
  });

  it("nothing the serve command imports statically reaches node:crypto or the SDK's OAuth client", () => {
    const reached = packagesReached(join(SRC, "cli/serve-command.ts"));
    // The walk does see the upstream clients: the SDK 1.x client is reached.
    assert.ok(reached.has("@modelcontextprotocol/sdk/client/index.js"), [...reached].join(", "));
    for (
      const lazy of [
        "node:crypto",
        "crypto",
        // The OAuth client, and the HTTP transports that import it, load for HTTP upstreams.
        "@modelcontextprotocol/sdk/client/auth.js",
        "@modelcontextprotocol/sdk/client/streamableHttp.js",
        "@modelcontextprotocol/sdk/client/sse.js",
        // The stdio server loads only for `--stdio`.
        "@modelcontextprotocol/sdk/server/stdio.js",
      ]
    ) assert.equal(reached.has(lazy), false, lazy);
  });

  it("the runtime's hash room takes node:crypto only at first use, off Bun", () => {
    const reached = packagesReached(join(SRC, "runtime/hash.ts"));
    assert.equal(reached.has("node:crypto"), false, [...reached].join(", "));
  });
});

describe("node:child_process is not imported at start (Bun spawns on its own pipes)", () => {
  it("the walk sees a static import of it where there is one (a test's helper)", () => {
    const reached = packagesReached(join(SRC, "../test/_helpers/process.ts"));
    assert.ok(reached.has("node:child_process"), [...reached].join(", "));
  });

  for (const entry of ["main.ts", "cli/mod.ts", "cli/serve-command.ts", "scripting/host/host.ts"]) {
    it(`nothing ${entry} imports statically reaches it`, () => {
      const reached = packagesReached(join(SRC, entry));
      for (const lazy of ["node:child_process", "child_process"]) {
        assert.equal(reached.has(lazy), false, `${lazy} from ${entry}`);
      }
    });
  }

  it("the runtime's spawn room and the script workers reach it through no import", () => {
    for (const file of ["runtime/spawn.ts", "scripting/host/worker-process.ts"]) {
      const reached = packagesReached(join(SRC, file));
      assert.equal(reached.has("node:child_process"), false, file);
    }
  });
});

describe("a gateway started from gateway.yaml does not load the client-config converter", () => {
  it("the walk sees the JSONC parser where the converter is imported", () => {
    const reached = packagesReached(join(SRC, "config/client/mod.ts"));
    assert.ok(reached.has("jsonc-parser"), [...reached].join(", "));
  });

  for (const entry of ["main.ts", "cli/mod.ts", "cli/serve-command.ts", "config/mod.ts"]) {
    it(`nothing ${entry} imports statically reaches it`, () => {
      const reached = packagesReached(join(SRC, entry));
      assert.equal(reached.has("jsonc-parser"), false, `jsonc-parser from ${entry}`);
    });
  }

  it("a .json config loads it through import()", () => {
    const text = readFileSync(join(SRC, "config/load.ts"), "utf8");
    assert.match(text, /await import\("\.\/client\/mod\.ts"\)/);
  });
});
