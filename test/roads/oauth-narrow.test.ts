/**
 * OAuth, where a narrower token may present itself on a session a wider one opened (two access
 * tokens of one subject, as from a real authorization server): every form of call it sends on
 * that session is judged by its own scopes — a plain call, one with a progress token, a batch
 * item, a task-augmented call, an `execute` script's call, a macro's inner call, a call by
 * upstream name and one on a profile's endpoint — and so is every road it takes on its own.
 * The wider token, presenting itself again on the same session, still reaches all of it.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { startProvider, type TestProvider } from "../security/_oidc.ts";
import { NARROW_GLOBS, PROFILE, ROADS } from "./_roads.ts";
import { newTrace, roadsYaml } from "./_gateway.ts";
import { openOn, type Outcome, outcomeOf, postOn } from "./_wire.ts";

const AUDIENCE = "https://mcp.example.test/mcp";
const ALICE = { id: "alice", secret: "alice-secret-0123456789abcdef", scope: "narrow all" };
const WHO = "oauth:client:alice";
const SCRIPT = `local r = tools.call("echo__meta", {})
  if r.ok then return "called" end
  return r.error.message`;

/** One form of call on a 2025 session: the message, and how its refusal reads. */
interface Form {
  readonly name: string;
  readonly path?: string;
  readonly params: Record<string, unknown>;
  readonly refusal: RegExp;
  /** True for a script: it ends well either way and answers what its own call got. */
  readonly script?: boolean;
}

const forbidden = (tool: string) => new RegExp(`tool "${tool}" is not allowed for token "${WHO}"`);
const FORMS: readonly Form[] = [
  { name: "plain call", params: { name: "echo__meta" }, refusal: forbidden("echo__meta") },
  {
    name: "call with a progress token",
    params: { name: "echo__meta", _meta: { progressToken: "p" } },
    refusal: forbidden("echo__meta"),
  },
  {
    name: "task-augmented call",
    params: { name: "tasks2__slow_compute", arguments: { seconds: 0 }, task: { ttl: 60_000 } },
    refusal: forbidden("tasks2__slow_compute"),
  },
  {
    name: "execute script's call",
    params: { name: "execute", arguments: { code: SCRIPT } },
    refusal: forbidden("echo__meta"),
    script: true,
  },
  {
    name: "macro's inner call",
    params: { name: "relay", arguments: { tool: "echo__meta" } },
    refusal: forbidden("echo__meta"),
  },
  { name: "call by upstream name", params: { name: "meta" }, refusal: /unknown tool "meta"/ },
  {
    name: "call on a profile's endpoint",
    path: `/mcp/${PROFILE}`,
    params: { name: "echo__meta" },
    refusal: forbidden("echo__meta"),
  },
];

describe("OAuth: a narrower token is held to its own scopes on every road", () => {
  let provider: TestProvider;
  let gw: TestGateway;
  let wide: string;
  let narrow: string;
  before(async () => {
    provider = await startProvider([ALICE], ALICE.scope);
    gw = await startTestGateway(roadsYaml(`    oauth:
      issuer: ${provider.issuer}
      audience: ${AUDIENCE}
      scopes:
        narrow: ${JSON.stringify(NARROW_GLOBS)}
        all: ["*"]
      jwksCooldown: 0s`));
    wide = await provider.token(ALICE, AUDIENCE, "all");
    narrow = await provider.token(ALICE, AUDIENCE, "narrow");
  });
  after(async () => {
    await gw?.stop();
    await provider?.stop();
  });

  /** Sends `form` on session `sid` as `bearer`, singly and as a batch item. */
  async function send(form: Form, sid: string, bearer: string): Promise<Outcome[]> {
    const message = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/call" });
    const path = form.path ?? "/mcp";
    const single = await postOn(gw.url, path, bearer, sid, { ...message(1), params: form.params });
    const batch = await postOn(gw.url, path, bearer, sid, [{ ...message(2), params: form.params }]);
    assert.equal(single.status, 200);
    assert.equal(batch.status, 200);
    return [outcomeOf(single.messages, 1), outcomeOf(batch.messages, 2)].map((o) => {
      if (!form.script || !o.ok) return o;
      const { result } = JSON.parse(o.message) as { result: string };
      return { ok: result === "called", message: result };
    });
  }

  FORMS.forEach((form) => {
    it(`on the wider token's session: ${form.name}, singly and in a batch`, async () => {
      const sid = await openOn(gw.url, form.path ?? "/mcp", wide);
      for (const refused of await send(form, sid, narrow)) {
        assert.equal(refused.ok, false, `the narrow token got through: ${refused.message}`);
        assert.match(refused.message, form.refusal);
      }
      for (const allowed of await send(form, sid, wide)) {
        assert.equal(allowed.ok, true, allowed.message);
      }
    });
  });

  ROADS.forEach((road) => {
    it(`on its own: ${road.name}`, { timeout: 60_000 }, async () => {
      const own = await road.call(gw.url, narrow, road.tool, newTrace().traceparent);
      assert.equal(own.ok, true, own.message);
      const refused = await road.call(gw.url, narrow, road.forbidden, newTrace().traceparent);
      assert.equal(refused.ok, false, `the narrow token reached ${road.forbidden}`);
      assert.match(
        refused.message,
        road.tool === "slow" ? /unknown tool "meta"/ : forbidden(road.forbidden),
      );
    });
  });
});
