/** The problems of a config that must be rejected, for the config tests. */
import assert from "node:assert/strict";
import { parseConfig } from "../../src/config/mod.ts";
import { GatewayError } from "../../src/shared/errors.ts";

/** `path: message` of each problem of `yaml` (read as `file`); fails when it is accepted. */
export function problemsOf(yaml: string, file = "/tmp/gw/gateway.yaml"): string[] {
  try {
    parseConfig(yaml, { env: {}, file });
  } catch (err) {
    assert.ok(err instanceof GatewayError);
    return (err.data!.problems as { path: string; message: string }[]).map((p) =>
      `${p.path}: ${p.message}`
    );
  }
  assert.fail("expected the config to be rejected");
}
