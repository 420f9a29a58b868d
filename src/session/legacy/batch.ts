/**
 * The JSON-RPC batch cap. A batch is parsed whole before any of its messages runs, and every
 * message then holds a handler, a response slot and its answer until the last one is done: a
 * body well under the size limit can carry tens of thousands of them. So a batch over
 * `gateway.limits.batch` messages is refused whole, with one error, before any item runs.
 */
/** The answer refusing `body` when it is a batch over `max` messages; `null` otherwise. */
export function batchRefusal(body: unknown, max: number): Response | null {
  if (!Array.isArray(body) || body.length <= max) return null;
  const message = `Invalid Request: a batch of ${body.length} messages is over the limit of ` +
    `${max} (gateway.limits.batch); send fewer messages per request`;
  return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32600, message } }, {
    status: 413,
  });
}
