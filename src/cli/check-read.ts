/**
 * The config as `check` reads it: as start would, but a refusal does not end the pass. Each
 * refused value is set aside — an unset `${VAR}` gets a stand-in, a value the schema or a later
 * rule refuses is taken out of the file — and the file is read again, so every rule is checked
 * once and every problem is listed together with its own path and line.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseDocument } from "yaml";
import {
  type ConfigProblem,
  type GatewayConfig,
  loadConfig,
  parseConfig,
  yamlLocator,
} from "../config/mod.ts";
import { isClientConfig, parseJsonc } from "../config/client/mod.ts";
import { GatewayError } from "../shared/errors.ts";

/** A config read for checking, with the problems set aside to read it. */
export interface CheckedRead {
  /** The config with every refused value set aside, or `null` when none could be read. */
  config: GatewayConfig | null;
  /** What was set aside, at the original file's paths and lines. */
  problems: ConfigProblem[];
}

/** Stands in for an unset variable so the other rules can still be checked in the same pass. */
const STAND_IN = "unset-variable-stand-in-0123456789abcdef";

/** Enough for a schema round, a normalise round and a required key taken out with its parent. */
const MAX_ROUNDS = 8;

/** Reads `file` for `check`; throws only what is not a config problem (or a YAML syntax error). */
export async function readForCheck(file: string): Promise<CheckedRead> {
  const path = resolve(file);
  const first = await attempt(() => loadConfig(path));
  if (!("problems" in first)) return { config: first.config, problems: [] };
  const text = readFileSync(path, "utf8");
  // A client config is converted before it is read: its paths are not the file's.
  const converted = path.endsWith(".json") && isClientConfig(parseJsonc(text, path));
  const where = yamlLocator(text);
  const env: Record<string, string | undefined> = { ...process.env };
  const doc = parseDocument(text, { uniqueKeys: true });
  const setAside: (string | number)[][] = [];
  const problems: ConfigProblem[] = [];
  let found = first.problems;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    let progress = false;
    for (const p of found) {
      const near = p.segments &&
        setAside.find((s) => isUnder(p.segments!, s) || isUnder(s, p.segments!));
      if (near && p.segments) {
        // A rule refused what holds a value set aside (a required key taken out): that is the
        // same problem again, and what holds it is taken out too.
        const holder = isUnder(near, p.segments) && near.length > p.segments.length
          ? p.segments
          : p.segments.slice(0, -1);
        if (!converted && holder.length > 0 && takeOut(doc, holder, setAside)) progress = true;
        continue;
      }
      if (covered(p, problems)) continue;
      problems.push(relocated(p, converted, where.lineOf));
      if (p.unsetVariable !== undefined) {
        if (env[p.unsetVariable] !== STAND_IN) progress = true;
        env[p.unsetVariable] = STAND_IN;
      } else if (!converted && p.segments && p.segments.length > 0) {
        if (takeOut(doc, p.segments, setAside)) progress = true;
      }
    }
    if (!progress) break;
    const next = await attempt(async () =>
      converted ? await loadConfig(path, { env }) : parseConfig(String(doc), { env, file: path })
    );
    if (!("problems" in next)) return { config: next.config, problems };
    found = next.problems;
  }
  return { config: null, problems };
}

async function attempt(
  read: () => Promise<GatewayConfig>,
): Promise<{ config: GatewayConfig } | { problems: ConfigProblem[] }> {
  try {
    return { config: await read() };
  } catch (err) {
    if (!(err instanceof GatewayError) || err.code !== "CONFIG_INVALID") throw err;
    const problems = (err.data?.problems ?? []) as ConfigProblem[];
    // A file that cannot be read or parsed as YAML has nothing to set aside.
    if (problems.length === 0 || problems.some((p) => p.path === "")) throw err;
    return { problems };
  }
}

/** Takes the value at `segments` out of the document; false when it was already out. */
function takeOut(
  doc: ReturnType<typeof parseDocument>,
  segments: (string | number)[],
  setAside: (string | number)[][],
): boolean {
  if (!doc.hasIn(segments)) return false;
  // An item taken out of a list would move the ones after it: it is emptied instead.
  if (typeof segments.at(-1) === "number") doc.setIn(segments, null);
  else doc.deleteIn(segments);
  setAside.push(segments);
  return true;
}

function isUnder(path: (string | number)[], prefix: (string | number)[]): boolean {
  return prefix.length <= path.length && prefix.every((k, i) => path[i] === k);
}

/** A problem listed already, or one a rule met only because of a stand-in for a variable. */
function covered(p: ConfigProblem, listed: ConfigProblem[]): boolean {
  if (listed.some((l) => l.path === p.path && l.message === p.message)) return true;
  return listed.some((l) =>
    l.unsetVariable !== undefined && (p.path === l.path || p.path.startsWith(`${l.path}.`))
  );
}

/** The problem at the original file's line (later rounds read an edited copy). */
function relocated(
  p: ConfigProblem,
  converted: boolean,
  lineOf: (path: (string | number)[]) => number | undefined,
): ConfigProblem {
  const { segments: _, line: __, ...rest } = p;
  const line = converted || !p.segments ? undefined : lineOf(p.segments);
  return {
    ...rest,
    ...(line === undefined ? {} : { line }),
    ...(p.segments ? { segments: p.segments } : {}),
  };
}
