/**
 * The `profile` label of `/metrics` stays bounded: calls on profile endpoints count per profile,
 * past {@link MAX_PROFILE_LABELS} distinct names further ones count as `profile="other"`, and
 * calls on the whole catalog's endpoint add no profile series.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseConfig } from "../../src/config/mod.ts";
import { type CallRecord, Gateway } from "../../src/gateway/mod.ts";
import { Metrics } from "../../src/ops/mod.ts";
import { MAX_PROFILE_LABELS } from "../../src/ops/metrics.ts";
import { createLogger } from "../../src/shared/log.ts";

const FAMILY = "mcp_gateway_profile_tool_calls_total";

describe("profile metrics", () => {
  it("counts calls per profile, bounded, and none for /mcp", () => {
    const config = parseConfig("servers: {}\n", { file: "/tmp/gateway.yaml" });
    const metrics = new Metrics({ gateway: new Gateway(config, createLogger("test")) });
    const call = (profile: string | null, outcome: CallRecord["outcome"] = "ok"): CallRecord => ({
      kind: "tool",
      name: "t",
      server: "s",
      tokenName: null,
      profile,
      sessionId: null,
      era: "local",
      scriptDepth: 0,
      filters: [],
      durationMs: 1,
      outcome,
      at: Date.now(),
    });
    metrics.observe(call(null));
    for (let i = 0; i < MAX_PROFILE_LABELS + 10; i++) metrics.observe(call(`p${i}`));
    metrics.observe(call("p0", "error"));
    const lines = metrics.render().split("\n").filter((l) => l.startsWith(`${FAMILY}{`));
    const profiles = new Set(lines.map((l) => /profile="([^"]*)"/.exec(l)![1]));
    assert.equal(profiles.size, MAX_PROFILE_LABELS + 1); // the first 64, then "other"
    assert.ok(profiles.has("other") && !profiles.has(""));
    assert.ok(lines.includes(`${FAMILY}{profile="other",outcome="ok"} 10`), lines.join("\n"));
    assert.ok(lines.includes(`${FAMILY}{profile="p0",outcome="error"} 1`));
  });
});
