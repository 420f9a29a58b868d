/** A gateway over a temp folder holding `gateway.yaml` and a `macros/` folder of given files. */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startGateway } from "../../../src/cli/mod.ts";
import { parseConfig } from "../../../src/config/mod.ts";
import type { TestGateway } from "../../_helpers/gateway.ts";

/** Writes the files (paths relative to the folder) and serves the config on 127.0.0.1:0. */
export async function startWithMacros(
  yaml: string,
  files: Record<string, string>,
): Promise<TestGateway> {
  const dir = mkdtempSync(join(tmpdir(), "mcpgw-macros-"));
  mkdirSync(join(dir, "macros"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const file = join(dir, "gateway.yaml");
  writeFileSync(file, yaml);
  const running = await startGateway(parseConfig(yaml, { file }), {
    listen: "127.0.0.1:0",
    watch: false,
  });
  await running.settled;
  return {
    running,
    dir,
    url: `http://127.0.0.1:${running.http!.port}`,
    stop: () => running.stop(),
  };
}

/** Expects start-up to fail; returns the error message. */
export async function startupError(yaml: string, files: Record<string, string>): Promise<string> {
  try {
    const gw = await startWithMacros(yaml, files);
    await gw.stop();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("expected start-up to fail");
}
