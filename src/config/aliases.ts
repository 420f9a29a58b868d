/**
 * @module YAML anchors and aliases, bounded. An alias repeats a value; aliases of aliases
 * multiply it ("billion laughs": nine lines that expand to 10⁹ strings). The `yaml` library
 * refuses past `maxAliasCount`, with a bare `ReferenceError`; here that becomes a config
 * problem naming the YAML path and line of the alias that expands the most.
 */
import {
  type Alias,
  type Document,
  isAlias,
  isCollection,
  isPair,
  isScalar,
  isSeq,
  visit,
} from "yaml";

/** What refused aliases are: the YAML path of the worst one (empty when none is found). */
export interface AliasProblem {
  path: (string | number)[];
  message: string;
}

/**
 * Alias resolutions a config may make, counted as the library counts them (uses of an anchor
 * × the aliases inside it): a block of defaults merged into hundreds of servers stays far
 * below, and a bomb passes it within its first few lines.
 */
export const MAX_ALIAS_COUNT = 1000;

/** The document as plain data, or the problem its aliases (or an unresolved one) make. */
export function plainData(doc: Document): { data: unknown } | { problem: AliasProblem } {
  const aliases = aliasesOf(doc);
  // An alias inside the node it names is a cycle: the data would be infinite.
  const cycle = aliases.find((a) => a.ancestors.includes(a.target));
  if (cycle) {
    return {
      problem: {
        path: cycle.path,
        message: `the alias *${cycle.alias.source} is inside its own anchor`,
      },
    };
  }
  try {
    return { data: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) ?? {} };
  } catch (err) {
    // The library throws ReferenceError for every alias it will not resolve, nothing else.
    if (!(err instanceof ReferenceError)) throw err;
    return { problem: aliasProblem(aliases, err.message) };
  }
}

interface AliasUse {
  alias: Alias;
  /** The node of the nearest anchor of that name before the alias (as the library resolves). */
  target: unknown;
  ancestors: readonly unknown[];
  path: (string | number)[];
}

/** Every alias in document order with what it names; one pass, whatever the alias count. */
function aliasesOf(doc: Document): AliasUse[] {
  const anchors = new Map<string, unknown>();
  const uses: AliasUse[] = [];
  visit(doc, {
    Node(_key, node, ancestors) {
      if (isAlias(node)) {
        const target = anchors.get(node.source);
        uses.push({ alias: node, target, ancestors, path: yamlPath(ancestors, node) });
      } else if (node.anchor) anchors.set(node.anchor, node);
    },
  });
  return uses;
}

/** Names the alias that expands to the most values, for the message. */
function aliasProblem(aliases: readonly AliasUse[], reason: string): AliasProblem {
  const targets = new Map(aliases.map((a) => [a.alias as unknown, a.target]));
  const sizes = new Map<unknown, number>();
  const size = (node: unknown): number => {
    if (isAlias(node)) return size(targets.get(node));
    if (!isCollection(node)) return 1;
    const known = sizes.get(node);
    if (known !== undefined) return known;
    let n = 1;
    for (const item of node.items) {
      n += isPair(item) ? size(item.key) + size(item.value) : size(item);
    }
    sizes.set(node, n);
    return n;
  };
  let worst: { use: AliasUse; size: number } | undefined;
  for (const use of aliases) {
    const n = size(use.alias);
    if (!worst || n > worst.size) worst = { use, size: n };
  }
  if (!worst) return { path: [], message: `YAML aliases: ${reason}` };
  return {
    path: worst.use.path,
    message:
      `the alias *${worst.use.alias.source} expands to ${
        worst.size.toExponential(1)
      } values; aliases that multiply past ${MAX_ALIAS_COUNT} resolutions are refused ` +
      "(a YAML alias bomb)",
  };
}

/** The YAML path of `node` from the ancestors `visit` hands over (document first). */
function yamlPath(ancestors: readonly unknown[], node: unknown): (string | number)[] {
  const path: (string | number)[] = [];
  const chain = [...ancestors, node];
  for (let i = 0; i < chain.length - 1; i++) {
    const at = chain[i];
    if (isPair(at) && isScalar(at.key)) path.push(String(at.key.value));
    // as never: yaml types items narrower than the chain
    else if (isSeq(at)) path.push(at.items.indexOf(chain[i + 1] as never));
  }
  return path;
}
