"""The seccomp filter every sandbox starts with: the system calls that share state between candidates
(System V and POSIX IPC, memfd, extended attributes), and those that take hold of another process's system
calls (ptrace, seccomp listeners), are refused.
"""

from __future__ import annotations

import os
import struct

from loop.sandbox.limits import SandboxConfig

# State no size cap covers, refused (EPERM) by a seccomp filter: System V shared memory and message
# queues and POSIX message queues outlive every process that used them (and POSIX queues count against
# the uid, across sandboxes); memfd files are written without any mapping RLIMIT_AS would count; extended
# attributes (a default ACL, or `user.*` values that pin kernel memory far past the tmpfs cap) on the
# tmpfs roots would reach the next candidate on a fork server. So are foreign system-call ABIs (i386,
# x32), through which the same calls could be reached under other numbers. And a hold on another process's system
# calls: ptrace and seccomp(2) (whose user-notification listener answers them). A test process traced by code
# under test can have its writes (a sealed check's record on loop's channel) answered and rewritten before they
# leave (red team round eleven: the Go test binary re-run as its own tracee). process_vm_readv/writev stay allowed
# (refusing them failed three of the demo's grades: something loop's tasks run uses them), as does /proc/<pid>/mem:
# writing a child's memory is the machine-code class SECURITY.md leaves open.
_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}


_REFUSED = {  # shmget msgget mq_open memfd_create memfd_secret setxattr lsetxattr fsetxattr setxattrat,
    #            ptrace seccomp
    "x86_64": (29, 68, 240, 319, 447, 188, 189, 190, 463, 101, 317),
    "aarch64": (194, 186, 180, 279, 447, 5, 6, 7, 463, 117, 277),
}


def seccomp_program(machine: str | None = None) -> bytes | None:
    """The classic-BPF filter bubblewrap installs (`--seccomp FD`), or None on an architecture we do not know."""
    machine = machine or os.uname().machine
    if machine not in _AUDIT_ARCH:
        return None
    refused = _REFUSED[machine]
    eperm = 0x00050000 | 1  # SECCOMP_RET_ERRNO | EPERM
    ld, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06
    n = len(refused)
    prog = [(ld, 0, 0, 4),  # arch
            (jeq, 0, n + 3, _AUDIT_ARCH[machine]),  # another ABI: refused
            (ld, 0, 0, 0),  # syscall number
            (jge, n + 1, 0, 0x40000000)]  # x32: refused
    prog += [(jeq, n - i, 0, nr) for i, nr in enumerate(refused)]
    prog += [(ret, 0, 0, 0x7FFF0000), (ret, 0, 0, eperm)]  # allow; refuse
    return b"".join(struct.pack("HBBI", *ins) for ins in prog)


def seccomp_fd(cfg: SandboxConfig) -> int | None:
    """A pipe's read end holding the filter, to pass to bubblewrap (which reads it to the end)."""
    prog = seccomp_program() if cfg.enabled else None
    if prog is None:
        return None
    r, w = os.pipe()
    os.write(w, prog)
    os.close(w)
    return r
