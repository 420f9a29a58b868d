/**
 * Five multi-step tasks, each done twice through the gateway: as an agent with plain tool calls
 * (a `tool_search` per step, a `tool_describe` of the tool it picks, then the call), and as one
 * `execute` Lua script doing the same searches and calls inside the gateway. Tokens are counted
 * on what crosses the model's context: the requests the agent writes and the answers it reads.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { callTool } from "./gateway.ts";
import { rankedNames, tokens, type ToolRef } from "./measure.ts";
import { visible } from "./ranking.ts";

/** One step: how the agent asks for the tool, the tool that does it, and the call's arguments. */
export interface TaskStep {
  query: string;
  tool: ToolRef;
  args: Record<string, unknown>;
}

/** A task an agent does in several calls. */
export interface MultiStepTask {
  name: string;
  steps: TaskStep[];
}

/** The benchmark's tasks, over servers of the captured catalog. */
export const TASKS: readonly MultiStepTask[] = [
  {
    name: "triage a bug report into GitHub and tell the team on Slack",
    steps: [
      {
        query: "search existing issues for a crash on startup",
        tool: { server: "github", tool: "search_issues" },
        args: { q: "repo:acme/api crash on startup is:issue" },
      },
      {
        query: "open a new issue in a GitHub repository",
        tool: { server: "github", tool: "create_issue" },
        args: {
          owner: "acme",
          repo: "api",
          title: "Crash on startup when config is empty",
          body: "Steps: start with an empty config file. Expected: an error. Actual: a crash.",
          labels: ["bug"],
        },
      },
      {
        query: "post a message to a Slack channel",
        tool: { server: "slack", tool: "slack_post_message" },
        args: {
          channel_id: "C0123456",
          text: "Filed acme/api#412: crash on startup (empty config).",
        },
      },
    ],
  },
  {
    name: "review a pull request and leave a review",
    steps: [
      {
        query: "get details of a pull request",
        tool: { server: "github", tool: "get_pull_request" },
        args: { owner: "acme", repo: "web", pull_number: 87 },
      },
      {
        query: "list files changed in a pull request",
        tool: { server: "github", tool: "get_pull_request_files" },
        args: { owner: "acme", repo: "web", pull_number: 87 },
      },
      {
        query: "check whether CI passed on the pull request",
        tool: { server: "github", tool: "get_pull_request_status" },
        args: { owner: "acme", repo: "web", pull_number: 87 },
      },
      {
        query: "submit a review approving the pull request",
        tool: { server: "github", tool: "create_pull_request_review" },
        args: {
          owner: "acme",
          repo: "web",
          pull_number: 87,
          body: "Looks good.",
          event: "APPROVE",
        },
      },
    ],
  },
  {
    name: "plan a visit: find a place, its details and the route there",
    steps: [
      {
        query: "find coffee shops near an address",
        tool: { server: "google-maps", tool: "maps_search_places" },
        args: { query: "coffee near 1 Market St, San Francisco" },
      },
      {
        query: "get opening hours and phone number of a place",
        tool: { server: "google-maps", tool: "maps_place_details" },
        args: { place_id: "ChIJN1t_tDeuEmsRUsoyG83frY4" },
      },
      {
        query: "driving directions between two addresses",
        tool: { server: "google-maps", tool: "maps_directions" },
        args: {
          origin: "1 Market St, San Francisco",
          destination: "Ferry Building",
          mode: "walking",
        },
      },
    ],
  },
  {
    name: "read a config file, fix it and remember the decision",
    steps: [
      {
        query: "read a text file from disk",
        tool: { server: "filesystem", tool: "read_text_file" },
        args: { path: "/tmp/app/config.yaml" },
      },
      {
        query: "edit lines in a file",
        tool: { server: "filesystem", tool: "edit_file" },
        args: {
          path: "/tmp/app/config.yaml",
          edits: [{ oldText: "retries: 0", newText: "retries: 3" }],
        },
      },
      {
        query: "store a fact in the knowledge graph memory",
        tool: { server: "memory", tool: "add_observations" },
        args: {
          observations: [{ entityName: "app-config", contents: ["retries raised to 3"] }],
        },
      },
    ],
  },
  {
    name: "check a web page in a browser and save a screenshot",
    steps: [
      {
        query: "open a URL in the browser",
        tool: { server: "playwright", tool: "browser_navigate" },
        args: { url: "http://127.0.0.1:3000/login" },
      },
      {
        query: "type into a form field on the page",
        tool: { server: "playwright", tool: "browser_type" },
        args: { element: "email field", ref: "e12", text: "test@example.com" },
      },
      {
        query: "click a button on the page",
        tool: { server: "playwright", tool: "browser_click" },
        args: { element: "Sign in button", ref: "e15" },
      },
      {
        query: "take a screenshot of the page",
        tool: { server: "playwright", tool: "browser_take_screenshot" },
        args: { filename: "login.png" },
      },
    ],
  },
];

/** Tokens one way of doing a task put into the model's context. */
export interface TaskTokens {
  name: string;
  steps: number;
  /** Plain calls: searches and describes, requests and answers. */
  discovery: number;
  /** Plain calls: the calls themselves, requests and answers. */
  doing: number;
  /** Steps whose tool was not among the first search's hits. */
  notFound: number;
  /** One `execute` call: the script and its answer. */
  execute: number;
  executeOk: boolean;
}

const request = (name: string, args: Record<string, unknown>) => tokens({ name, arguments: args });

/** Does a task with plain calls and with one script; gateway names are `server__tool`. */
export async function runTask(client: Client, task: MultiStepTask): Promise<TaskTokens> {
  let discovery = 0;
  let doing = 0;
  let notFound = 0;
  for (const step of task.steps) {
    const searchArgs = { query: step.query };
    const found = await callTool(client, "tool_search", searchArgs);
    discovery += request("tool_search", searchArgs) + tokens(visible(found));
    const name = `${step.tool.server}__${step.tool.tool}`;
    if (!rankedNames(found).some((names) => names.includes(name))) notFound++;
    const describeArgs = { name };
    const described = await callTool(client, "tool_describe", describeArgs);
    if (described.isError) throw new Error(`tool_describe ${name}: ${JSON.stringify(described)}`);
    discovery += request("tool_describe", describeArgs) + tokens(visible(described));
    const result = await callTool(client, name, step.args);
    if (result.isError) throw new Error(`${name}: ${JSON.stringify(result)}`);
    doing += request(name, step.args) + tokens(visible(result));
  }
  const script = luaScript(task);
  const executed = await callTool(client, "execute", { code: script });
  return {
    name: task.name,
    steps: task.steps.length,
    discovery,
    doing,
    notFound,
    execute: request("execute", { code: script }) + tokens(visible(executed)),
    executeOk: !executed.isError,
  };
}

/** The script an agent would send: search each step's tool on its server, call the first hit. */
export function luaScript(task: MultiStepTask): string {
  const lines = [
    "local function pick(query, server)",
    "  local hit = tools.search{ query = query, server = server, limit = 1 }.items[1]",
    "  return hit and (hit.path or hit.name)",
    "end",
    "local done = {}",
  ];
  for (const step of task.steps) {
    lines.push(
      `local tool = pick(${lua(step.query)}, ${lua(step.tool.server)})`,
      `local r = tool and tools.call(tool, ${lua(step.args)})`,
      "done[#done + 1] = { tool = tool, ok = r and r.ok or false }",
    );
  }
  lines.push("return done");
  return lines.join("\n");
}

/** A JSON value written as a Lua literal. */
function lua(value: unknown): string {
  if (value === null || value === undefined) return "nil";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `{ ${value.map(lua).join(", ")} }`;
  const entries = Object.entries(value as Record<string, unknown>)
    .map(([k, v]) =>
      `${/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? k : `[${JSON.stringify(k)}]`} = ${lua(v)}`
    );
  return `{ ${entries.join(", ")} }`;
}
