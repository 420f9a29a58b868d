/**
 * `npm run release`: the release archive `dist/release/mcp-gateway-<version>-<os>-<arch>.tar.gz`
 * — the compiled binary, the example config with the macros it loads, the systemd unit and the
 * LICENSE, in one folder of that name — and `SHA256SUMS` beside it (`sha256sum -c` reads it).
 * Builds the binary first unless `--binary PATH` names one; `--out DIR` writes elsewhere. The
 * archive is reproducible: entries sorted, owned by 0:0, dated by the last commit, gzip without
 * a timestamp.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const option = (name: string) => {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
};

const version = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version as string;
const platform = `${process.platform}-${process.arch}`;
const name = `mcp-gateway-${version}-${platform}`;
const out = resolve(option("--out") ?? join(root, "dist/release"));

let binary = option("--binary");
if (binary === undefined) {
  const built = spawnSync(join(root, "node_modules/.bin/bun"), ["build.ts"], {
    cwd: root,
    stdio: "inherit",
  });
  if (built.status !== 0) throw new Error("release: the build failed");
  binary = join(root, "dist/mcp-gateway");
}

// The folder the archive holds: what an install needs (docs/DEPLOY.md).
const stage = join(out, name);
rmSync(stage, { recursive: true, force: true });
mkdirSync(join(stage, "macros"), { recursive: true });
const put = (from: string, to: string, mode: number) => {
  copyFileSync(from, join(stage, to));
  chmodSync(join(stage, to), mode);
};
put(resolve(binary), "mcp-gateway", 0o755);
put(join(root, "packaging/gateway.example.yaml"), "gateway.example.yaml", 0o644);
put(join(root, "packaging/mcp-gateway.service"), "mcp-gateway.service", 0o644);
put(join(root, "LICENSE"), "LICENSE", 0o644);
for (const f of readdirSync(join(root, "macros")).filter((f) => f.endsWith(".lua"))) {
  put(join(root, "macros", f), join("macros", f), 0o644);
}

const commitTime = spawnSync("git", ["log", "-1", "--format=%ct"], { cwd: root, encoding: "utf8" });
const epoch = commitTime.status === 0 ? commitTime.stdout.trim() : "0";
const tar = execFileSync("tar", [
  "--sort=name",
  "--owner=0",
  "--group=0",
  "--numeric-owner",
  `--mtime=@${epoch}`,
  "-C",
  out,
  "-cf",
  "-",
  name,
], { maxBuffer: 1024 ** 3 });
const archive = `${name}.tar.gz`;
const gz = gzipSync(tar);
writeFileSync(join(out, archive), gz);
rmSync(stage, { recursive: true, force: true });
const sum = createHash("sha256").update(gz).digest("hex");
writeFileSync(join(out, "SHA256SUMS"), `${sum}  ${archive}\n`);
console.log(
  `release: wrote ${join(out, archive)} (${(gz.length / 1e6).toFixed(1)} MB) and SHA256SUMS`,
);
