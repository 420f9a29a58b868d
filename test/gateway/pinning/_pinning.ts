/** A gateway in front of the `pinnable` fixture, with a control file and a state folder. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { fixture, httpClient, startTestGateway, type TestGateway } from "../../_helpers/gateway.ts";

/** What the fixture declares (see test/fixtures/servers/pinnable.mjs). */
export interface Declaration {
  description?: string;
  rename?: boolean;
  promptDescription?: string;
  /** `search` declared twice: the changed copy first, the original second. */
  duplicate?: boolean;
  /** Extra tools and prompts of these names. */
  extra?: string[];
  /** The description of the resource `notes://readme`. */
  resourceDescription?: string;
  /** The URI template of the template `item` (default `items://{id}`). */
  templateUri?: string;
  /** `notes://readme` listed twice: the changed copy first. */
  duplicateResource?: boolean;
  /** Extra resources and templates of these URIs. */
  extraResources?: string[];
}

/** One pinning setup: the control file, the state folder and the config text. */
export interface PinSetup {
  dir: string;
  control: string;
  state: string;
  yaml: string;
  declare(d: Declaration): void;
}

/** A fresh control file and state folder; `extra` is appended to the tracker server entry. */
export function pinSetup(pin: string, extra = "", gatewayExtra = ""): PinSetup {
  const dir = mkdtempSync(join(tmpdir(), "mcpgw-pin-"));
  const control = join(dir, "declare.json");
  const state = join(dir, "state");
  writeFileSync(control, "{}");
  const yaml = `gateway:\n  state: ${JSON.stringify(state)}\n${gatewayExtra}` +
    `servers:\n  tracker:\n    command: node\n    args: [${
      JSON.stringify(fixture("pinnable.mjs"))
    }, ` +
    `${JSON.stringify(control)}]\n    pin: ${pin}\n${extra}`;
  return {
    dir,
    control,
    state,
    yaml,
    declare: (d) => writeFileSync(control, JSON.stringify(d)),
  };
}

/** A gateway on the setup's config and a client that counts tools/list_changed. */
export async function startPinned(
  setup: PinSetup,
): Promise<{ gw: TestGateway; client: Client; listChanged: () => number; file: string }> {
  const gw = await startTestGateway(setup.yaml);
  const client = await httpClient(gw.url);
  let n = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void n++);
  return { gw, client, listChanged: () => n, file: join(gw.dir, "gateway.yaml") };
}

/** Names of the tools the client lists. */
export async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((t) => t.name).filter((n) =>
    n.startsWith("tracker__")
  )
    .sort();
}

export { cliAsync } from "../../cli/_cli.ts";
