"""The seccomp filter's program, run through a small classic-BPF interpreter for each architecture it knows
(the real filter is exercised on this machine by tests/adversarial/candidates/uncapped_memory.py)."""

import errno
import struct

import pytest

from loop.sandbox.seccomp import _AUDIT_ARCH, _REFUSED, seccomp_program

ALLOW, EPERM = 0x7FFF0000, 0x00050000 | 1


def run_bpf(prog: bytes, nr: int, arch: int) -> int:
    """Execute the filter on seccomp_data {nr, arch}: only the instructions the program uses."""
    code = [struct.unpack("HBBI", prog[i:i + 8]) for i in range(0, len(prog), 8)]
    data = struct.pack("iI", nr, arch)
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
    refused = set(_REFUSED[machine])
    for nr in range(0, 460):
        if nr not in refused:
            assert run_bpf(prog, nr, arch) == ALLOW, nr
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
    writes. In the sandbox ptrace and seccomp(2) fail with EPERM (a fork of its own included), while fork itself
    and an ordinary write still work."""
    import json

    from loop.sandbox import Limits, SandboxConfig, run

    probe = r"""
import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
nr = {"x86_64": (101, 317), "aarch64": (117, 277)}[os.uname().machine]
out = {}
child = os.fork()
if child == 0:
    os._exit(0)
for name, number, args in (("ptrace_attach", nr[0], (16, child, 0, 0)), ("ptrace_traceme", nr[0], (0, 0, 0, 0)),
                           ("seccomp", nr[1], (0, 0, 0))):
    ctypes.set_errno(0)
    out[name] = [libc.syscall(number, *args), ctypes.get_errno()]
os.waitpid(child, 0)
out["write"] = os.write(1, b"")
print(json.dumps(out))
"""
    cfg = SandboxConfig()
    res = run(cfg, [cfg.interpreter(), "-I", "-c", probe], limits=Limits(), env={"PATH": "/usr/bin:/bin"})
    got = json.loads(res.stdout.decode().strip().splitlines()[-1])
    assert got.pop("write") == 0
    assert got == {name: [-1, errno.EPERM] for name in got} and len(got) == 3, got
