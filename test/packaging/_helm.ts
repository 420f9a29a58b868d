/**
 * Renders the Helm chart in tests, without a `helm` binary: Go's template language, the part the
 * chart uses — `{{- … -}}` trimming, `if`/`else`/`end`, `range $i, $v := …`, `define` and
 * `include`, pipelines, and the functions below (Helm's names and argument order). Anything else
 * throws naming it, so a template that strays from this part fails its test rather than
 * rendering wrong.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml, stringify } from "yaml";

type Value = unknown;
type Node =
  | { kind: "text"; text: string }
  | { kind: "action"; expr: string }
  | { kind: "if"; expr: string; then: Node[]; else: Node[] }
  | { kind: "range"; vars: string[]; expr: string; body: Node[] }
  | { kind: "define"; name: string; body: Node[] };

interface Scope {
  dot: Value;
  root: Value;
  vars: Map<string, Value>;
  defines: Map<string, Node[]>;
}

/** Every manifest of the chart at `dir` rendered with `values` over its values.yaml. */
export function renderChart(
  dir: string,
  values: Record<string, unknown> = {},
  release = { Name: "gw", Namespace: "mcp" },
): string {
  const chart = parseYaml(readFileSync(join(dir, "Chart.yaml"), "utf8"));
  const defaults = parseYaml(readFileSync(join(dir, "values.yaml"), "utf8")) ?? {};
  const root = {
    Values: merge(defaults, values),
    Release: release,
    Chart: { Name: chart.name, Version: chart.version, AppVersion: chart.appVersion },
  };
  const defines = new Map<string, Node[]>();
  const files = readdirSync(join(dir, "templates")).sort();
  const trees = files.map((f) => ({
    file: f,
    nodes: parse(readFileSync(join(dir, "templates", f), "utf8"), defines),
  }));
  const out: string[] = [];
  for (const { file, nodes } of trees) {
    if (file.startsWith("_") || !/\.ya?ml$/.test(file)) continue;
    const text = run(nodes, { dot: root, root, vars: new Map([["$", root]]), defines });
    if (text.trim() !== "") out.push(`# Source: templates/${file}\n${text.trim()}\n`);
  }
  return out.join("---\n");
}

function merge(base: Value, over: Value): Value {
  if (!isMap(base) || !isMap(over)) return over === undefined ? base : over;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = merge(base[k], v);
  return out;
}

const isMap = (v: Value): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Splits a template into nodes; `define`d templates go to `defines`. */
function parse(src: string, defines: Map<string, Node[]>): Node[] {
  const tokens: ({ text: string } | { expr: string })[] = [];
  const re = /\{\{(-?)\s*([\s\S]*?)\s*(-?)\}\}/g;
  let last = 0;
  let trimNext = false;
  for (let m = re.exec(src); m !== null; m = re.exec(src)) {
    let text = src.slice(last, m.index);
    if (trimNext) text = text.replace(/^\s+/, "");
    if (m[1] === "-") text = text.replace(/\s+$/, "");
    tokens.push({ text });
    if (!m[2]!.startsWith("/*")) tokens.push({ expr: m[2]! });
    trimNext = m[3] === "-";
    last = re.lastIndex;
  }
  tokens.push({ text: trimNext ? src.slice(last).replace(/^\s+/, "") : src.slice(last) });
  let i = 0;
  const block = (closers: string[]): { nodes: Node[]; closer: string } => {
    const nodes: Node[] = [];
    while (i < tokens.length) {
      const t = tokens[i++]!;
      if ("text" in t) {
        if (t.text) nodes.push({ kind: "text", text: t.text });
        continue;
      }
      const [word = "", ...rest] = t.expr.split(/\s+/);
      const tail = t.expr.slice(word.length).trim();
      if (closers.includes(word)) return { nodes, closer: word };
      if (word === "if") {
        const then = block(["else", "end"]);
        const other = then.closer === "else" ? block(["end"]).nodes : [];
        nodes.push({ kind: "if", expr: tail, then: then.nodes, else: other });
      } else if (word === "range") {
        const m = /^(\$\w+)\s*,\s*(\$\w+)\s*:=\s*(.+)$/.exec(tail);
        if (!m) throw new Error(`range needs "$i, $v := …": ${t.expr}`);
        nodes.push({
          kind: "range",
          vars: [m[1]!, m[2]!],
          expr: m[3]!,
          body: block(["end"]).nodes,
        });
      } else if (word === "define") {
        const name = JSON.parse(rest.join(" "));
        defines.set(name, block(["end"]).nodes);
      } else if (["else", "end", "with", "template", "block"].includes(word)) {
        throw new Error(`unsupported or misplaced "${word}": {{ ${t.expr} }}`);
      } else {
        nodes.push({ kind: "action", expr: t.expr });
      }
    }
    if (closers.length > 0) throw new Error(`missing {{ end }} (expected ${closers.join("/")})`);
    return { nodes, closer: "" };
  };
  return block([]).nodes;
}

function run(nodes: Node[], scope: Scope): string {
  let out = "";
  for (const n of nodes) {
    if (n.kind === "text") out += n.text;
    else if (n.kind === "action") out += show(pipeline(n.expr, scope));
    else if (n.kind === "if") out += run(truthy(pipeline(n.expr, scope)) ? n.then : n.else, scope);
    else if (n.kind === "range") {
      const list = pipeline(n.expr, scope);
      const entries = Array.isArray(list)
        ? list.map((v, k) => [k, v] as const)
        : isMap(list)
        ? Object.entries(list).sort(([a], [b]) => a < b ? -1 : 1)
        : [];
      for (const [k, v] of entries) {
        // As in Go, the element is also the dot inside the loop.
        const vars = new Map(scope.vars).set(n.vars[0]!, k).set(n.vars[1]!, v);
        out += run(n.body, { ...scope, dot: v, vars });
      }
    }
  }
  return out;
}

function show(v: Value): string {
  return v === undefined || v === null ? "" : typeof v === "object" ? JSON.stringify(v) : String(v);
}

function truthy(v: Value): boolean {
  if (Array.isArray(v)) return v.length > 0;
  if (isMap(v)) return Object.keys(v).length > 0;
  return v !== undefined && v !== null && v !== false && v !== 0 && v !== "";
}

/** Splits `s` at top-level `sep` (outside quotes and parentheses). */
function split(s: string, sep: RegExp): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = false;
  let cur = "";
  for (const ch of s) {
    if (ch === '"') quote = !quote;
    else if (!quote && ch === "(") depth++;
    else if (!quote && ch === ")") depth--;
    if (!quote && depth === 0 && sep.test(ch)) {
      if (cur.trim()) parts.push(cur.trim());
      cur = "";
    } else cur += ch;
  }
  if (cur.trim()) parts.push(cur.trim());
  return parts;
}

function pipeline(expr: string, scope: Scope): Value {
  let piped: Value[] = [];
  for (const command of split(expr, /\|/)) {
    const words = split(command, /\s/);
    const fn = FUNCTIONS[words[0]!];
    if (fn) piped = [fn(scope, ...words.slice(1).map((w) => term(w, scope)), ...piped)];
    else if (words.length === 1 && piped.length === 0) piped = [term(words[0]!, scope)];
    else throw new Error(`unknown function "${words[0]}" in {{ ${expr} }}`);
  }
  return piped[0];
}

function term(word: string, scope: Scope): Value {
  if (word.startsWith("(")) return pipeline(word.slice(1, -1), scope);
  if (word.startsWith('"')) return JSON.parse(word);
  if (/^-?\d+$/.test(word)) return Number(word);
  if (word === "true" || word === "false") return word === "true";
  const m = /^(\$\w*|)((?:\.\w+)*|\.)$/.exec(word);
  if (!m) throw new Error(`cannot read "${word}"`);
  let v: Value = m[1] ? scope.vars.get(m[1]) : scope.dot;
  if (m[1] && !scope.vars.has(m[1])) throw new Error(`undefined variable ${m[1]}`);
  for (const key of m[2]!.split(".").filter(Boolean)) v = isMap(v) ? v[key] : undefined;
  return v;
}

const pad = (n: Value, s: Value) =>
  String(s).split("\n").map((l) => " ".repeat(Number(n)) + l).join("\n");

const FUNCTIONS: Record<string, (scope: Scope, ...args: Value[]) => Value> = {
  include: (scope, name, dot) => {
    const body = scope.defines.get(String(name));
    if (!body) throw new Error(`no template "${name}"`);
    return run(body, { ...scope, dot });
  },
  required: (_s, message, v) => {
    if (!truthy(v)) throw new Error(`required: ${message}`);
    return v;
  },
  default: (_s, fallback, v) => truthy(v) ? v : fallback,
  quote: (_s, v) => JSON.stringify(show(v)),
  toYaml: (_s, v) => stringify(v ?? null).trimEnd(),
  indent: (_s, n, s) => pad(n, s),
  nindent: (_s, n, s) => "\n" + pad(n, s),
  b64enc: (_s, v) => btoa(String(v)),
  not: (_s, v) => !truthy(v),
  or: (_s, ...vs) => vs.find(truthy) ?? vs[vs.length - 1],
  and: (_s, ...vs) => vs.find((v) => !truthy(v)) ?? vs[vs.length - 1],
  eq: (_s, a, b) => a === b,
  printf: (_s, format, ...args) => {
    let i = 0;
    return String(format).replace(/%[sd]/g, () => show(args[i++]));
  },
  trunc: (_s, n, s) => String(s).slice(0, Number(n)),
  trimSuffix: (_s, suffix, s) =>
    String(s).endsWith(String(suffix)) ? String(s).slice(0, -String(suffix).length) : String(s),
};
