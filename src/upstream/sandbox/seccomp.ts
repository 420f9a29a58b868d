/**
 * The seccomp filter a box runs under (`bwrap --seccomp FD` loads it just before the command
 * starts): a classic-BPF program, as a container runtime's default profile, that answers EPERM
 * to the system calls a server has no business making and that kernel escapes go through —
 * loading kernels and modules, mounting, swapping, rebooting, eBPF, perf, the kernel keyring,
 * new namespaces (`unshare`, `setns`, and `clone` with a namespace flag), file handles that
 * bypass paths (`open_by_handle_at`), tracing and reading other processes, `userfaultfd`,
 * io_uring, setting the clock or the host name. `clone3` answers ENOSYS: its flags live in
 * memory a filter cannot read, and the C library then falls back to `clone`, whose flags it can.
 * A call made through another ABI (32-bit x86 or x32 on x86_64, 32-bit ARM on aarch64) is
 * refused whole, since its numbers would slip past the list.
 *
 * Written here rather than with libseccomp: the program is a fixed list per architecture, and
 * no package of the npm registry ships a maintained compiler for it.
 */

/** `struct seccomp_data` offsets. */
const NR = 0;
const ARCH = 4;
/** Low 32 bits of `args[0]` (little-endian on both architectures): `clone`'s flags. */
const ARG0_LOW = 16;

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;

const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;

/** CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET. */
const CLONE_NAMESPACES = 0x7e020000;
/** x32 system calls on x86_64 carry this bit in their number. */
const X32_BIT = 0x40000000;

/** The refused system calls by name, each with its number on x86_64 and on aarch64. */
const REFUSED: Readonly<Record<string, readonly [number | null, number | null]>> = {
  kexec_load: [246, 104],
  kexec_file_load: [320, 294],
  init_module: [175, 105],
  finit_module: [313, 273],
  delete_module: [176, 106],
  mount: [165, 40],
  umount2: [166, 39],
  pivot_root: [155, 41],
  fsopen: [430, 430],
  fsconfig: [431, 431],
  fsmount: [432, 432],
  fspick: [433, 433],
  move_mount: [429, 429],
  open_tree: [428, 428],
  mount_setattr: [442, 442],
  swapon: [167, 224],
  swapoff: [168, 225],
  reboot: [169, 142],
  bpf: [321, 280],
  perf_event_open: [298, 241],
  keyctl: [250, 219],
  add_key: [248, 217],
  request_key: [249, 218],
  unshare: [272, 97],
  setns: [308, 268],
  open_by_handle_at: [304, 265],
  name_to_handle_at: [303, 264],
  ptrace: [101, 117],
  process_vm_readv: [310, 270],
  process_vm_writev: [311, 271],
  kcmp: [312, 272],
  userfaultfd: [323, 282],
  io_uring_setup: [425, 425],
  io_uring_enter: [426, 426],
  io_uring_register: [427, 427],
  acct: [163, 89],
  quotactl: [179, 60],
  lookup_dcookie: [212, 18],
  syslog: [103, 116],
  vhangup: [153, 58],
  settimeofday: [164, 170],
  clock_settime: [227, 112],
  clock_adjtime: [305, 266],
  adjtimex: [159, 171],
  sethostname: [170, 161],
  setdomainname: [171, 162],
  iopl: [172, null],
  ioperm: [173, null],
  uselib: [134, null],
  _sysctl: [156, null],
};

/** What one architecture needs besides the list. */
interface Arch {
  /** AUDIT_ARCH_* of the native ABI. */
  readonly audit: number;
  /** Column of {@link REFUSED}. */
  readonly column: 0 | 1;
  readonly clone: number;
  readonly clone3: number;
  /** Refuse numbers at or above this (another ABI multiplexed on the native one). */
  readonly ceiling: number | null;
}

const ARCHES: Readonly<Record<string, Arch>> = {
  x64: { audit: 0xc000003e, column: 0, clone: 56, clone3: 435, ceiling: X32_BIT },
  arm64: { audit: 0xc00000b7, column: 1, clone: 220, clone3: 435, ceiling: null },
};

/** The names of the system calls the filter refuses (for documentation and tests). */
export const REFUSED_SYSCALLS: readonly string[] = Object.keys(REFUSED);

/** One instruction; a jump target is a label resolved by {@link assemble}. */
interface Insn {
  code: number;
  k: number;
  jt?: string;
  jf?: string;
}

/**
 * The filter for `arch` (`process.arch`) as `struct sock_filter` bytes, or `null` on an
 * architecture it is not written for (the box then runs without one).
 */
export function seccompFilter(arch: string = process.arch): Uint8Array | null {
  const a = Object.hasOwn(ARCHES, arch) ? ARCHES[arch]! : null;
  if (!a) return null;
  const prog: Insn[] = [
    { code: LD_W_ABS, k: ARCH },
    { code: JEQ_K, k: a.audit, jf: "deny" },
    { code: LD_W_ABS, k: NR },
  ];
  if (a.ceiling !== null) prog.push({ code: JGE_K, k: a.ceiling, jt: "deny" });
  for (const numbers of Object.values(REFUSED)) {
    const nr = numbers[a.column];
    if (nr !== null && nr !== undefined) prog.push({ code: JEQ_K, k: nr, jt: "deny" });
  }
  prog.push(
    { code: JEQ_K, k: a.clone3, jt: "enosys" },
    { code: JEQ_K, k: a.clone, jf: "allow" },
    { code: LD_W_ABS, k: ARG0_LOW },
    { code: JSET_K, k: CLONE_NAMESPACES, jt: "deny" },
  );
  return assemble(prog, {
    allow: RET_ALLOW,
    deny: RET_ERRNO | EPERM,
    enosys: RET_ERRNO | ENOSYS,
  });
}

/** Lays `prog` out, then one `ret` per label, resolving jumps to relative offsets. */
function assemble(prog: Insn[], returns: Record<string, number>): Uint8Array {
  const labels = Object.keys(returns);
  const at = (label: string | undefined, i: number): number => {
    if (label === undefined) return 0;
    const offset = prog.length + labels.indexOf(label) - (i + 1);
    if (offset > 255) throw new Error("seccomp: a jump is longer than a BPF jump can be");
    return offset;
  };
  const out = new Uint8Array((prog.length + labels.length) * 8);
  const view = new DataView(out.buffer);
  const put = (i: number, code: number, jt: number, jf: number, k: number) => {
    view.setUint16(i * 8, code, true);
    view.setUint8(i * 8 + 2, jt);
    view.setUint8(i * 8 + 3, jf);
    view.setUint32(i * 8 + 4, k >>> 0, true);
  };
  prog.forEach((insn, i) => put(i, insn.code, at(insn.jt, i), at(insn.jf, i), insn.k));
  labels.forEach((label, j) => put(prog.length + j, RET_K, 0, 0, returns[label]!));
  return out;
}
