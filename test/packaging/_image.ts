/**
 * Building and running the container image in tests with Debian's `buildah` and `podman`: a
 * storage of the test's own (vfs driver, chroot isolation: no daemon, no overlay, no root-only
 * kernel features), removed afterwards.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** The image's base when the machine reaches a registry. */
export const REGISTRY_BASE = "debian:bookworm-slim";

/** One storage for buildah and podman, and the commands over it. */
export class ImageStore {
  readonly dir = mkdtempSync(join(tmpdir(), "mcpgw-image-"));
  /** The storage options every buildah and podman command here starts with. */
  readonly global: readonly string[] = [
    "--root",
    join(this.dir, "storage"),
    "--runroot",
    join(this.dir, "run"),
    "--storage-driver",
    "vfs",
  ];

  /** Runs `buildah args` and returns its stdout; throws with its stderr when it fails. */
  buildah(args: readonly string[], timeoutMs = 300_000): string {
    return run("buildah", [...this.global, ...args], timeoutMs);
  }

  /** `podman` on the same storage (the arguments before the sub-command included). */
  podmanArgs(args: readonly string[]): string[] {
    return [...this.global, "--cgroup-manager", "cgroupfs", ...args];
  }

  /** Removes every container, image and file of the store. */
  remove(): void {
    spawnSync("buildah", [...this.global, "rm", "--all"], { stdio: "ignore", timeout: 60_000 });
    spawnSync("buildah", [...this.global, "rmi", "--all", "--force"], {
      stdio: "ignore",
      timeout: 60_000,
    });
    rmSync(this.dir, { recursive: true, force: true });
  }

  /**
   * The base image: {@link REGISTRY_BASE} when it can be pulled, else one made from this Debian
   * host's own files — the shared libraries the binary links and bash (the health check) —
   * because a machine without a registry cannot pull a base. Returns its name and why.
   */
  base(binary: string): { name: string; note: string } {
    try {
      this.buildah(["pull", "--quiet", REGISTRY_BASE], 120_000);
      return { name: REGISTRY_BASE, note: `pulled ${REGISTRY_BASE}` };
    } catch (err) {
      const why = String((err as Error).message).split("\n").find((l) => l.includes("Error")) ??
        String(err);
      const rootfs = join(this.dir, "rootfs");
      hostRootfs(rootfs, [binary, "/bin/bash"]);
      const tar = join(this.dir, "rootfs.tar");
      run("tar", ["-C", rootfs, "-cf", tar, "."], 60_000);
      const c = this.buildah(["from", "scratch"]).trim();
      this.buildah(["add", c, tar, "/"]);
      this.buildah(["commit", "--quiet", c, "localhost/mcpgw-host-base:test"]);
      this.buildah(["rm", c]);
      return {
        name: "localhost/mcpgw-host-base:test",
        note: `could not pull ${REGISTRY_BASE} (${why.trim()}); built on this host's libraries`,
      };
    }
  }
}

function run(cmd: string, args: readonly string[], timeoutMs: number): string {
  const env = { ...process.env, BUILDAH_ISOLATION: "chroot" };
  try {
    return execFileSync(cmd, [...args], {
      encoding: "utf8",
      timeout: timeoutMs,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(" ")} failed:\n${e.stderr ?? e.message}`);
  }
}

/** A minimal root file system at `root`: `programs` and the libraries `ldd` names for them. */
function hostRootfs(root: string, programs: readonly string[]): void {
  for (const d of ["usr/bin", "usr/lib", "lib64", "etc", "tmp"]) {
    mkdirSync(join(root, d), { recursive: true });
  }
  chmodSync(join(root, "tmp"), 0o1777);
  symlinkSync("usr/bin", join(root, "bin"));
  symlinkSync("usr/lib", join(root, "lib"));
  const libs = new Set<string>();
  for (const p of programs) {
    for (const m of run("ldd", [p], 30_000).matchAll(/(\/\S+\.so[.\d]*)/g)) libs.add(m[1]!);
  }
  for (const lib of libs) {
    // /lib and /lib64 paths land under usr/ like Debian's merged /usr.
    const target = join(
      root,
      lib.startsWith("/lib64/") ? lib : lib.replace(/^\/lib\//, "/usr/lib/"),
    );
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(lib, target);
  }
  copyFileSync("/bin/bash", join(root, "usr/bin/bash"));
  chmodSync(join(root, "usr/bin/bash"), 0o755);
}
