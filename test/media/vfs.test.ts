import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { normaliseVfsPath, readVfsFile, resolveVfsPath } from "../../src/media/mod.ts";

let root = "";
let mounts: Record<string, string> = {};

before(() => {
  root = mkdtempSync(join(tmpdir(), "vfs-test-"));
  mkdirSync(join(root, "src", "sub"), { recursive: true });
  mkdirSync(join(root, "data"));
  writeFileSync(join(root, "src", "a.txt"), "A");
  writeFileSync(join(root, "src", "sub", "b.txt"), "B");
  writeFileSync(join(root, "data", "d.txt"), "D");
  writeFileSync(join(root, "secret.txt"), "S");
  symlinkSync(join(root, "secret.txt"), join(root, "src", "out-link.txt"));
  symlinkSync(join(root, "src", "a.txt"), join(root, "src", "in-link.txt"));
  symlinkSync(root, join(root, "src", "dir-out"));
  mounts = { "/source": join(root, "src"), "/data/": join(root, "data") };
});
after(() => rmSync(root, { recursive: true, force: true }));

const text = (path: string) => new TextDecoder().decode(readVfsFile(mounts, path, 1024));

function denied(path: string, pattern: RegExp): void {
  assert.throws(() => readVfsFile(mounts, path, 1024), (err: Error & { code?: string }) => {
    assert.equal(err.code, "VFS_DENIED", err.message);
    assert.match(err.message, pattern);
    assert.ok(err.message.includes(JSON.stringify(path)), "the error names the path");
    return true;
  });
}

describe("vfs", () => {
  test("relative paths resolve under /source/; absolute paths pick their mount", () => {
    assert.equal(text("a.txt"), "A");
    assert.equal(text("./sub/b.txt"), "B");
    assert.equal(text("/source/sub//b.txt"), "B");
    assert.equal(text("/data/d.txt"), "D");
    assert.equal(normaliseVfsPath("sub/./b.txt"), "/source/sub/b.txt");
    assert.equal(resolveVfsPath(mounts, "/data/d.txt").hostPath, join(root, "data", "d.txt"));
  });

  test("'..' is refused, even when it would stay inside", () => {
    denied("../secret.txt", /'\.\.' segments are not allowed/);
    denied("/source/../secret.txt", /'\.\.'/);
    denied("sub/../a.txt", /'\.\.'/);
  });

  test("absolute paths outside every mount are refused", () => {
    denied("/etc/passwd", /outside every mount/);
    denied("/sourcecode/a.txt", /outside every mount/);
    denied("/", /outside every mount/);
  });

  test("symlinks leading out of the mount are refused; inside ones work", () => {
    denied("out-link.txt", /outside its mount through a symlink/);
    denied("dir-out/secret.txt", /outside its mount through a symlink/);
    assert.equal(text("in-link.txt"), "A");
  });

  test("NUL, empty, directories, missing and oversized files are refused clearly", () => {
    denied("a.txt\u0000.png", /NUL/);
    denied("", /empty/);
    denied("sub", /not a regular file/);
    assert.throws(() => readVfsFile(mounts, "missing.txt", 10), /does not exist/);
    assert.throws(() => readVfsFile(mounts, "a.txt", 0), /1 bytes, over the ceiling of 0/);
  });
});
