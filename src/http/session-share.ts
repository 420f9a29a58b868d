/**
 * One token's share of the session table. Without it, one token could open
 * `gateway.limits.sessions` sessions and every other client would get `503`; with it, a token
 * holds at most `gateway.limits.sessionsPerToken` (default a quarter of the table), and other
 * tokens still get in. Anonymous sessions (no auth) only meet the table's own limit.
 */

/** The answer refusing a new session to `tokenName`, or `null` when it is within its share. */
export function sessionShareRefusal(
  open: Iterable<{ readonly tokenName: string | null }>,
  tokenName: string | null,
  perToken: number,
): Response | null {
  if (tokenName === null) return null;
  let held = 0;
  for (const s of open) if (s.tokenName === tokenName) held++;
  if (held < perToken) return null;
  const message = `token "${tokenName}" holds ${held} sessions, its share of the session ` +
    `table (gateway.limits.sessionsPerToken = ${perToken}); close one before opening another`;
  return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32000, message } }, {
    status: 429,
  });
}
