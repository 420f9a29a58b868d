/**
 * The environment a stdio server starts with. A child does not inherit the gateway's whole
 * environment: a tool that prints its environment would hand the gateway's own secrets to any
 * token allowed to call it. It gets a minimal base, the names the operator opts into with
 * `inheritEnv`, and what `env:` sets; variables that hold or name a secret of the gateway's
 * (`config/secret-env.ts`) are never inherited, whatever `inheritEnv` says.
 */
import { BASE_ENV, type StdioServerConfig } from "../config/mod.ts";

export { BASE_ENV };

/** Builds the child's environment from the gateway's (`source`) and the server's config. */
export function childEnv(
  server: Pick<StdioServerConfig, "env" | "inheritEnv" | "withheldEnv">,
  source: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const withheld = new Set(server.withheldEnv);
  const names = server.inheritEnv === true
    ? Object.keys(source)
    : [...BASE_ENV, ...(server.inheritEnv === false ? [] : server.inheritEnv)];
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = source[name];
    if (value !== undefined && !withheld.has(name)) out[name] = value;
  }
  // What the operator wrote under `env:` is given as written.
  return Object.assign(out, server.env);
}
