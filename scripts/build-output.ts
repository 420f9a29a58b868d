/**
 * Where `bun build.ts` writes: `dist/mcp-gateway` for this machine, and
 * `dist/mcp-gateway-<target>` for a cross build (`--target=bun-linux-arm64` →
 * `dist/mcp-gateway-linux-arm64`), so a foreign-architecture binary never replaces the one the
 * tests and `npm start` users run.
 */

/** The build's output path (relative to the repository) and its Bun target, if any. */
export function buildOutput(args: readonly string[]): { out: string; target: string | null } {
  let target: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.startsWith("--target=")) target = a.slice("--target=".length);
    else if (a === "--target" && args[i + 1]) target = args[i + 1]!;
  }
  if (!target || target === "bun") return { out: "dist/mcp-gateway", target };
  const name = target.replace(/^bun-/, "").replace(/[^A-Za-z0-9._-]/g, "_");
  return { out: `dist/mcp-gateway-${name}`, target };
}
