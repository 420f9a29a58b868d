/**
 * A 2025 session's link reaches its client only through the connection its door gives it: a
 * request goes out once the client declared it can answer and the session is open, a lean
 * session builds its connection only to ask its client something and is told when nothing is
 * left unanswered, and what the client declared is read from the link before the connection.
 * In process, with a recording connection standing in for the door's SDK server.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ChannelRequestOptions } from "../../../src/gateway/types.ts";
import {
  type ClientConnection,
  type LeanSession,
  SessionLink,
} from "../../../src/gateway/passthrough/mod.ts";
import { LOCAL_CALLER } from "../../../src/shared/caller.ts";
import type { ClientCapabilities, ProtocolRequest } from "../../../src/shared/protocol.ts";
import { GatewayError } from "../../../src/shared/errors.ts";

/** What a recording connection was sent. */
interface Sent {
  requests: { req: ProtocolRequest; options: ChannelRequestOptions }[];
  notes: { method: string; relatedRequestId?: string | number | undefined }[];
}

/** A connection that records what it is sent and answers each request with `answer`. */
function recording(
  declared: ClientCapabilities | undefined,
  answer: () => Promise<unknown> = () => Promise.resolve({}),
): ClientConnection & { sent: Sent } {
  const sent: Sent = { requests: [], notes: [] };
  return {
    sent,
    request: (req, options) => {
      sent.requests.push({ req, options });
      return answer();
    },
    notify: (method, _params, relatedRequestId) =>
      void sent.notes.push({ method, relatedRequestId }),
    capabilities: () => declared,
    clientInfo: () => declared && { name: "sdk", version: "1" },
  };
}

/** A lean session that builds `connection` when asked and records what it was told. */
function lean(link: SessionLink, connection: ClientConnection) {
  const told = { wakes: 0, settled: 0, onStream: [] as string[], routed: [] as string[] };
  const session: LeanSession = {
    wakeConnection: () => {
      told.wakes++;
      link.bind(connection);
      return connection;
    },
    routeRelated: (_id, message) => (told.routed.push(message.method), true),
    sendOnStream: (message) => void told.onStream.push(message.method),
    settled: () => void told.settled++,
  };
  link.leanAs(session);
  return told;
}

const OPTIONS = { server: "up", timeoutMs: 1000 };

/** The UNSUPPORTED refusal `fn` rejects with. */
async function refusal(fn: () => Promise<unknown>): Promise<GatewayError> {
  const err = await fn().then(() => undefined, (e) => e);
  assert.ok(err instanceof GatewayError, "rejected with a GatewayError");
  assert.equal(err.code, "UNSUPPORTED");
  return err;
}

describe("a session's link", () => {
  it("sends a request through its connection, with its options", async () => {
    const link = new SessionLink(() => LOCAL_CALLER);
    const connection = recording({ roots: {} }, () => Promise.resolve({ roots: [] }));
    link.bind(connection);
    const answer = await link.request("roots/list", undefined, { ...OPTIONS, relatedRequestId: 7 });
    assert.deepEqual(answer, { roots: [] });
    assert.equal(connection.sent.requests[0]?.req.method, "roots/list");
    assert.equal(connection.sent.requests[0]?.options.relatedRequestId, 7);
    assert.equal(link.asking, 0);
  });

  it("gives a URL elicitation without an id one of its own", async () => {
    const link = new SessionLink(() => LOCAL_CALLER);
    const connection = recording({ elicitation: { url: {} } });
    link.bind(connection);
    await link.request("elicitation/create", { mode: "url", url: "https://x.test" }, OPTIONS);
    const id = connection.sent.requests[0]?.req.params?.elicitationId;
    assert.equal(typeof id, "string");
  });

  it("refuses a request its client did not declare, without sending it", async () => {
    const link = new SessionLink(() => LOCAL_CALLER);
    const connection = recording({});
    link.bind(connection);
    const err = await refusal(() => link.request("sampling/createMessage", {}, OPTIONS));
    assert.match(err.message, /did not declare sampling, so it cannot answer sampling/);
    assert.equal(connection.sent.requests.length, 0);
  });

  it("refuses a request once its session closed, and builds nothing to ask", async () => {
    const link = new SessionLink(() => LOCAL_CALLER);
    link.introduce({ roots: {} }, { name: "c", version: "1" });
    const told = lean(link, recording({ roots: {} }));
    link.close();
    const err = await refusal(() => link.request("roots/list", undefined, OPTIONS));
    assert.equal(
      err.message,
      'the calling session has closed, so it cannot answer roots/list from server "up"',
    );
    assert.equal(told.wakes, 0);
  });

  it("lean, builds a connection only to ask its client, and says when nothing is unanswered", async () => {
    const link = new SessionLink(() => LOCAL_CALLER);
    link.introduce({ roots: {} }, { name: "c", version: "1" });
    let answer: (v: unknown) => void = () => {};
    const connection = recording(undefined, () => new Promise((r) => answer = r));
    const told = lean(link, connection);
    link.notify("notifications/message", { level: "info", data: 1 });
    link.notify("notifications/progress", { progress: 1 }, 3);
    assert.deepEqual(told.onStream, ["notifications/message"]);
    assert.deepEqual(told.routed, ["notifications/progress"]);
    assert.equal(told.wakes, 0, "notifications build no connection");

    const asked = link.request("roots/list", undefined, OPTIONS);
    assert.equal(told.wakes, 1);
    assert.equal(link.asking, 1);
    answer({ roots: [] });
    await asked;
    assert.equal(link.asking, 0);
    assert.equal(told.settled, 1);
  });

  it("reads what the client declared from itself first, then from its connection", () => {
    const link = new SessionLink(() => LOCAL_CALLER);
    assert.deepEqual(link.capabilities, {});
    link.bind(recording({ sampling: {} }));
    assert.deepEqual(link.capabilities, { sampling: {} });
    assert.deepEqual(link.clientInfo, { name: "sdk", version: "1" });
    link.introduce({ roots: {} }, { name: "own", version: "2" });
    assert.deepEqual(link.capabilities, { roots: {} });
    assert.deepEqual(link.clientInfo, { name: "own", version: "2" });
  });

  it("sends nothing once closed", () => {
    const link = new SessionLink(() => LOCAL_CALLER);
    const connection = recording({});
    link.bind(connection);
    link.close();
    link.notify("notifications/message", { level: "info", data: 1 });
    assert.equal(connection.sent.notes.length, 0);
  });
});
