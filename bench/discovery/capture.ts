/**
 * Re-captures the discovery benchmark's catalog: installs each MCP server below from npm into a
 * scratch folder outside the repository, starts it over stdio with dummy credentials, asks
 * `tools/list` (every page) and writes `catalog/<name>.json` with the tools exactly as listed.
 *
 * Run by hand, never in CI (it installs packages and takes minutes):
 *
 *     bun bench/discovery/capture.ts [--dir=/tmp/catalog-capture] [--only=github,slack]
 *
 * A server that does not list its tools within the time limit without network or real
 * credentials is reported and skipped: the benchmark keeps only servers that start offline.
 * Tried and left out for that reason: @modelcontextprotocol/server-gitlab (its input schemas
 * lack `type: object`, which clients reject), @modelcontextprotocol/server-redis and
 * @benborla29/mcp-server-mysql (connect to the database before listing), @supabase/mcp-server-
 * supabase and @stripe/mcp (call their APIs at start), @azure-devops/mcp (needs a native module
 * built by an install script).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { DENO } from "../procs.ts";
import { type CapturedServer, CATALOG_DIR, listToolPages } from "./catalog.ts";

/** One server to capture: its npm package, the bin to run, arguments and dummy environment. */
interface Source {
  name: string;
  package: string;
  bin: string;
  args?: string[];
  /** Dummy environment; `{root}` stands for the server's scratch folder. */
  env?: Record<string, string>;
  /** Dummy files written into the scratch folder before start (e.g. OAuth client keys). */
  files?: Record<string, string>;
}

const DUMMY = "dummy-token-for-listing-tools";

/** The servers, each started with placeholder credentials that are never used to list tools. */
const SOURCES: readonly Source[] = [
  {
    name: "github",
    package: "@modelcontextprotocol/server-github",
    bin: "mcp-server-github",
    env: { GITHUB_PERSONAL_ACCESS_TOKEN: DUMMY },
  },
  {
    name: "gitlab",
    package: "@zereight/mcp-gitlab",
    bin: "mcp-gitlab",
    env: { GITLAB_PERSONAL_ACCESS_TOKEN: DUMMY, GITLAB_API_URL: "http://127.0.0.1:9/api/v4" },
  },
  {
    name: "slack",
    package: "@modelcontextprotocol/server-slack",
    bin: "mcp-server-slack",
    env: { SLACK_BOT_TOKEN: DUMMY, SLACK_TEAM_ID: "T00000000" },
  },
  {
    name: "postgres",
    package: "@modelcontextprotocol/server-postgres",
    bin: "mcp-server-postgres",
    args: ["postgresql://127.0.0.1:9/dummy"],
  },
  {
    name: "brave-search",
    package: "@brave/brave-search-mcp-server",
    bin: "brave-search-mcp-server",
    env: { BRAVE_API_KEY: DUMMY },
  },
  {
    name: "puppeteer",
    package: "@modelcontextprotocol/server-puppeteer",
    bin: "mcp-server-puppeteer",
  },
  { name: "memory", package: "@modelcontextprotocol/server-memory", bin: "mcp-server-memory" },
  {
    name: "filesystem",
    package: "@modelcontextprotocol/server-filesystem",
    bin: "mcp-server-filesystem",
    args: ["/tmp"],
  },
  {
    name: "everything",
    package: "@modelcontextprotocol/server-everything",
    bin: "mcp-server-everything",
    args: ["stdio"],
  },
  {
    name: "sequential-thinking",
    package: "@modelcontextprotocol/server-sequential-thinking",
    bin: "mcp-server-sequential-thinking",
  },
  {
    name: "google-maps",
    package: "@modelcontextprotocol/server-google-maps",
    bin: "mcp-server-google-maps",
    env: { GOOGLE_MAPS_API_KEY: DUMMY },
  },
  {
    name: "aws-kb",
    package: "@modelcontextprotocol/server-aws-kb-retrieval",
    bin: "mcp-server-aws-kb-retrieval",
    env: { AWS_ACCESS_KEY_ID: DUMMY, AWS_SECRET_ACCESS_KEY: DUMMY, AWS_REGION: "us-east-1" },
  },
  {
    name: "everart",
    package: "@modelcontextprotocol/server-everart",
    bin: "mcp-server-everart",
    env: { EVERART_API_KEY: DUMMY },
  },
  { name: "playwright", package: "@playwright/mcp", bin: "playwright-mcp", args: ["--headless"] },
  { name: "chrome-devtools", package: "chrome-devtools-mcp", bin: "chrome-devtools-mcp" },
  {
    name: "notion",
    package: "@notionhq/notion-mcp-server",
    bin: "notion-mcp-server",
    env: { NOTION_TOKEN: DUMMY },
  },
  {
    name: "mongodb",
    package: "mongodb-mcp-server",
    bin: "mongodb-mcp-server",
    env: { MDB_MCP_TELEMETRY: "disabled" },
  },
  {
    name: "sentry",
    package: "@sentry/mcp-server",
    bin: "sentry-mcp",
    args: [`--access-token=${DUMMY}`],
  },
  {
    name: "firecrawl",
    package: "firecrawl-mcp",
    bin: "firecrawl-mcp",
    env: { FIRECRAWL_API_KEY: DUMMY },
  },
  {
    name: "jira",
    package: "@aashari/mcp-server-atlassian-jira",
    bin: "mcp-atlassian-jira",
    env: {
      ATLASSIAN_SITE_NAME: "dummy",
      ATLASSIAN_USER_EMAIL: "dummy@example.com",
      ATLASSIAN_API_TOKEN: DUMMY,
    },
  },
  {
    name: "bitbucket",
    package: "@aashari/mcp-server-atlassian-bitbucket",
    bin: "mcp-atlassian-bitbucket",
    env: { ATLASSIAN_BITBUCKET_USERNAME: "dummy", ATLASSIAN_BITBUCKET_APP_PASSWORD: DUMMY },
  },
  {
    name: "kubernetes",
    package: "mcp-server-kubernetes",
    bin: "mcp-server-kubernetes",
  },
  {
    name: "circleci",
    package: "@circleci/mcp-server-circleci",
    bin: "mcp-server-circleci",
    env: { CIRCLECI_TOKEN: DUMMY },
  },
  {
    name: "datadog",
    package: "@winor30/mcp-server-datadog",
    bin: "mcp-server-datadog",
    env: { DATADOG_API_KEY: DUMMY, DATADOG_APP_KEY: DUMMY },
  },
  { name: "tavily", package: "tavily-mcp", bin: "tavily-mcp", env: { TAVILY_API_KEY: DUMMY } },
  { name: "exa", package: "exa-mcp-server", bin: "exa-mcp-server", env: { EXA_API_KEY: DUMMY } },
  { name: "context7", package: "@upstash/context7-mcp", bin: "context7-mcp" },
  {
    name: "hubspot",
    package: "@hubspot/mcp-server",
    bin: "mcp-hubspot",
    env: { PRIVATE_APP_ACCESS_TOKEN: DUMMY },
  },
  {
    name: "launchdarkly",
    package: "@launchdarkly/mcp-server",
    bin: "mcp",
    args: ["start", "--api-key", DUMMY],
  },
  {
    name: "shortcut",
    package: "@shortcut/mcp",
    bin: "mcp-server-shortcut",
    env: { SHORTCUT_API_TOKEN: DUMMY },
  },
  {
    name: "figma",
    package: "figma-developer-mcp",
    bin: "figma-developer-mcp",
    args: ["--stdio"],
    env: { FIGMA_API_KEY: DUMMY },
  },
  {
    name: "linear",
    package: "@tacticlaunch/mcp-linear",
    bin: "mcp-linear",
    env: { LINEAR_API_TOKEN: DUMMY, LINEAR_API_KEY: DUMMY },
  },
  {
    name: "playwright-ea",
    package: "@executeautomation/playwright-mcp-server",
    bin: "playwright-mcp-server",
  },
  {
    name: "mapbox",
    package: "@mapbox/mcp-server",
    bin: "mcp-server",
    env: { MAPBOX_ACCESS_TOKEN: `pk.${DUMMY}` },
  },
  {
    name: "perplexity",
    package: "@perplexity-ai/mcp-server",
    bin: "perplexity-mcp",
    env: { PERPLEXITY_API_KEY: DUMMY },
  },
  { name: "ms365", package: "@softeria/ms-365-mcp-server", bin: "ms-365-mcp-server" },
  {
    name: "monday",
    package: "@mondaydotcomorg/monday-api-mcp",
    bin: "mcp-server-monday-api",
    args: ["-t", DUMMY],
  },
  {
    name: "google-calendar",
    package: "@cocal/google-calendar-mcp",
    bin: "google-calendar-mcp",
    env: { GOOGLE_OAUTH_CREDENTIALS: "{root}/oauth-keys.json" },
    files: {
      "oauth-keys.json": JSON.stringify({
        installed: {
          client_id: "dummy",
          client_secret: DUMMY,
          redirect_uris: ["http://127.0.0.1"],
        },
      }),
    },
  },
];

const LIST_TIMEOUT_MS = 30_000;
const INSTALL_TIMEOUT_MS = 300_000;

function flag(name: string): string | undefined {
  return process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

/** Installs the package into its own folder (scripts off: nothing downloads a browser). */
function install(dir: string, source: Source): string {
  const root = join(dir, source.name);
  const manifest = join(root, "node_modules", source.package, "package.json");
  if (!existsSync(manifest)) {
    mkdirSync(root, { recursive: true });
    execFileSync("npm", [
      "install",
      "--prefix",
      root,
      "--ignore-scripts",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      source.package,
    ], {
      stdio: ["ignore", "ignore", "inherit"],
      timeout: INSTALL_TIMEOUT_MS,
      env: { ...process.env, PUPPETEER_SKIP_DOWNLOAD: "1" },
    });
  }
  return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
}

/** Starts the installed bin and lists every page of its tools, bounded in time. */
async function listTools(dir: string, source: Source): Promise<Tool[]> {
  const root = join(dir, source.name);
  for (const [file, text] of Object.entries(source.files ?? {})) {
    writeFileSync(join(root, file), text);
  }
  const env = Object.fromEntries(
    Object.entries(source.env ?? {}).map(([k, v]) => [k, v.replaceAll("{root}", root)]),
  );
  const client = new Client({ name: "catalog-capture", version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: join(root, "node_modules", ".bin", source.bin),
    args: source.args ?? [],
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: root, ...env },
    stderr: "ignore",
  });
  const timer = setTimeout(() => void client.close(), LIST_TIMEOUT_MS);
  try {
    await client.connect(transport, { timeout: LIST_TIMEOUT_MS });
    return await listToolPages(client, LIST_TIMEOUT_MS);
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => {});
  }
}

if ((import.meta as ImportMeta & { main?: boolean }).main) {
  const dir = resolve(flag("dir") ?? "/tmp/catalog-capture");
  const only = flag("only")?.split(",");
  mkdirSync(CATALOG_DIR, { recursive: true });
  for (const source of SOURCES) {
    if (only && !only.includes(source.name)) continue;
    try {
      const version = install(dir, source);
      const tools = await listTools(dir, source);
      if (tools.length === 0) throw new Error("listed no tools");
      const captured: CapturedServer = {
        name: source.name,
        package: source.package,
        version,
        tools,
      };
      writeFileSync(
        join(CATALOG_DIR, `${source.name}.json`),
        `${JSON.stringify(captured, null, 2)}\n`,
      );
      console.log(`${source.name}\t${source.package}@${version}\t${tools.length} tools`);
      spawnSync(DENO, ["fmt", "--quiet", join(CATALOG_DIR, `${source.name}.json`)]);
    } catch (err) {
      console.log(`${source.name}\tSKIPPED\t${String(err).split("\n")[0]}`);
    }
  }
  process.exit(0);
}
