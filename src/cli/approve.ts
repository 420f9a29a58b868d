/**
 * `mcp-gateway approve SERVER[/USER] [NAME...]`: accept the definitions SERVER declares now (its
 * tools, prompts, resources and resource templates; NAME: a tool or prompt name or a URI), as
 * the serving gateway recorded them in the state folder (`/USER`: to that user's connection of a
 * per-user server, by the key the status page shows). The command writes the server's pins file
 * and nothing else; a running gateway watches that folder and applies the pins at once (held
 * tools come back, clients get `list_changed`). Whoever may write the state folder may approve.
 */
import { approvePins, kindLabel, type PinChange } from "../gateway/pinning/mod.ts";
import { readConfig } from "./boot.ts";

/**
 * Approves and prints what changed; exit 0 (nothing to approve is not an error), 1 when a name
 * the server declares more than once was left unapproved.
 */
export async function approveCommand(
  configFile: string,
  target: string,
  names: string[],
): Promise<number> {
  const config = await readConfig(configFile);
  const [server = "", user] = target.split("/", 2);
  const separator = config.gateway.separator;
  const approval = approvePins(config.gateway.state, server, names, { separator, user });
  const lines = approval.approved.flatMap((c) => describeChange(c));
  for (const r of approval.dropped) {
    lines.push(`  ${kindLabel(r.kind)} ${r.name}: no longer declared, pin dropped`);
  }
  if (lines.length === 0) {
    process.stdout.write(`${target}: nothing to approve, its definitions match its pins\n`);
  } else {
    process.stdout.write(`${target}: approved\n${lines.join("\n")}\n`);
  }
  if (approval.refused.length === 0) return 0;
  const refused = approval.refused.map((c) =>
    `  ${
      kindLabel(c.kind)
    } ${c.name}: declared ${c.copies} times, not approved (a pin holds one definition)`
  );
  process.stderr.write(`${target}: held until declared once\n${refused.join("\n")}\n`);
  return 1;
}

/**
 * The lines telling what approving `c` accepts: every changed field with its whole old and new
 * value — on one line when both are short, else each on its own lines, never cut (what is
 * approved is what is read).
 */
export function describeChange(c: PinChange): string[] {
  const head = `  ${kindLabel(c.kind)} ${c.name}:`;
  // A new definition is read whole: what it says is what is approved.
  if (c.status === "new") {
    const whole = c.diff.flatMap((d) => shown(d.after).split("\n"));
    return [`${head} new`, ...whole.map((line) => `      + ${line}`)];
  }
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
