/**
 * `mcp-gateway approve SERVER[/USER] [TOOL...]`: accept the definitions SERVER declares now, as
 * the serving gateway recorded them in the state folder (`/USER`: to that user's connection of a
 * per-user server, by the key the status page shows). The command writes the server's pins file
 * and nothing else; a running gateway watches that folder and applies the pins at once (held
 * tools come back, clients get `list_changed`). Whoever may write the state folder may approve.
 */
import { approvePins, type PinChange } from "../gateway/pinning/mod.ts";
import { readConfig } from "./boot.ts";

/**
 * Approves and prints what changed; exit 0 (nothing to approve is not an error), 1 when a name
 * the server declares more than once was left unapproved.
 */
export function approveCommand(configFile: string, target: string, names: string[]): number {
  const config = readConfig(configFile);
  const [server = "", user] = target.split("/", 2);
  const separator = config.gateway.separator;
  const approval = approvePins(config.gateway.state, server, names, { separator, user });
  const lines = approval.approved.map((c) => `  ${c.kind} ${c.name}: ${describe(c)}`);
  for (const r of approval.dropped) {
    lines.push(`  ${r.kind} ${r.name}: no longer declared, pin dropped`);
  }
  if (lines.length === 0) {
    process.stdout.write(`${target}: nothing to approve, its definitions match its pins\n`);
  } else {
    process.stdout.write(`${target}: approved\n${lines.join("\n")}\n`);
  }
  if (approval.refused.length === 0) return 0;
  const refused = approval.refused.map((c) =>
    `  ${c.kind} ${c.name}: declared ${c.copies} times, not approved (a pin holds one definition)`
  );
  process.stderr.write(`${target}: held until declared once\n${refused.join("\n")}\n`);
  return 1;
}

function describe(c: PinChange): string {
  if (c.status === "new") return "new";
  return c.diff.map((d) => `${d.path}: ${short(d.before)} → ${short(d.after)}`).join("; ");
}

function short(v: unknown): string {
  if (v === undefined) return "(none)";
  const text = JSON.stringify(v);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
