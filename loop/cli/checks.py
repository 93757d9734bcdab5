"""`loop tasks check` for one task: the lines it prints, whatever broke (a load error, an environment that does
not build, a sandbox that cannot start, a bug in loop): a broken task is a line, never a traceback."""

from __future__ import annotations

from loop import kinds, tasks
from loop.errors import HarnessError, LoopError, SandboxUnavailable
from loop.kinds.task import NOTE


def check_one(config, name: str, sandbox) -> list[str]:
    """`ok   NAME`, `skip ...`, or a `FAIL NAME: reason` per problem; `note NAME: ...` lines are said, not
    failed (a cut SWE-bench id)."""
    try:
        task = tasks.load(config.root, name)
        why = kinds.unavailable(task)
        if why:  # not the task's fault: its grades are inconclusive on this machine
            return [f"skip {why}"]
        problems = kinds.get(task.kind).polarity(task, sandbox)
    except (LoopError, HarnessError) as exc:
        problems = [str(exc)]
    except SandboxUnavailable as exc:
        problems = [f"the sandbox cannot start ({exc})"]
    except Exception as exc:  # noqa: BLE001 -- one broken task is a line, never the end of the check
        problems = [f"loop failed checking it ({exc.__class__.__name__}: {str(exc)[:300]}); please report this"]
    lines = []
    for p in problems:  # each line names its task first
        label, p = ("note", p.removeprefix(NOTE)) if p.startswith(NOTE) else ("FAIL", p)
        lines.append(f"{label} {p if p.startswith((name, f'task {name!r}')) else f'{name}: {p}'}")
    return lines if any(x.startswith("FAIL ") for x in lines) else [f"ok   {name}", *lines]
