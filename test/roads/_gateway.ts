/**
 * The gateway the road tests serve ({@link roadsYaml}), and what they read of it: a held
 * concurrency slot, the calls `/metrics` counted, a fresh trace to find spans by.
 */
import { after, before } from "node:test";
import { nodeServer, startTestGateway, type TestGateway, waitFor } from "../_helpers/gateway.ts";
import { bearer } from "../security/_http.ts";
import { NARROW_GLOBS, narrowOf, PROFILE, ROADS, wideOf } from "./_roads.ts";
import { openOn, outcomeOf, postOn, token } from "./_wire.ts";

/**
 * The gateway every road test serves: an echo server, a hanging one (to hold a concurrency
 * slot), two task servers (one unprefixed), the `relay` macro, `execute`, a profile, and for
 * each road a wide and a narrow token, beside an admin token `ops`. `extra` goes under `gateway`
 * (or `gateway.auth` when indented so); `rate` is `gateway.auth.rateLimit` (by default: only one
 * call in flight per token, and no rate to speak of).
 */
export function roadsYaml(
  extra = "",
  rate = "{ perMinute: 60000, burst: 10000, concurrency: 1 }",
): string {
  const tokens = ROADS.flatMap((_, i) => [
    `      - { name: ${wideOf(i)}, token: "${token(wideOf(i))}" }`,
    `      - { name: ${narrowOf(i)}, token: "${token(narrowOf(i))}", tools: ${
      JSON.stringify(NARROW_GLOBS)
    } }`,
  ]);
  const task = (extra: string) =>
    nodeServer("conformance.mjs", `${extra}tools: { allow: ["slow_compute"] }`);
  return `
gateway:
  auth:
    tokens:
${tokens.join("\n")}
      - { name: ops, token: "${token("ops")}", admin: true }
    rateLimit: ${rate}
${extra}
servers:
  echo: ${nodeServer("echo.mjs")}
  hang: ${nodeServer("hang.mjs")}
  tasks: ${task("prefix: false, ")}
  tasks2: ${task("")}
profiles:
  ${PROFILE}: { tools: ["echo__*"] }
scripting:
  execute: true
  tools:
    relay:
      description: Calls one tool and answers what it got
      params: { tool: { type: string } }
      lua: |
        local r = task.await(mcp.call(args.tool, { ms = 1, steps = 1 }))
        if r.is_error then error("inner call failed: " .. tostring(r.content)) end
        return "relayed"
`;
}

/** Serves {@link roadsYaml} before the enclosing suite, stops it after; answers the getter. */
export function serveRoads(extra = "", rate?: string): () => TestGateway {
  let gw: TestGateway | undefined;
  before(async () => {
    gw = await startTestGateway(roadsYaml(extra, rate));
  });
  after(async () => await gw?.stop());
  return () => gw!;
}

const opsSessions = new Map<string, Promise<string>>();

/** How many `hang` calls the hang server has received (asked as `ops` on one session). */
async function hangsStarted(url: string): Promise<number> {
  if (!opsSessions.has(url)) opsSessions.set(url, openOn(url, "/mcp", "ops"));
  const sid = await opsSessions.get(url)!;
  const msg = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "hang__started" } };
  const { messages } = await postOn(url, "/mcp", "ops", sid, msg);
  return (JSON.parse(outcomeOf(messages, 1).message) as unknown[]).length;
}

/**
 * Holds the one concurrency slot of `who` with a `hang` call that never answers, and resolves
 * once the hang server has it (so the slot is taken: no sleep decides it). The function it
 * answers drops the call.
 */
export async function holdSlot(url: string, who: string): Promise<() => Promise<void>> {
  const before = await hangsStarted(url);
  const sid = await openOn(url, "/mcp", who);
  const abort = new AbortController();
  const msg = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "hang__hang" } };
  const held = postOn(url, "/mcp", who, sid, msg, abort.signal).catch(() => undefined);
  await waitFor(async () => (await hangsStarted(url)) > before, 30_000, `${who}'s hang call`);
  return async () => {
    abort.abort();
    await held;
  };
}

/** Finished calls of `server` counted with `outcome` on `/metrics` (every tool summed). */
export async function countedCalls(url: string, server: string, outcome = "ok"): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: bearer(token("ops")) })).text();
  const prefix = `mcp_gateway_tool_calls_total{server="${server}",`;
  return text.split("\n")
    .filter((l) => l.startsWith(prefix) && l.includes(`outcome="${outcome}"`))
    .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
}

/** A fresh W3C traceparent: its trace id names the spans of one call. */
export function newTrace(): { trace: string; traceparent: string } {
  const trace = crypto.randomUUID().replaceAll("-", "");
  return { trace, traceparent: `00-${trace}-${trace.slice(0, 16)}-01` };
}
