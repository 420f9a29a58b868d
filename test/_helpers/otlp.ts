/** A real OTLP/HTTP traces receiver on loopback, for the tracing tests. */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";

/** One span as the receiver decoded it. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  service: string;
}

/** An OTLP/HTTP traces receiver on loopback that keeps every span it is sent. */
export async function startReceiver(): Promise<
  { url: string; spans: ReceivedSpan[]; close(): void }
> {
  const spans: ReceivedSpan[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      assert.equal(req.url, "/v1/traces");
      assert.match(String(req.headers["content-type"]), /json/);
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      for (const rs of body.resourceSpans ?? []) {
        const service = attrs(rs.resource?.attributes)["service.name"] as string;
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? "",
              name: s.name,
              kind: s.kind,
              attributes: attrs(s.attributes),
              service,
            });
          }
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}/v1/traces`, spans, close: () => server.close() };
}

function attrs(list: { key: string; value: Record<string, unknown> }[] = []) {
  const out: Record<string, unknown> = {};
  for (const a of list) out[a.key] = Object.values(a.value)[0];
  return out;
}
