/**
 * JIT tier-up policy. The compiled binary starts with its tier-up thresholds scaled up (build.ts,
 * `--compile-jit-policy`): code that runs only while starting — module bodies, schema
 * construction, config parsing — then stays in the lower tiers instead of keeping the optimizing
 * compilers busy on two shared cores and paging their code in. Once serving, the normal policy
 * is restored so hot request paths optimize as usual. A no-op outside Bun.
 */

declare const Bun: { unsafe?: { setJITPolicy?: (scale: number) => void } } | undefined;

/** Sets the tier-up threshold scale (1 = the runtime's normal policy). */
export function setJitPolicy(scale: number): void {
  if (typeof Bun === "undefined") return;
  Bun.unsafe?.setJITPolicy?.(scale);
}
