/** Shapes shared by search, describe and suggestions. */

/** A tool as discovery sees it: exposed name, owning server, text and input schema. */
export interface ToolDescriptor {
  /** Exposed name, e.g. `github__search_issues`. */
  readonly name: string;
  /** Owning server, or `null` for gateway-local tools (meta-tools, macros without a group). */
  readonly server: string | null;
  /** Human description; a missing one searches and describes as `""`. */
  readonly description?: string | undefined;
  /** JSON Schema of the arguments, passed through untouched. */
  readonly inputSchema: object;
  /** Extra search terms. */
  readonly keywords?: readonly string[] | undefined;
  /** Display title (`title` or `annotations.title` of an MCP tool). */
  readonly title?: string | undefined;
  /**
   * The tool's name on its server (default: `name`). Descriptors with the same local name,
   * description and input schema are one definition offered by several servers: one hit.
   */
  readonly localName?: string | undefined;
}

/** A descriptor that may also advertise an output schema (for describe). */
export interface DescribableTool extends ToolDescriptor {
  /** JSON Schema of `structuredContent`, when the server advertises one. */
  readonly outputSchema?: object | undefined;
}

/** Options of one search. */
export interface SearchOptions {
  /** Only tools of this server (exact match). */
  readonly server?: string | undefined;
  /** Page size, 1–100; default 10. */
  readonly limit?: number | undefined;
  /** Items to skip; default 0. */
  readonly offset?: number | undefined;
}

/** One ranked hit: compact on purpose — no schema, and the description's first sentence only. */
export interface SearchItem {
  name: string;
  server: string | null;
  /** The first sentence of the description, at most about 160 characters. */
  description: string;
  /** Relevance rounded to 3 decimals; 0 when listing with an empty query. */
  score: number;
  /**
   * Every server offering this same definition (name, description and schema), `name`'s first;
   * present only when there is more than one.
   */
  servers?: (string | null)[];
}

/** One page of ranked hits. */
export interface SearchResult {
  items: SearchItem[];
  /** Number of matching tools across all pages. */
  total: number;
  has_more: boolean;
  /** Offset of the next page; present only when `has_more`. */
  next_offset?: number;
}

/** What `tools.describe` / `tool_describe` returns for one tool. */
export interface ToolDescription {
  name: string;
  server: string | null;
  description: string;
  /** One line, e.g. `t(query: string, limit?: integer = 10) -> { total: integer }`. */
  signature: string;
  /** Compact TypeScript-like parameter shape, or the formatted schema when it cannot be expressed. */
  inputTypeScript: string;
  /** Descriptions (with formats and ranges) of documented params, keyed by dotted path. */
  inputGuidance?: Record<string, string>;
  /** The original output schema, when advertised. */
  outputSchema?: object;
  /** Where the output schema applies inside a successful call envelope. */
  outputSchemaTarget?: "data.structuredContent";
  /** Other servers' names for this same definition, when several servers offer it. */
  also?: string[];
}
