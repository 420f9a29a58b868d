/**
 * Load clients for the cluster test: SDK clients of both protocol eras that call `echo__echo`
 * in a loop until a deadline, check every answer, and count what happened to each call. A
 * 2025-era client whose session is answered 404 starts a new one through the balancer.
 */
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { textOf } from "../_helpers/gateway.ts";

/** Longest a load client waits for one call. */
export const CALL_TIMEOUT_MS = 5_000;

/** What one load client saw. */
export interface LoadStats {
  name: string;
  attempts: number;
  ok: number;
  wrong: number;
  failed: number;
  failedAt: number[];
  sessionLost: number;
  reinitialised: number;
  longestMs: number;
  errors: string[];
}

function newStats(name: string): LoadStats {
  return {
    name,
    attempts: 0,
    ok: 0,
    wrong: 0,
    failed: 0,
    failedAt: [],
    sessionLost: 0,
    reinitialised: 0,
    longestMs: 0,
    errors: [],
  };
}

async function callLoop(
  s: LoadStats,
  end: number,
  call: (text: string) => Promise<unknown>,
  onError: (err: unknown) => Promise<boolean>,
): Promise<LoadStats> {
  for (let n = 0; Date.now() < end && n < 10_000; n++) {
    const text = `${s.name}-${n}`;
    const t0 = Date.now();
    s.attempts++;
    try {
      const r = await call(text);
      if (textOf(r) === JSON.stringify({ text })) s.ok++;
      else s.wrong++;
    } catch (err) {
      if (!await onError(err)) {
        s.failed++;
        s.failedAt.push(t0);
        s.errors.push(String((err as Error).message).slice(0, 120));
      }
    }
    s.longestMs = Math.max(s.longestMs, Date.now() - t0);
  }
  return s;
}

export async function modernLoad(
  url: string,
  i: number,
  end: number,
  headers: Record<string, string>,
): Promise<LoadStats> {
  const client = new ModernClient({ name: `modern-${i}`, version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await client.connect(
    new ModernTransport(new URL(`${url}/mcp`), { requestInit: { headers } }),
  );
  try {
    return await callLoop(
      newStats(`modern-${i}`),
      end,
      (text) =>
        client.callTool({ name: "echo__echo", arguments: { text } }, {
          timeout: CALL_TIMEOUT_MS,
        }),
      () => Promise.resolve(false),
    );
  } finally {
    await client.close().catch(() => {});
  }
}

async function legacyConnect(
  url: string,
  i: number,
  headers: Record<string, string>,
): Promise<Client> {
  const client = new Client({ name: `legacy-${i}`, version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers },
    }),
  );
  return client;
}

export async function legacyLoad(
  url: string,
  i: number,
  end: number,
  headers: Record<string, string>,
): Promise<LoadStats> {
  let client = await legacyConnect(url, i, headers);
  const s = newStats(`legacy-${i}`);
  try {
    return await callLoop(
      s,
      end,
      (text) =>
        client.callTool({ name: "echo__echo", arguments: { text } }, undefined, {
          timeout: CALL_TIMEOUT_MS,
        }),
      async (err) => {
        // The session lived on the killed instance: the balancer sent it elsewhere, which
        // does not know it and answers 404; start a new session through the balancer.
        if ((err as { code?: unknown }).code !== 404) return false;
        s.sessionLost++;
        await client.close().catch(() => {});
        client = await legacyConnect(url, i, headers);
        s.reinitialised++;
        return true;
      },
    );
  } finally {
    await client.close().catch(() => {});
  }
}
