/**
 * @module The protocol's data as the gateway reads and writes it: tools, their results, prompts,
 * resources, tasks, log levels, what a client declared at `initialize` and the notifications a
 * session sends it. Every room may use these; the core (`gateway/`) uses nothing else, so it
 * names no SDK type. They are the gateway's own shapes, written from the specification's
 * 2025-11-25 revision: each declares the fields the gateway reads or writes, typed as the
 * specification types them, so an SDK object is one of these and one of these is the SDK's where
 * the two meet (`session/`, `upstream/`), and the compiler checks both at those seams. A result
 * the gateway only passes on keeps what it does not read (the index signature): what an upstream
 * adds reaches the client.
 */

/** Fields the protocol reserves for metadata (`_meta`) on a request, result or notification. */
export interface Meta {
  progressToken?: string | number;
  "io.modelcontextprotocol/related-task"?: { taskId: string };
  [key: string]: unknown;
}

/** The `_meta` key of a request or notification about a task (the 2025 related-task). */
export const RELATED_TASK_META = "io.modelcontextprotocol/related-task";

/** An icon a client may show for a tool, prompt or resource. */
export type Icon = {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: "light" | "dark";
};

/** Hints about who a piece of content is for and how much it matters. */
export type Annotations = {
  audience?: ("user" | "assistant")[];
  priority?: number;
  lastModified?: string;
};

/** A JSON Schema of an object, as a tool's input or output schema. */
export interface ObjectSchema {
  type: "object";
  properties?: Record<string, object>;
  required?: string[];
  [key: string]: unknown;
}

/** A tool as listed. */
export interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: ObjectSchema;
  outputSchema?: ObjectSchema;
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
  execution?: { taskSupport?: "optional" | "required" | "forbidden" };
  _meta?: Record<string, unknown>;
  icons?: Icon[];
}

// Content blocks are type aliases, not interfaces: a result's content is also read as plain
// records (`{ type: string; [key: string]: unknown }`), which only an alias converts to.

/** Text content. */
export type TextContent = {
  type: "text";
  text: string;
  annotations?: Annotations;
  _meta?: Record<string, unknown>;
};

/** A picture (`image`) or a sound (`audio`), base64 in `data`. */
export type MediaContent = {
  type: "image" | "audio";
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Record<string, unknown>;
};

/** A resource's contents: text or base64 `blob`. */
export type ResourceContents =
  | { uri: string; mimeType?: string; _meta?: Record<string, unknown>; text: string }
  | { uri: string; mimeType?: string; _meta?: Record<string, unknown>; blob: string };

/** A link to a resource the client may read. */
export type ResourceLink = ResourceFields & {
  type: "resource_link";
  uri: string;
};

/** A resource's contents inlined. */
export type EmbeddedResource = {
  type: "resource";
  resource: ResourceContents;
  annotations?: Annotations;
  _meta?: Record<string, unknown>;
};

/** One piece of a tool's result or of a prompt's message. */
export type ContentBlock = TextContent | MediaContent | ResourceLink | EmbeddedResource;

/** What a tool call answers. */
export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Meta;
  [key: string]: unknown;
}

/** The parameters of `tools/call`. */
export interface CallToolParams {
  name: string;
  arguments?: Record<string, unknown>;
  /** Asks for the call to run as a task, kept this long (milliseconds) once done. */
  task?: { ttl?: number };
  _meta?: Meta;
}

/** A prompt as listed. */
export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: { name: string; description?: string; required?: boolean }[];
  _meta?: Record<string, unknown>;
  icons?: Icon[];
}

/** What `prompts/get` answers. */
export interface GetPromptResult {
  description?: string;
  messages: { role: "user" | "assistant"; content: ContentBlock }[];
  _meta?: Meta;
  [key: string]: unknown;
}

/** What a resource and a resource template share. */
type ResourceFields = {
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  _meta?: Record<string, unknown>;
  icons?: Icon[];
};

/** A resource as listed. */
export interface Resource extends ResourceFields {
  uri: string;
}

/** A resource template as listed. */
export interface ResourceTemplate extends Omit<ResourceFields, "size"> {
  uriTemplate: string;
}

/** What `resources/read` answers. */
export interface ReadResourceResult {
  contents: ResourceContents[];
  _meta?: Meta;
  [key: string]: unknown;
}

/** The parameters of `completion/complete`. */
export interface CompleteParams {
  ref: { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string };
  argument: { name: string; value: string };
  context?: { arguments?: Record<string, string> };
  _meta?: Meta;
}

/** What `completion/complete` answers. */
export interface CompleteResult {
  completion: { values: string[]; total?: number; hasMore?: boolean };
  _meta?: Meta;
  [key: string]: unknown;
}

/** The parameters of `prompts/get`. */
export interface GetPromptParams {
  name: string;
  arguments?: Record<string, string>;
  _meta?: Meta;
}

/** A task's state (the 2025 revision's; the 2026-07-28 wire is mapped in `./tasks-extension.ts`). */
export interface Task {
  taskId: string;
  status: "working" | "input_required" | "completed" | "failed" | "cancelled";
  /** Milliseconds it is kept once done; `null`: as long as its server likes. */
  ttl: number | null;
  createdAt: string;
  lastUpdatedAt: string;
  pollInterval?: number;
  statusMessage?: string;
}

/** What a task-augmented request answers. */
export interface CreateTaskResult {
  task: Task;
  _meta?: Meta;
  [key: string]: unknown;
}

/** What `tasks/result` answers: the result of the request the task ran. */
export interface TaskPayload {
  _meta?: Meta;
  [key: string]: unknown;
}

/** The log levels, least severe first. */
export const LOGGING_LEVELS = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
] as const;

/** A log level. */
export type LoggingLevel = typeof LOGGING_LEVELS[number];

/** The parameters of `notifications/message`. */
export interface LogMessageParams {
  level: LoggingLevel;
  logger?: string;
  data: unknown;
  _meta?: Meta;
}

/** What a client declared it can be asked (the parts the gateway reads; the rest passes). */
export interface ClientCapabilities {
  experimental?: Record<string, object>;
  sampling?: { context?: object; tools?: object };
  elicitation?: { form?: { applyDefaults?: boolean; [key: string]: unknown }; url?: object };
  roots?: { listChanged?: boolean };
  tasks?: {
    list?: object;
    cancel?: object;
    requests?: {
      sampling?: { createMessage?: object; [key: string]: unknown };
      elicitation?: { create?: object; [key: string]: unknown };
      [key: string]: unknown;
    };
    [key: string]: unknown;
  };
  extensions?: Record<string, object>;
}

/** What a client or server says of itself at `initialize` (`clientInfo`, `serverInfo`). */
export interface Implementation {
  name: string;
  title?: string;
  version: string;
  websiteUrl?: string;
  description?: string;
  icons?: Icon[];
}

/** A notification as it goes on the wire: no `id`, nothing answers it. */
export interface JSONRPCNotification {
  jsonrpc: "2.0";
  method: string;
  params?: { _meta?: Meta; [key: string]: unknown };
}

/** A request (to a server or to a client): its method and parameters. */
export interface ProtocolRequest {
  method: string;
  params?: { _meta?: Meta; [key: string]: unknown };
}
