/**
 * `profiles:` normalised, and the cross-checks that name their YAML paths: a profile naming a
 * server the config does not have, `execute: true` while `scripting.execute` is off, and a token
 * or OAuth claim value limited to a profile that does not exist. (A glob that matches no tool needs the catalog:
 * `mcp-gateway check` reports those.)
 */
import type { NormaliseProblem } from "./normalise.ts";
import type { RawConfig } from "./schema.ts";
import type { ProfileConfig } from "./types.ts";

/** The profiles of `raw`, in file order, with their problems pushed to `problems`. */
export function normaliseProfiles(
  raw: RawConfig,
  problems: NormaliseProblem[],
): ProfileConfig[] {
  const servers = new Set(Object.keys(raw.servers ?? {}));
  const execute = raw.scripting?.execute ?? true;
  const out: ProfileConfig[] = [];
  for (const [name, p] of Object.entries(raw.profiles ?? {})) {
    (p.servers ?? []).forEach((server, i) => {
      if (servers.has(server)) return;
      problems.push({
        path: ["profiles", name, "servers", i],
        message: `unknown server "${server}"${known("servers", servers)}`,
      });
    });
    if (p.execute === true && !execute) {
      problems.push({
        path: ["profiles", name, "execute"],
        message: "execute: true needs scripting.execute on (it is off)",
      });
    }
    out.push({
      name,
      description: p.description ?? "",
      tools: p.tools ?? [],
      servers: p.servers ?? [],
      macros: p.macros ?? [],
      exposure: p.exposure ?? raw.gateway?.exposure ?? "all",
      execute: p.execute ?? null,
    });
  }
  const names = new Set(out.map((p) => p.name));
  (raw.gateway?.auth?.tokens ?? []).forEach((t, i) => {
    (t.profiles ?? []).forEach((profile, j) => {
      if (names.has(profile)) return;
      problems.push({
        path: ["gateway", "auth", "tokens", i, "profiles", j],
        message: `unknown profile "${profile}"${known("profiles", names)}`,
      });
    });
  });
  const oauth = raw.gateway?.auth?.oauth?.profiles;
  const lists: [(string | number)[], readonly string[]][] = [
    ...Object.entries(oauth?.map ?? {}).map(([v, list]): [(string | number)[], string[]] => [
      ["map", v],
      list,
    ]),
    ...(oauth?.default ? [[["default"], oauth.default] as [string[], string[]]] : []),
  ];
  for (const [at, list] of lists) {
    list.forEach((profile, j) => {
      if (names.has(profile)) return;
      problems.push({
        path: ["gateway", "auth", "oauth", "profiles", ...at, j],
        message: `unknown profile "${profile}"${known("profiles", names)}`,
      });
    });
  }
  return out;
}

function known(what: string, names: ReadonlySet<string>): string {
  return names.size === 0 ? ` (no ${what} are configured)` : ` (${what}: ${[...names].join(", ")})`;
}
