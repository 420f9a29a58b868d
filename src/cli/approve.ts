/**
 * `mcp-gateway approve SERVER [TOOL...]`: accept the definitions SERVER declares now, as the
 * serving gateway recorded them in the state folder. The command writes the server's pins file
 * and nothing else; a running gateway watches that folder and applies the pins at once (held
 * tools come back, clients get `list_changed`). Whoever may write the state folder may approve.
 */
import { approvePins, type PinChange } from "../gateway/pinning/mod.ts";
import { readConfig } from "./boot.ts";

/** Approves and prints what changed; exit 0 (nothing to approve is not an error). */
export function approveCommand(configFile: string, server: string, names: string[]): number {
  const config = readConfig(configFile);
  const approval = approvePins(config.gateway.state, server, names, config.gateway.separator);
  const lines = approval.approved.flatMap((c) => describeChange(c));
  for (const r of approval.dropped) {
    lines.push(`  ${r.kind} ${r.name}: no longer declared, pin dropped`);
  }
  if (lines.length === 0) {
    process.stdout.write(`${server}: nothing to approve, its definitions match its pins\n`);
  } else {
    process.stdout.write(`${server}: approved\n${lines.join("\n")}\n`);
  }
  return 0;
}

/**
 * The lines telling what approving `c` accepts: every changed field with its whole old and new
 * value — on one line when both are short, else each on its own lines, never cut (what is
 * approved is what is read).
 */
export function describeChange(c: PinChange): string[] {
  const head = `  ${c.kind} ${c.name}:`;
  if (c.status === "new") return [`${head} new`];
  const inline = c.diff.map((d) => [shown(d.before), shown(d.after)] as const);
  if (inline.every(([a, b]) => a.length <= 80 && b.length <= 80 && !/\n/.test(a + b))) {
    return [
      `${head} ${
        c.diff.map((d, i) => `${d.path}: ${inline[i]![0]} → ${inline[i]![1]}`).join("; ")
      }`,
    ];
  }
  const lines = [head];
  c.diff.forEach((d, i) => {
    lines.push(`    ${d.path}:`);
    for (const [sign, text] of [["-", inline[i]![0]], ["+", inline[i]![1]]] as const) {
      for (const line of text.split("\n")) lines.push(`      ${sign} ${line}`);
    }
  });
  return lines;
}

/** A value as JSON, in full (objects spread over lines). */
function shown(v: unknown): string {
  if (v === undefined) return "(none)";
  return typeof v === "object" && v !== null ? JSON.stringify(v, null, 2) : JSON.stringify(v);
}
