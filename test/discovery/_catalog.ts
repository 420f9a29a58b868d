/**
 * A realistic catalog for discovery tests: the real tool lists of the reference filesystem and
 * memory servers (dumped from `tools/list`), plus a few hand-written GitHub and Slack tools and a
 * macro that is findable only through its keywords.
 */
import type { ToolDescriptor } from "../../src/discovery/mod.ts";
import reference from "./fixtures/reference-servers.json" with { type: "json" };

const extra: ToolDescriptor[] = [
  {
    name: "github__search_issues",
    server: "github",
    description: "Search issues and pull requests across GitHub repositories",
    inputSchema: {
      type: "object",
      properties: {
        q: { type: "string", description: "GitHub search syntax" },
        per_page: { type: "integer", default: 30 },
      },
      required: ["q"],
    },
  },
  {
    name: "github__create_issue",
    server: "github",
    description: "Create a new issue in a GitHub repository",
    inputSchema: {
      type: "object",
      properties: {
        owner: { type: "string" },
        repo: { type: "string" },
        title: { type: "string" },
      },
      required: ["owner", "repo", "title"],
    },
  },
  {
    name: "github__get_file_contents",
    server: "github",
    description: "Get the contents of a file or directory from a GitHub repository",
    inputSchema: { type: "object", properties: { owner: {}, repo: {}, path: {} } },
  },
  {
    name: "slack__post_message",
    server: "slack",
    description: "Post a new message to a Slack channel",
    inputSchema: { type: "object", properties: { channel_id: {}, text: {} } },
  },
  {
    name: "greet",
    server: "macros",
    description: "Greet a person",
    inputSchema: { type: "object", properties: { name: { type: "string" } } },
    keywords: ["hello", "welcome"],
  },
];

/** The reference servers' real tools followed by the hand-written ones. */
export const CATALOG: readonly ToolDescriptor[] = [...(reference as ToolDescriptor[]), ...extra];

/** Names of the items of a search result, in order. */
export function names(result: { items: readonly { name: string }[] }): string[] {
  return result.items.map((i) => i.name);
}
