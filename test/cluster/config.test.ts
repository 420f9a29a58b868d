/**
 * `gateway.cluster` in the config: defaults, `${VAR}` in the Redis URL, and clear errors that
 * name the key. Absent, the gateway keeps everything in-process (`cluster: null`).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseConfig } from "../../src/config/mod.ts";
import { GatewayError } from "../../src/shared/errors.ts";

const FILE = "/tmp/gw/gateway.yaml";

describe("gateway.cluster config", () => {
  it("is null without the key: nothing is shared", () => {
    assert.equal(parseConfig("", { file: FILE }).gateway.cluster, null);
  });

  it("takes the password from the environment and fills the defaults", () => {
    const c = parseConfig(
      "gateway:\n  cluster:\n    redis: redis://:${REDIS_PASSWORD}@10.0.0.2:6379/1\n",
      { file: FILE, env: { REDIS_PASSWORD: "s3cret" } },
    );
    assert.deepEqual(c.gateway.cluster, {
      redisUrl: "redis://:s3cret@10.0.0.2:6379/1",
      timeoutMs: 500,
      stateKey: null,
      instance: null,
      advertise: null,
      heartbeatMs: 2000,
    });
  });

  it("names the key of a bad URL, a short stateKey and a bad instance name", () => {
    try {
      parseConfig(
        "gateway:\n  cluster:\n    redis: http://h:6379\n    stateKey: short\n    instance: a b\n",
        { file: FILE },
      );
      assert.fail("should throw");
    } catch (err) {
      assert.ok(err instanceof GatewayError);
      assert.equal(err.code, "CONFIG_INVALID");
      const text = (err.data!.problems as { path: string; message: string }[])
        .map((p) => `${p.path}: ${p.message}`).join("\n");
      assert.match(text, /gateway\.cluster\.redis: expected a redis:\/\/ or rediss:\/\/ URL/);
      assert.match(text, /gateway\.cluster\.stateKey: expected at least 32 characters/);
      assert.match(text, /gateway\.cluster\.instance: expected 1-64 letters/);
    }
  });
});
