"""The seccomp filter's program, run through a small classic-BPF interpreter for each architecture it knows
(the real filter is exercised on this machine by tests/adversarial/candidates/uncapped_memory.py)."""

import errno
import struct
from pathlib import Path

import pytest

from loop.sandbox.seccomp import _ABSENT, _AUDIT_ARCH, _PRCTL, _REFUSED, PRCTL_REFUSED, seccomp_program

ALLOW, EPERM, ENOSYS = 0x7FFF0000, 0x00050000 | 1, 0x00050000 | 38


def run_bpf(prog: bytes, nr: int, arch: int, arg0: int = 0) -> int:
    """Execute the filter on seccomp_data {nr, arch, instruction_pointer, args[0]}: only the instructions the
    program uses."""
    code = [struct.unpack("HBBI", prog[i:i + 8]) for i in range(0, len(prog), 8)]
    data = struct.pack("iIQQ", nr, arch, 0, arg0)
    pc, acc = 0, 0
    while True:
        op, jt, jf, k = code[pc]
        if op == 0x20:  # ld [k]
            acc = struct.unpack_from("I", data, k)[0]
        elif op in (0x15, 0x35):  # jeq / jge #k
            hit = acc == k if op == 0x15 else acc >= k
            pc += jt if hit else jf
        elif op == 0x06:  # ret #k
            return k
        else:
            raise AssertionError(f"unexpected opcode {op:#x}")
        pc += 1


@pytest.mark.parametrize("machine", sorted(_AUDIT_ARCH))
def test_seccomp_refuses_uncapped_memory_and_foreign_abis(machine):
    prog = seccomp_program(machine)
    arch = _AUDIT_ARCH[machine]
    for nr in _REFUSED[machine]:
        assert run_bpf(prog, nr, arch) == EPERM
    for nr in _ABSENT[machine]:  # io_uring
        assert run_bpf(prog, nr, arch) == ENOSYS
    refused = {*_REFUSED[machine], *_ABSENT[machine]}
    for nr in range(0, 460):
        if nr not in refused:
            assert run_bpf(prog, nr, arch) == ALLOW, nr
    prctl = _PRCTL[machine]
    for option in range(0, 80):  # only prctl's seccomp and syscall-user-dispatch options
        assert run_bpf(prog, prctl, arch, option) == (EPERM if option in PRCTL_REFUSED else ALLOW), option
    assert run_bpf(prog, prctl, arch, (1 << 32) | 15) == ALLOW  # the kernel reads an int: the low half decides
    assert run_bpf(prog, 0, 0x40000003) == EPERM  # i386 on x86_64: another ABI
    assert run_bpf(prog, 0x40000000 + 29, arch) == EPERM  # x32 numbering


def test_unknown_architecture_gets_no_filter():
    assert seccomp_program("mips") is None


def test_close_all_but_closes_descriptors_above_any_guessed_bound():
    """loop's pipes keep their host numbers inside the sandbox; with many files open they lie above 1024."""
    import os

    from loop.sandbox.inside.worker import close_all_but

    r, w = os.pipe()
    high = os.dup2(w, 3000)
    pid = os.fork()
    if pid == 0:
        close_all_but(0, 1, 2, r)
        try:
            os.write(high, b"leak")
            os._exit(1)  # still open: the child could write on its caller's channel
        except OSError:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    os.close(high)
    os.close(w)
    os.close(r)
    assert os.WEXITSTATUS(status) == 0


@pytest.mark.sandbox
def test_a_sandboxed_process_cannot_take_hold_of_another():
    """Red team round eleven: a Go test binary re-ran itself as its own tracee and answered the sealed checks'
    writes; round twelve did it with a filter of its own (prctl(PR_SET_SECCOMP), SECCOMP_RET_TRAP) and a SIGSYS
    handler. In the sandbox ptrace, seccomp(2), prctl's PR_SET_SECCOMP and PR_SET_SYSCALL_USER_DISPATCH fail with
    EPERM (a fork of its own included) and io_uring_setup with ENOSYS, while fork, another prctl and an ordinary
    write still work."""
    import json

    from loop.sandbox import Limits, SandboxConfig, run

    probe = r"""
import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
nr = {"x86_64": (101, 317, 157, 425), "aarch64": (117, 277, 167, 425)}[os.uname().machine]
out = {}
child = os.fork()
if child == 0:
    os._exit(0)
params = ctypes.create_string_buffer(120)
for name, number, args in (("ptrace_attach", nr[0], (16, child, 0, 0)), ("ptrace_traceme", nr[0], (0, 0, 0, 0)),
                           ("seccomp", nr[1], (0, 0, 0)), ("prctl_seccomp_strict", nr[2], (22, 1, 0, 0, 0)),
                           ("prctl_seccomp_filter", nr[2], (22, 2, 0, 0, 0)),
                           ("prctl_syscall_user_dispatch", nr[2], (59, 1, 0, 0, 0)),
                           ("io_uring_setup", nr[3], (8, params))):
    ctypes.set_errno(0)
    out[name] = [libc.syscall(number, *args), ctypes.get_errno()]
os.waitpid(child, 0)
out["write"] = os.write(1, b"")
out["prctl_set_name"] = libc.prctl(15, b"probe", 0, 0, 0)
print(json.dumps(out))
"""
    cfg = SandboxConfig()
    res = run(cfg, [cfg.interpreter(), "-I", "-c", probe], limits=Limits(), env={"PATH": "/usr/bin:/bin"})
    got = json.loads(res.stdout.decode().strip().splitlines()[-1])
    assert got.pop("write") == 0 and got.pop("prctl_set_name") == 0
    assert got.pop("io_uring_setup") == [-1, errno.ENOSYS]
    assert got == {name: [-1, errno.EPERM] for name in got} and len(got) == 6, got


# red team round fourteen: code under test took over the sandbox's pid 1 (bubblewrap's init) ----------------
_PID1_TAKEOVER = 'def _r14_takeover():\n    import ctypes, os, struct, time\n    libc = ctypes.CDLL(None, use_errno=True)\n\n    class iov(ctypes.Structure):\n        _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]\n\n    def vm(fn, addr, data):\n        buf = ctypes.create_string_buffer(data, len(data)) if isinstance(data, bytes) else ctypes.create_string_buffer(data)\n        n = len(buf.raw) if isinstance(data, bytes) else data\n        local, remote = iov(ctypes.cast(buf, ctypes.c_void_p), n), iov(addr, n)\n        if fn(1, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) != n:\n            raise OSError(ctypes.get_errno(), "process_vm")\n        return buf.raw\n\n    def symbol(elf, name):  # a dynamic symbol\'s offset in the file (ELF64)\n        shoff, shentsize, shnum = struct.unpack_from("<Q", elf, 0x28)[0], *struct.unpack_from("<HH", elf, 0x3A)\n        secs = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize) for i in range(shnum)]\n        dynsym = next(x for x in secs if x[1] == 11)\n        strtab = secs[dynsym[6]]\n        for at in range(dynsym[4], dynsym[4] + dynsym[5], 24):\n            st_name, _, _, _, st_value, _ = struct.unpack_from("<IBBHQQ", elf, at)\n            end = elf.index(b"\\0", strtab[4] + st_name)\n            if elf[strtab[4] + st_name:end] == name and st_value:\n                return st_value\n\n    maps = [line.split() for line in open("/proc/1/maps").read().splitlines()]\n    code = [tuple(int(x, 16) for x in m[0].split("-")) for m in maps if "x" in m[1]]\n    lc = next(m for m in maps if m[-1].endswith("/libc.so.6") and "x" in m[1])\n    base = int(lc[0].split("-")[0], 16) - int(lc[2], 16)\n    elf = open(lc[-1], "rb").read()\n    pop_rdi, pop_rsi = base + elf.find(b"\\x5f\\xc3", int(lc[2], 16)), base + elf.find(b"\\x5e\\xc3", int(lc[2], 16))\n    ret, execv = base + elf.find(b"\\xc3", int(lc[2], 16)), base + symbol(elf, b"execv")\n    sp = int(open("/proc/1/syscall").read().split()[-2], 16)\n    stack = vm(libc.process_vm_readv, sp, 512)\n    slot = next(sp + i for i in range(0, 512, 8) if any(a <= struct.unpack_from("<Q", stack, i)[0] < b for a, b in code))\n    strs = [b"/usr/bin/python3\\0", b"-c\\0",\n            b"import ctypes, time; ctypes.CDLL(None).prctl(1, 0); time.sleep(60)  # loop-test-pid1-survivor\\0"]\n    data = slot + 128\n    addrs, p = [], data + 32\n    for s in strs:\n        addrs.append(p)\n        p += len(s)\n    chain = [pop_rdi, addrs[0], pop_rsi, data]\n    if (slot + 8 * len(chain) + 8) % 16 != 8:  # the stack aligned as at a call\n        chain.append(ret)\n    chain.append(execv)\n    blob = b"".join(struct.pack("<Q", x) for x in chain).ljust(128, b"\\0") + struct.pack("<4Q", *addrs, 0) + b"".join(strs)\n    vm(libc.process_vm_writev, slot, blob)\n    if os.fork() == 0:  # an orphan for pid 1 to reap: its wait4 returns into the chain\n        if os.fork() == 0:\n            os._exit(0)\n        os._exit(0)\n    os.wait()\n'


@pytest.mark.sandbox
def test_a_sandbox_whose_pid1_was_taken_over_ends_with_its_run():
    """Code under test wrote a return-oriented chain into bubblewrap's init with process_vm_writev: pid 1 exec'd a
    process that cleared its parent-death signal, and killing bwrap at the deadline left it and its namespace
    running. loop kills pid 1 itself (a pidfd of the host pid bwrap reports on --info-fd), and pid 1 runs under
    the sandbox's rlimits."""
    import os
    import time

    from loop.sandbox import Limits, SandboxConfig, run

    probe = _PID1_TAKEOVER + r"""
import sys
print(open("/proc/1/limits").read().split("Max file size")[1].split()[0], flush=True)
_r14_takeover()
for _ in range(50):
    if b"loop-test-pid1-survivor" in open("/proc/1/cmdline", "rb").read():
        print("taken", flush=True)
        break
    time.sleep(0.05)
time.sleep(30)
"""
    cfg = SandboxConfig()
    for _ in range(3):  # the takeover reads pid 1's stack while it waits: it may miss once
        res = run(cfg, [cfg.interpreter(), "-I", "-c", probe], limits=Limits(wall=3.0), env={"PATH": "/usr/bin:/bin"})
        said = res.stdout.decode().split()
        if "taken" in said:
            break
    assert said[:2] == [str(Limits().fsize_mb << 20), "taken"], (said, res.stderr.decode()[-500:])

    def survivors() -> list[int]:
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                if b"loop-test-pid1-survivor" in open(f"/proc/{pid}/cmdline", "rb").read():
                    found.append(int(pid))
            except OSError:
                pass
        return found

    deadline = time.monotonic() + 2
    while survivors() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert survivors() == []


@pytest.mark.sandbox
@pytest.mark.parametrize("enabled", [True, False])
def test_nothing_a_run_started_outlives_loop_killed(tmp_path, enabled):
    """loop killed by SIGKILL mid-run: the sandbox dies with it (bubblewrap's --die-with-parent), and so does an
    unsandboxed command (--no-sandbox: setpriv's --pdeathsig; no Popen preexec_fn does it any more)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from conftest import ROOT

    marker = f"loop-test-orphan-{os.getpid()}-{enabled}"  # never whole in the loop process's own command line
    script = (f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
              "from loop.sandbox import Limits, SandboxConfig, run\n"
              "marker = '-'.join(['loop-test-orphan', sys.argv[1], sys.argv[2]])\n"
              f"run(SandboxConfig(enabled={enabled}), ['/bin/bash', '-c', 'exec -a \"$0\" sleep 30', marker], "
              "limits=Limits(wall=60.0), env={'PATH': '/usr/bin:/bin'})\n")
    loop = subprocess.Popen([sys.executable, "-c", script, str(os.getpid()), str(enabled)])

    def running() -> list[int]:
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                if marker.encode() in open(f"/proc/{pid}/cmdline", "rb").read():
                    found.append(int(pid))
            except OSError:
                pass
        return found

    deadline = time.monotonic() + 20
    while not running() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert running(), "the command never started"
    loop.send_signal(signal.SIGKILL)
    loop.wait()
    deadline = time.monotonic() + 5
    while running() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert running() == []


@pytest.mark.sandbox
def test_a_go_test_binary_runs_without_the_go_toolchain_or_the_tree_to_write():
    """Red team round fifteen: a test binary's init() rebuilt the test binary with the sandbox's own `go` (a file
    the screen never saw, a copy of the tree with a hidden test edited) and exec'd it. Under loop's runner
    (`go test -exec`) a binary runs itself and the system's programs, not the Go toolchain (nor a copy of its
    compiler in /tmp), and writes /tmp but not the tree or /dev/shm (Go's build cache, go test's binaries).
    Round sixteen ran a copy of the toolchain through the dynamic loader: the toolchain cannot even be read."""
    import shutil

    from loop.kinds.repo import gorun
    from loop.sandbox import Limits, SandboxConfig, make_scratch, run

    goroot = gorun._toolchain()[1]
    compiler = next(Path(goroot, "pkg", "tool").glob("*/compile"))
    probe = (f"/bin/true && echo system-ok; {shutil.which('go')} version || echo go-refused; "
             f"{compiler} -V || echo compile-refused; cp {compiler} /tmp/c && /tmp/c -V || echo copy-refused; "
             "echo x > /tmp/x && echo tmp-written; echo x > /repo/x || echo repo-refused; "
             "mkdir -p /dev/shm/.gocache; echo x > /dev/shm/.gocache/x || echo shm-refused; "
             # round sixteen: a copy run through the dynamic loader (which maps what execve refuses)
             f"cat {compiler} > /dev/null || echo toolchain-unreadable; "
             f"ls {goroot}/pkg/tool/ > /dev/null || echo tools-unreadable; "
             "cat /usr/bin/env > /dev/null && echo system-readable; "
             "echo probe > /proc/self/comm || echo proc-refused")  # round seventeen wrote /proc/self/mem
    tree = make_scratch("loop-test-gorun-")  # a folder the sandbox's uid can reach
    cfg = SandboxConfig()
    res = run(cfg, ["/bin/sh", "-c", "mkdir -p /dev/shm/.gocache && exec \"$@\"", "sh", gorun.MOUNT, "/bin/sh", "-c",
                    probe], limits=Limits(wall=30, tmpfs_mb=256), env={"PATH": "/usr/bin:/bin"},
              ro={gorun.MOUNT: str(gorun.runner())}, rw={"/repo": str(tree)}, cwd="/repo")
    said = res.stdout.decode().split()
    assert said == ["system-ok", "go-refused", "compile-refused", "copy-refused", "tmp-written", "repo-refused",
                    "shm-refused", "toolchain-unreadable", "tools-unreadable", "system-readable",
                    "proc-refused"], \
        (said, res.stderr.decode()[-800:])
    assert not (tree / "x").exists()
    shutil.rmtree(tree)
