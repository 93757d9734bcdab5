"""The seccomp filter's program, run through a small classic-BPF interpreter for each architecture it knows
(the real filter is exercised on this machine by tests/adversarial/candidates/uncapped_memory.py)."""

import errno
import struct

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
