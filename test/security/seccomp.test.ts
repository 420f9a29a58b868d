/**
 * The seccomp filter of a box, read back by a small classic-BPF interpreter: what it answers for
 * a system call on each architecture it is written for (aarch64 cannot be loaded on an x86_64
 * test machine, so its program is checked here; the sandbox test loads the native one for real).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { REFUSED_SYSCALLS, seccompFilter } from "../../src/upstream/sandbox/mod.ts";

const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const ENOSYS = 0x00050026;
const CLONE_NEWUSER = 0x10000000;
const SIGCHLD = 17;

/** Runs `prog` over a `struct seccomp_data` of `nr`, `arch` and `arg0` (low 32 bits). */
function run(prog: Uint8Array, nr: number, arch: number, arg0 = 0): number {
  const data = new DataView(new ArrayBuffer(64));
  data.setUint32(0, nr, true);
  data.setUint32(4, arch, true);
  data.setUint32(16, arg0, true);
  const insn = new DataView(prog.buffer, prog.byteOffset, prog.byteLength);
  let acc = 0;
  for (let pc = 0; pc < prog.length / 8;) {
    const code = insn.getUint16(pc * 8, true);
    const jt = insn.getUint8(pc * 8 + 2);
    const jf = insn.getUint8(pc * 8 + 3);
    const k = insn.getUint32(pc * 8 + 4, true);
    pc++;
    if (code === 0x20) acc = data.getUint32(k, true);
    else if (code === 0x06) return k;
    else if (code === 0x15) pc += acc === k ? jt : jf;
    else if (code === 0x35) pc += acc >= k ? jt : jf;
    else if (code === 0x45) pc += (acc & k) !== 0 ? jt : jf;
    else throw new Error(`unexpected BPF code ${code.toString(16)}`);
  }
  throw new Error("the program ran off its end");
}

const ARCHES = {
  x64: { audit: 0xc000003e, mount: 165, unshare: 272, read: 0, clone: 56, foreign: 0x40000003 },
  arm64: { audit: 0xc00000b7, mount: 40, unshare: 97, read: 63, clone: 220, foreign: 0x40000028 },
} as const;

describe("the seccomp filter of a box", () => {
  for (const [arch, a] of Object.entries(ARCHES)) {
    const prog = seccompFilter(arch)!;

    it(`${arch}: refuses mount and unshare, allows read`, () => {
      assert.equal(run(prog, a.mount, a.audit), EPERM);
      assert.equal(run(prog, a.unshare, a.audit), EPERM);
      assert.equal(run(prog, a.read, a.audit), ALLOW);
    });

    it(`${arch}: allows a plain clone, refuses one that makes a namespace`, () => {
      assert.equal(run(prog, a.clone, a.audit, SIGCHLD), ALLOW);
      assert.equal(run(prog, a.clone, a.audit, SIGCHLD | CLONE_NEWUSER), EPERM);
      assert.equal(run(prog, 435, a.audit), ENOSYS, "clone3 falls back to clone");
    });

    it(`${arch}: refuses every call of another ABI`, () => {
      assert.equal(run(prog, a.read, a.foreign), EPERM);
    });
  }

  it("x64: refuses the x32 ABI, whose numbers carry bit 30", () => {
    assert.equal(run(seccompFilter("x64")!, 0x40000000 + 165, 0xc000003e), EPERM);
  });

  it("lists the calls it refuses, and has no program for other architectures", () => {
    for (const name of ["kexec_load", "init_module", "bpf", "ptrace", "userfaultfd", "keyctl"]) {
      assert.ok(REFUSED_SYSCALLS.includes(name), name);
    }
    assert.equal(seccompFilter("riscv64"), null);
  });
});
