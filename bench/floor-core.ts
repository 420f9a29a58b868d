/**
 * The floor in front of the gateway's core: `bun bench/floor-core.ts --listen 127.0.0.1:PORT`
 * answers HTTP exactly as `./floor.ts` does (`Bun.serve`, `initialize` and `server/discover`
 * answered itself, 202 for notifications, no auth, no security chain, no front door, no
 * sessions beyond a set of ids), but a `tools/call` goes through the gateway's own core —
 * `Gateway.callTool` with its gate, call journal, routing, passthrough and the upstream leg to
 * one stdio bench-echo child — and is answered with the core's raw result text. Set beside the
 * floor and the gateway in one run, it splits the gateway's cost over the floor in two: what
 * the core and the upstream leg add (this ÷ the floor), and what the door adds (the gateway ÷
 * this): the HTTP front door, the security chain, the router, the session and the era's fast
 * path.
 *
 * It prints `{"port":N}` on stdout once listening (`./floor-http.ts`).
 */
import { type Caller, enterCall } from "../src/gateway/mod.ts";
import { TokenCallLimits } from "../src/http/security/call-limits.ts";
import { CallJournal } from "../src/ops/call-journal.ts";
import { resultAnswer } from "../src/session/answers.ts";
import { MODERN_STAMP } from "../src/session/modern/fast-call.ts";
import { createLogger } from "../src/shared/log.ts";
import { bootBenchCore } from "./bench-core.ts";
import { jsonAnswer, serveFloor } from "./floor-http.ts";

// The gateway's core as `serve` builds it, the in-process call gate and the call journal
// observing every call.
const gateway = await bootBenchCore();
gateway.calls.setGate(
  new TokenCallLimits(() => gateway.config.gateway.rateLimit, createLogger("security")),
);
const journal = new CallJournal(createLogger("calls"));
gateway.calls.observeCalls((call) => journal.record(call));
process.on("SIGTERM", () => {
  void gateway.stop().finally(() => process.exit(0));
});

/** The anonymous caller (no auth configured, no session, every tool). */
const CALLER: Caller = { sessionId: null, tokenName: null, toolGlobs: null, profile: null };
const JSON_HEADERS = new Headers({ "content-type": "application/json" });

serveFloor("floor-core", async (message, sid) => {
  // Only calls reach here (the bench sends nothing else). Their `_meta` is not forwarded: the
  // bench's calls carry none but a 2026-07-28 request's envelope.
  const id = message.id!;
  const params = message.params as { name: string; arguments?: Record<string, unknown> };
  const context = enterCall(CALLER, { requestId: id });
  try {
    const result = await gateway.callTool(params.name, params.arguments, context);
    const stamp = sid === null ? MODERN_STAMP : undefined;
    return new Response(resultAnswer(id, result, stamp), { headers: JSON_HEADERS });
  } catch (err) {
    return jsonAnswer({
      jsonrpc: "2.0",
      id,
      error: { code: -32603, message: String(err) },
    });
  }
});
