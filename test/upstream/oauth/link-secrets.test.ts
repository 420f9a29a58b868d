/**
 * A per-user connect link goes to its identity alone: the call's answer carries it, and no record
 * anyone else reads within its lifetime does — the audit log, the status page and its JSON, and
 * the log at debug level keep the link's path but never its secret.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { RunningGateway } from "../../../src/cli/mod.ts";
import { setLogLevel, setLogSink } from "../../../src/shared/log.ts";
import { textOf, waitFor } from "../../_helpers/gateway.ts";
import { configFile, type Parties, startFromFile, startParties } from "./_setup.ts";

const BOB = "bob-token-0123456789";
const OPS = "ops-token-0123456789ab";

describe("connect links stay with their identity", { timeout: 120_000 }, () => {
  let parties: Parties;
  let gw: RunningGateway;
  let base: string;
  let dir: string;
  let bob: Client;
  const lines: string[] = [];
  let restoreSink: () => void;

  before(async () => {
    restoreSink = setLogSink((line) => lines.push(line));
    setLogLevel("debug");
    parties = await startParties(300);
    const file = configFile(
      "mcpgw-links-",
      "gateway:\n  audit: { file: ./audit.jsonl, args: full }\n  auth:\n    tokens:\n" +
        `      - { name: bob, token: ${BOB} }\n` +
        `      - { name: ops, token: ${OPS}, admin: true }\n` +
        `servers:\n  tracker: { url: ${JSON.stringify(parties.upstream.url)}, ` +
        "oauth: { mode: per-user } }\n",
    );
    dir = dirname(file);
    ({ gw, base } = await startFromFile(file));
    bob = new Client({ name: "bob", version: "1.0.0" });
    await bob.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${BOB}` } },
      }),
    );
  });
  after(async () => {
    await bob?.close();
    await gw?.stop();
    await parties?.stop();
    setLogLevel("silent");
    restoreSink?.();
  });

  it("the audit log, status page and logs never hold the link's secret", async () => {
    const text = textOf(await bob.callTool({ name: "tracker__whoami", arguments: {} }));
    const secret = /\/oauth\/link\?t=([A-Za-z0-9_-]+)/.exec(text)?.[1];
    assert.ok(secret, `bob's answer names his link: ${text}`);
    const audit: string = await waitFor(
      () => {
        try {
          const t = readFileSync(join(dir, "audit.jsonl"), "utf8");
          return t.includes("tracker__whoami") ? t : "";
        } catch {
          return "";
        }
      },
      5_000,
      "an audit line",
    );
    const admin = { authorization: `Bearer ${OPS}` };
    const json = await (await fetch(`${base}/status.json`, { headers: admin })).text();
    const page = await (await fetch(`${base}/`, { headers: admin })).text();
    for (
      const [where, seen] of [
        ["audit log", audit],
        ["status.json", json],
        ["status page", page],
        ["log", lines.join("\n")],
      ] as const
    ) {
      assert.ok(!seen.includes(secret), `${where} holds the link's secret`);
    }
    assert.match(audit, /needs a login/, "the audit line still says why the call failed");
  });
});
