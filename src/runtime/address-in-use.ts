/** The one error both native servers turn "address already in use" into. */

/**
 * The listen address is held by another socket. Binding is exclusive on every runtime: two
 * gateways on one port would split clients between them without either noticing.
 */
export class AddressInUseError extends Error {
  constructor(readonly hostname: string, readonly port: number, options?: { cause?: unknown }) {
    super(
      `${hostname.includes(":") ? `[${hostname}]` : hostname}:${port} is already in use`,
      options,
    );
    this.name = "AddressInUseError";
  }
}

/** True for the error a runtime throws when a listen address is taken (Bun and Deno spell it apart). */
export function isAddressInUse(err: unknown): boolean {
  const e = err as { code?: unknown; name?: unknown } | null;
  return e?.code === "EADDRINUSE" || e?.name === "AddrInUse";
}
