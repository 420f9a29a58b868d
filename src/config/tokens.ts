/**
 * Cross-checks of `gateway.auth.tokens`: two entries with the same value or the same name would
 * make "first match wins" decide who a client is, so both are config errors naming the two YAML
 * paths. Values are compared, never echoed.
 */
import type { NormaliseProblem } from "./normalise.ts";

/** Problems for duplicate token names and values, each naming the earlier entry's path. */
export function duplicateTokenProblems(
  tokens: readonly { readonly name: string; readonly token: string }[],
): NormaliseProblem[] {
  const problems: NormaliseProblem[] = [];
  const names = new Map<string, number>();
  const values = new Map<string, number>();
  tokens.forEach((t, i) => {
    const sameName = names.get(t.name);
    if (sameName === undefined) names.set(t.name, i);
    else {
      problems.push({
        path: ["gateway", "auth", "tokens", i, "name"],
        message: `duplicate token name: gateway.auth.tokens[${sameName}].name has the same name`,
      });
    }
    const sameValue = values.get(t.token);
    if (sameValue === undefined) values.set(t.token, i);
    else {
      problems.push({
        path: ["gateway", "auth", "tokens", i, "token"],
        message:
          `duplicate token value: gateway.auth.tokens[${sameValue}].token has the same value`,
      });
    }
  });
  return problems;
}
