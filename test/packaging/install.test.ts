/**
 * `npm install` on a fresh clone warns about nothing of this project's own making: every locked
 * package's `engines.node` admits the oldest Node that `package.json` promises, and every
 * package with an install script has a decision in `allowScripts`, and the runtimes the project's
 * own scripts run through (`bun`, `deno`) are allowed theirs: their install script is what puts
 * the real binary behind `node_modules/.bin`, and without it every script fails on a fresh clone.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import semver from "semver";
import { ROOT } from "../_helpers/gateway.ts";

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8"));
const locked = Object.entries(
  lock.packages as Record<
    string,
    { version?: string; engines?: { node?: string }; hasInstallScript?: boolean }
  >,
).filter(([path]) => path !== "");

describe("installing the project", () => {
  it("promises a Node every locked package accepts (no EBADENGINE)", () => {
    const oldest = semver.minVersion(pkg.engines.node)!;
    const refused = locked
      .filter(([, p]) => p.engines?.node && !semver.satisfies(oldest, p.engines.node))
      .map(([path, p]) => `${path}@${p.version} needs node ${p.engines!.node}`);
    assert.deepEqual(refused, [], `package.json promises node ${pkg.engines.node}`);
  });

  it("decides about every install script (allowScripts)", () => {
    const undecided = locked
      .filter(([, p]) => p.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length))
      .filter((name) => typeof pkg.allowScripts?.[name] !== "boolean");
    assert.deepEqual(undecided, []);
  });

  it("lets the runtimes the scripts run through install their binaries", () => {
    const scripts = Object.values(pkg.scripts as Record<string, string>).join("\n");
    const test = readFileSync(join(ROOT, "scripts", "test.sh"), "utf8");
    const used = ["bun", "deno"].filter((name) =>
      new RegExp(`(^|[\\s;&|(/])${name}\\s`, "m").test(`${scripts}\n${test}`)
    );
    assert.deepEqual(used, ["bun", "deno"], "both runtimes are driven by the scripts");
    const refused = used.filter((name) => pkg.allowScripts?.[name] !== true);
    assert.deepEqual(refused, [], "allowScripts must be true for these");
  });
});
