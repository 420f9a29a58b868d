/**
 * Per-server `roots`, `isolation`, `maxSessions`, `maxSessionsPerToken` and `spare`: who may tell an upstream which folders it
 * serves. A shared process serves every session, so it may only ever see roots the operator
 * wrote down; a client's own roots need a process of that session's own (`isolation: session`).
 */
import { isAbsolute, resolve } from "node:path";
import type { RawServer } from "./schema.ts";
import type { RootConfig, ServerConfig } from "./types.ts";

/** A cross-field problem, located by its YAML path. */
interface Problem {
  path: (string | number)[];
  message: string;
}

/** Session processes per server unless `maxSessions` says otherwise. */
export const DEFAULT_MAX_SESSIONS = 16;

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]+:/;

/** Normalises these keys of one server, reporting misuse at its YAML path. */
export function isolationOf(
  name: string,
  s: RawServer,
  dir: string,
  problems: Problem[],
): Pick<
  ServerConfig,
  "roots" | "isolation" | "maxSessions" | "maxSessionsPerToken" | "spare"
> {
  const path = ["servers", name];
  const isolation = s.isolation ?? "shared";
  if (isolation === "session" && s.command === undefined) {
    problems.push({
      path: [...path, "isolation"],
      message: "isolation: session applies to command (stdio) servers only",
    });
  }
  for (const key of ["maxSessions", "maxSessionsPerToken", "spare"] as const) {
    if (s[key] !== undefined && isolation !== "session") {
      problems.push({
        path: [...path, key],
        message: `${key} applies with isolation: session only`,
      });
    }
  }
  let roots: ServerConfig["roots"] = null;
  if (s.roots === "client") {
    if (isolation !== "session") {
      problems.push({
        path: [...path, "roots"],
        message: "roots: client needs isolation: session (a shared process would get one " +
          "client's roots on behalf of every session)",
      });
    }
    roots = "client";
  } else if (s.roots !== undefined) {
    roots = s.roots.map((r, i) => {
      const entry = typeof r === "string" ? { uri: r } : r;
      const uri = toFileUri(entry.uri, dir);
      if (uri === undefined) {
        problems.push({
          path: [...path, "roots", i],
          message: `expected a file:// URI or a path, got "${entry.uri}"`,
        });
      }
      const root: RootConfig = { uri: uri ?? entry.uri };
      return entry.name === undefined ? root : { ...root, name: entry.name };
    });
  }
  const maxSessions = s.maxSessions ?? DEFAULT_MAX_SESSIONS;
  // One token's share, as for the session table: a quarter unless said otherwise.
  const perToken = s.maxSessionsPerToken ?? Math.max(1, Math.floor(maxSessions / 4));
  return {
    roots,
    isolation,
    maxSessions,
    maxSessionsPerToken: Math.min(maxSessions, perToken),
    // One spare unless said otherwise: it spares each new session the process start.
    spare: isolation === "session" ? s.spare ?? 1 : 0,
  };
}

/** A `file://` URI as written, or a path (relative to the config folder) turned into one. */
function toFileUri(value: string, dir: string): string | undefined {
  if (SCHEME.test(value)) {
    try {
      const url = new URL(value);
      return url.protocol === "file:" ? url.href : undefined;
    } catch {
      return undefined;
    }
  }
  return nodeUrl().pathToFileURL(isAbsolute(value) ? value : resolve(dir, value)).href;
}

/**
 * `node:url`, fetched when a root is first written as a path: imported at the top, it would be
 * evaluated in every compiled gateway at start (~0.5–1 MiB of RSS) for configs that mostly
 * have no roots.
 */
function nodeUrl(): typeof import("node:url") {
  const get = (process as unknown as { getBuiltinModule?(id: string): typeof import("node:url") })
    .getBuiltinModule;
  if (!get) throw new Error("roots given as paths need Bun, Deno 2 or Node 22.3+");
  return get.call(process, "node:url");
}
