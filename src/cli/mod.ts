/**
 * @module The command line: parse argv, run one command, map errors to exit codes
 * (0 ok, 1 runtime error, 2 usage or config error). Each command's module is imported when it
 * runs, so `--version`, `check` or `import` never load the HTTP stack, and `serve` never loads
 * `check`'s script sandbox.
 */
import { GatewayError, messageOf } from "../shared/errors.ts";
import { setLogLevel } from "../shared/log.ts";
import { runtimeVersion } from "../runtime/mod.ts";
import { NAME, VERSION } from "../version.ts";
import { parseCli, USAGE } from "./args.ts";
import { loadEnvFile } from "../config/mod.ts";
import type { RunningGateway, StartOptions } from "./serve.ts";
import type { GatewayConfig } from "../config/mod.ts";

export type { RunningGateway, StartOptions } from "./serve.ts";

/** Starts serving a config (see `./serve.ts`); the entry tests and embedders use. */
export async function startGateway(
  config: GatewayConfig,
  options: StartOptions = {},
): Promise<RunningGateway> {
  return await (await import("./serve.ts")).startGateway(config, options);
}

/** Runs the CLI; resolves with the process exit code. */
export async function runCli(argv: readonly string[]): Promise<number> {
  try {
    const args = parseCli(argv);
    if (args.help) {
      process.stdout.write(USAGE + "\n");
      return 0;
    }
    if (args.version) {
      process.stdout.write(`${NAME} ${VERSION} (${runtimeVersion()})\n`);
      return 0;
    }
    if (args.envFile) loadEnvFile(args.envFile);
    if (args.logLevel) setLogLevel(args.logLevel);
    else if (args.command !== "serve") setLogLevel("warn");
    switch (args.command) {
      case "check": {
        const { checkCommand } = await import("./check.ts");
        return await checkCommand(args.config, { listen: args.listen, connect: args.connect });
      }
      case "tools":
        return await (await import("./tools.ts")).toolsCommand(args.config, args.json);
      case "call": {
        const { callCommand } = await import("./call.ts");
        return await callCommand(args.config, args.positionals[0]!, args.positionals[1]);
      }
      case "import":
        return (await import("./import.ts")).importCommand(args.positionals[0]!, {
          write: args.write,
          config: args.config,
          dryRun: args.dryRun,
        });
      case "connect-client": {
        const { connectClientCommand } = await import("./connect-client.ts");
        return await connectClientCommand(args.config, args.positionals[0]!, {
          profile: args.profile,
          tokenEnv: args.tokenEnv,
          stdio: args.stdio,
          file: args.file,
          url: args.url,
          dryRun: args.dryRun,
          envFile: args.envFile,
        });
      }
      case "approve": {
        const { approveCommand } = await import("./approve.ts");
        return await approveCommand(args.config, args.positionals[0]!, args.positionals.slice(1));
      }
      case "login": {
        const { loginCommand } = await import("./login.ts");
        return await loginCommand(args.config, args.positionals[0]!, { url: args.url });
      }
      case "servers":
      case "sessions":
      case "logout": {
        const admin = await import("./admin.ts");
        const options = { url: args.url, json: args.json };
        if (args.command === "logout") {
          return await admin.logoutCommand(
            args.config,
            args.positionals[0]!,
            args.identity,
            options,
          );
        }
        const run = args.command === "servers" ? admin.serversCommand : admin.sessionsCommand;
        return await run(args.config, args.positionals, options);
      }
      case "run": {
        const { runCommand } = await import("./run.ts");
        return await runCommand(args.config, args.positionals[0]!);
      }
      default: {
        const { serveCommand } = await import("./serve-command.ts");
        return await serveCommand(args.config, {
          listen: args.listen,
          stdio: args.stdio,
          profile: args.profile,
        });
      }
    }
  } catch (err) {
    if (err instanceof GatewayError && (err.code === "USAGE" || err.code === "CONFIG_INVALID")) {
      process.stderr.write(`mcp-gateway: ${err.message}\n`);
      if (err.code === "USAGE") process.stderr.write("Run mcp-gateway --help for usage.\n");
      return 2;
    }
    process.stderr.write(`mcp-gateway: ${messageOf(err)}\n`);
    return 1;
  }
}
