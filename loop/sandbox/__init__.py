"""The sandbox: every candidate, baseline and reference process starts here, under bubblewrap, seccomp,
rlimits, a wall-clock deadline and an output cap. The trust boundary, split by concern:

limits (Limits, SandboxConfig, the environment, the two failures), seccomp (the filter), bwrap (the command
line and mounts), process (one-shot `run`, or `start` then `wait`; output capture, scratch folders), worker (the
long-lived `Worker`), channel (a FIFO out of the sandbox that only loop can read). What runs inside the sandbox is
in `inside/`, which imports nothing from loop.
"""

from loop.errors import CandidateFault, SandboxUnavailable
from loop.sandbox.limits import GRACE, Limits, SandboxConfig, clean_env, reachable
from loop.sandbox.process import (RunResult, Started, make_scratch, remove_scratch, run, scratch, signal_fault, stage,
                                  start)
from loop.sandbox.worker import Worker

__all__ = ["GRACE", "CandidateFault", "Limits", "SandboxConfig", "SandboxUnavailable", "clean_env", "RunResult",
           "make_scratch", "reachable", "remove_scratch", "run", "scratch", "signal_fault", "stage", "start", "Started",
           "Worker"]
