/**
 * Environment files: `NAME=value` lines, as systemd's `EnvironmentFile=`, Compose's `env_file`
 * and a shell's `set -a; . FILE` read them. `import` writes the secrets it takes out of a
 * client's config into one (mode 0600), and `--env-file` reads one before the config, so its
 * `${VAR}`s expand. Values are written single-quoted, which all three read literally.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { GatewayError } from "../shared/errors.ts";

const LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/;

/** The variables of the env file `text` (`file` names it in errors). */
export function parseEnvFile(text: string, file: string): Map<string, string> {
  const out = new Map<string, string>();
  text.split(/\r?\n/).forEach((line, i) => {
    if (/^\s*(#|$)/.test(line)) return;
    const m = LINE.exec(line);
    if (!m) {
      throw new GatewayError("CONFIG_INVALID", `${file}:${i + 1}: expected NAME=value`);
    }
    out.set(m[1]!, unquote(m[2]!));
  });
  return out;
}

function unquote(raw: string): string {
  if (raw.length >= 2 && raw.startsWith("'") && raw.endsWith("'")) {
    return raw.slice(1, -1).replace(/'\\''/g, "'");
  }
  if (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')) {
    return raw.slice(1, -1).replace(/\\(["\\$`])/g, "$1").replace(/\\n/g, "\n");
  }
  return raw;
}

/** Reads `file` into `process.env`; a variable already set keeps its value. */
export function loadEnvFile(file: string): void {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new GatewayError("USAGE", `--env-file: cannot read ${file}: ${(err as Error).message}`);
  }
  for (const [name, value] of parseEnvFile(text, file)) process.env[name] ??= value;
}

/**
 * Sets `values` in the env file `file` (made with mode 0600; an existing one keeps its other
 * lines and is narrowed to 0600 too: it holds secrets).
 */
export function writeEnvFile(file: string, values: ReadonlyMap<string, string>): void {
  const kept = existsSync(file)
    ? readFileSync(file, "utf8").split("\n").filter((line) => {
      const m = LINE.exec(line);
      return line !== "" && !(m && values.has(m[1]!));
    })
    : [];
  const lines = [...values].map(([name, value]) => `${name}='${value.replace(/'/g, "'\\''")}'`);
  writeFileSync(file, [...kept, ...lines].join("\n") + "\n", { mode: 0o600 });
  chmodSync(file, 0o600);
}
