/**
 * Raw event streams for the scope tests: a legacy SSE session opened with plain fetch, a
 * streamable HTTP GET stream, reading until a stream ends, and a JSON-RPC batch POST whose
 * answers are read back whether they come as JSON or as an SSE stream.
 */
import { MCP_HEADERS } from "./_http.ts";

/** An open event stream and what it sent so far. */
export interface OpenStream {
  /** Everything read so far. */
  text: string;
  /** Resolves true when the stream ends within `ms`, false otherwise (it stays open). */
  ended(ms: number): Promise<boolean>;
  /** Stops reading and drops the connection. */
  cancel(): Promise<void>;
}

/**
 * Reads a streaming response as soon as it arrives, so its end is seen when it happens. Takes the
 * pending response: some runtimes' fetch resolves only once the first body bytes arrive.
 */
export function openStream(response: Promise<Response>): OpenStream {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let cancelled = false;
  const decoder = new TextDecoder();
  let resolveEnd!: () => void;
  const end = new Promise<void>((r) => (resolveEnd = r));
  const stream: OpenStream = {
    text: "",
    async ended(ms) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<false>((r) => (timer = setTimeout(() => r(false), ms)));
      const done = end.then(() => true as const);
      try {
        return await Promise.race([done, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    async cancel() {
      cancelled = true;
      await reader?.cancel().catch(() => {});
    },
  };
  void (async () => {
    try {
      const res = await response;
      if (res.status !== 200) throw new Error(`stream answered ${res.status}`);
      reader = res.body!.getReader();
      if (cancelled) await reader.cancel();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        stream.text += decoder.decode(value, { stream: true });
      }
    } catch { /* a dropped connection ends the stream too */ }
    resolveEnd();
  })();
  return stream;
}

/** Opens `GET /sse`; resolves once the endpoint event names the session's message URL. */
export async function openRawSse(
  base: string,
  headers: Record<string, string> = {},
): Promise<{ stream: OpenStream; messageUrl: string }> {
  const stream = openStream(
    fetch(`${base}/sse`, { headers: { accept: "text/event-stream", ...headers } }),
  );
  const end = Date.now() + 5000;
  while (Date.now() < end) {
    const m = /event: endpoint\ndata: (\S+)\n/.exec(stream.text);
    if (m) return { stream, messageUrl: new URL(m[1]!, base).href };
    await new Promise((r) => setTimeout(r, 20));
  }
  await stream.cancel();
  throw new Error("no endpoint event within 5 s");
}

/**
 * Opens the standalone GET stream of a streamable HTTP session (its answer may arrive only with
 * the first event; a refusal shows as the stream ending at once).
 */
export function openGetStream(
  base: string,
  sid: string,
  headers: Record<string, string> = {},
): OpenStream {
  return openStream(fetch(`${base}/mcp`, {
    headers: { accept: "text/event-stream", "mcp-session-id": sid, ...headers },
  }));
}

/** A JSON-RPC message as read back. */
export type Answer = { id?: unknown; result?: unknown; error?: { code: number; message: string } };

/** POSTs `messages` as one batch on a streamable HTTP session; resolves with the answers. */
export async function postBatch(
  base: string,
  sid: string,
  messages: unknown[],
  headers: Record<string, string> = {},
): Promise<Answer[]> {
  const res = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: { ...MCP_HEADERS, ...headers, "mcp-session-id": sid },
    body: JSON.stringify(messages),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`batch answered ${res.status}: ${text.slice(0, 200)}`);
  if ((res.headers.get("content-type") ?? "").includes("application/json")) {
    const body = JSON.parse(text);
    return Array.isArray(body) ? body : [body];
  }
  return text.split("\n").filter((l) => l.startsWith("data: ")).map((l) => JSON.parse(l.slice(6)));
}

/** POSTs one JSON-RPC message to a legacy SSE session's message URL; resolves with the status. */
export async function postMessage(
  messageUrl: string,
  message: unknown,
  headers: Record<string, string> = {},
): Promise<number> {
  const res = await fetch(messageUrl, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(message),
  });
  await res.body?.cancel();
  return res.status;
}
