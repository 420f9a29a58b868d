/**
 * The core names no MCP SDK: its protocol data are the gateway's own shapes
 * (`src/shared/protocol.ts`), and it reaches a client through the interfaces a door implements
 * (a 2025 session's `ClientConnection`, a call's `ClientChannel`). An SDK import that creeps back
 * into `src/gateway/` — a type, a value or an `import()` — fails here, naming the file.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, it } from "node:test";
import { ROOT } from "../_helpers/gateway.ts";

/** Every `.ts` file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []
  );
}

/** The files under `src/<folder>` that name an MCP SDK package in an import or `import()`. */
function sdkImporters(folder: string): string[] {
  const named = /(?:from\s*|import\s*\(?\s*)["']@modelcontextprotocol\//;
  return sources(join(ROOT, "src", folder))
    .filter((file) => named.test(readFileSync(file, "utf8")))
    .map((file) => relative(ROOT, file).split("\\").join("/"));
}

describe("the core's boundary with the SDK", () => {
  it("sees an import of the SDK where the 2025 door has one", () => {
    assert.ok(sdkImporters("session/legacy").includes("src/session/legacy/server.ts"));
  });

  it("no file under src/gateway/ imports the SDK", () => {
    assert.deepEqual(sdkImporters("gateway"), []);
  });
});
