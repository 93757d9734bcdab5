"""EvalPlus's own numbers beside loop's verdict: a solution's `base` and `base + extra` status as
`evalplus.evaluate` decides them (its inputs, its ground truth's outputs, its comparison with atol and special
oracles, its time limits), and pass@k over them as it reports them.

The ground truth's outputs and times are written at import (evalplus.json in the task folder). A solution runs
in the sandbox, a process per part as evalplus runs one (a forked child of the function kind's fork server:
kinds/function/fork/outputs.py; batch_inside.py in a sandbox of its own for `output_not_none` problems); only
its outputs come out, and they are compared here, in loop's process: the right values never enter the sandbox.
"""

from __future__ import annotations

import json
import math
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from loop import kinds, tasks
from loop.sandbox import Limits, SandboxConfig, clean_env, remove_scratch, run, scratch, stage
from loop.sandbox.inside.codec import dec, enc
from loop.store.db import RunStore
from loop.store.migrations import immediate

FILE = "evalplus.json"
MIN_TIME_LIMIT = 1.0     # evalplus's DEFAULT_MIN_TIME_LIMIT
TIME_LIMIT_FACTOR = 4.0  # evalplus's DEFAULT_GT_TIME_LIMIT_FACTOR
TASK_TIMEOUT = 60.0      # evalplus's EVALPLUS_TIMEOUT_PER_TASK default
# evalplus 0.3.1, the release on PyPI, never marks a find_zero (HumanEval/32) input passed: its special oracle
# `continue`s before `details[i] = True`, so every solution fails it (its repository fixed this after the
# release). The numbers here are the release's, so that they equal what its users get.
FIND_ZERO_PASSES = False
# evalplus/eval/_special_oracle.py
NOT_NONE = ("check_str", "text_match_three", "text_starta_endb")
SET_EQ = ("similar_elements", "find_char_long", "common_in_nested_lists", "extract_singly", "larg_nnum",
          "intersection_array", "find_dissimilar", "Diff")


def ground_truth(dataset: str, task_id: str, entry: str, atol: float, parts: dict[str, tuple[list, list]]) -> str | None:
    """evalplus.json's text: per part ("base", "plus") the inputs, the ground truth's outputs and seconds;
    None when some output cannot be kept (then evalplus's own ground truth could not be computed either)."""
    doc: dict[str, Any] = {"dataset": dataset, "task_id": task_id, "entry_point": entry, "atol": atol}
    for part, (inputs, outcomes) in parts.items():
        if any(not o.ok for o in outcomes):
            return None
        doc[part] = {"inputs": [[enc(a) for a in args] for args in inputs],
                     "expected": [enc(o.value) for o in outcomes], "seconds": [o.seconds for o in outcomes]}
    return json.dumps(doc)


# --------------------------------------------------------------------------- evalplus's comparison


def _is_floats(x: Any) -> bool:
    if isinstance(x, float):
        return True
    return isinstance(x, (list, tuple)) and bool(x) and all(isinstance(i, float) for i in x)


def _close(out: Any, exp: Any, atol: float) -> bool:
    """numpy.allclose(out, exp, rtol=1e-07, atol=atol) on what evalplus passes it (numbers, nested lists of
    them); anything numpy would refuse (strings, ragged lists) is False, as the assert fails there."""
    if isinstance(out, (list, tuple)) or isinstance(exp, (list, tuple)):
        if not (isinstance(out, (list, tuple)) and isinstance(exp, (list, tuple))):
            return False
        if len(out) != len(exp) and 1 not in (len(out), len(exp)):
            return False
        n = max(len(out), len(exp))
        pick = lambda v, i: v[0] if len(v) == 1 else v[i]  # noqa: E731 - numpy broadcasts a length-1 axis
        return all(_close(pick(out, i), pick(exp, i), atol) for i in range(n))
    numbers = (int, float)
    if not (isinstance(out, numbers) and isinstance(exp, numbers)):
        return False
    a, b = float(out), float(exp)
    if math.isnan(a) or math.isnan(b):
        return False
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= atol + 1e-07 * abs(b)


def _poly(xs: list, x: float) -> float:
    return sum(coeff * math.pow(x, i) for i, coeff in enumerate(xs))


def _surface_area(base_edge, height):
    slant_height = math.sqrt((base_edge / 2) ** 2 + height ** 2)
    return round(base_edge ** 2 + 4 * (base_edge * slant_height) / 2)


def _digit_distance(num1, num2):
    a, b = str(num1), str(num2)
    width = max(len(a), len(b))
    return sum(abs(int(x) - int(y)) for x, y in zip(a.zfill(width), b.zfill(width)))


def part_passes(dataset: str, entry: str, atol: float, inputs: list, expected: list, got: list) -> bool:
    """evalplus's unsafe_execute over one part: every input returned and compared equal, in order (its atol
    becomes 1e-6 from the first float expectation on, as there). `got`: (returned?, value) per input run."""
    if len(got) < len(inputs):
        return False
    for inp, exp, (ok, out) in zip(inputs, expected, got):
        if not ok:
            return False
        try:
            exact = out == exp
            if dataset == "mbpp":
                if entry == "are_equivalent":
                    exact = True
                elif entry == "sum_div":
                    exact = exact or out == 0
                elif entry == "surface_Area":
                    exact = exact or abs(out - _surface_area(*inp)) <= atol
                elif entry == "digit_distance_nums":
                    exact = exact or out == _digit_distance(*inp)
                elif entry in SET_EQ:
                    exact = set(out) == set(exp)
            if dataset == "humaneval" and entry == "find_zero":
                if not abs(_poly(*inp, out)) <= atol or not FIND_ZERO_PASSES:
                    return False
                continue
            if atol == 0 and _is_floats(exp):
                atol = 1e-6
            if not exact and atol != 0:
                if type(out) is not type(exp):
                    return False
                if isinstance(exp, (list, tuple)) and len(out) != len(exp):
                    return False
                if not _close(out, exp, atol):
                    return False
            elif not exact:
                return False
        except Exception:  # noqa: BLE001 - out is the solution's value: what breaks the comparison fails it
            return False
    return True


# --------------------------------------------------------------------------- running a solution


INSIDE = Path(__file__).with_name("batch_inside.py")
CODEC = Path(__file__).resolve().parents[2] / "sandbox" / "inside" / "codec.py"


def load(folder: Path) -> dict | None:
    """A task folder's evalplus.json, or None (not imported from EvalPlus, or its ground truth not kept)."""
    try:
        return json.loads((folder / FILE).read_text())
    except (OSError, ValueError):
        return None


def solution_status(truth: dict, source: str, cfg: SandboxConfig, outputs=None) -> dict[str, bool]:
    """{"base": passed?, "plus": passed?} of one solution, each part in a process of its own with evalplus's
    time limits: per input max(1 s, 4 x the ground truth's time), per part min(60 s, their sum) + 1. `outputs`
    (the function kind's `outputs(cfg)`): each part a forked child of one sandboxed fork server; without it,
    or where evalplus reads the output as whether it is None (a value that need not cross the sandbox's
    wire), a sandbox of its own."""
    out = {}
    entry = truth["entry_point"]
    not_none = 2 if entry in NOT_NONE and truth["dataset"] == "mbpp" else 0
    for part in ("base", "plus"):
        inputs = truth[part]["inputs"]
        limits = [max(MIN_TIME_LIMIT, TIME_LIMIT_FACTOR * t) for t in truth[part]["seconds"]]
        if outputs is None or not_none:
            got = _run(source, entry, inputs, limits, not_none, cfg)
        else:
            got = _returned(outputs.run(source, entry, inputs, limits, min(TASK_TIMEOUT, sum(limits)) + 1))
        out[part] = part_passes(truth["dataset"], entry, truth["atol"], [dec(x) for x in inputs],
                                [dec(x) for x in truth[part]["expected"]], got)
    return out


def _returned(replies: list) -> list:
    """(returned?, value) per fork-server reply, up to the first that did not return or does not decode."""
    got = []
    for msg in replies:
        try:
            got.append((True, dec(msg["ok"])) if isinstance(msg, dict) and "ok" in msg else (False, None))
        except Exception:  # noqa: BLE001 - whatever a solution made of its reply: the part ends there
            break
        if not got[-1][0]:
            break
    return got


def _run(source: str, entry: str, inputs: list, limits: list[float], not_none: int, cfg: SandboxConfig) -> list:
    if not inputs:
        return []
    folder = scratch("loop-evalplus-")
    try:
        stage(folder, "codec.py", CODEC.read_bytes())
        stage(folder, "batch_inside.py", INSIDE.read_bytes())
        stage(folder, "batch.json", json.dumps([{"source": source, "entry": entry, "inputs": inputs, "start": 0,
                                                "limits": limits, "not_none": not_none, "fast": True}]))
        wall = min(TASK_TIMEOUT, sum(limits)) + 1
        result = run(cfg, [cfg.interpreter(), "-s", "-S", "-P", "-B", "/work/batch_inside.py", "/work/batch.json"],
                     limits=Limits(wall=wall, memory_mb=4096, output_bytes=64 << 20), env=clean_env(0),
                     ro={"/work": str(folder)})
    finally:
        remove_scratch(folder)
    got = []
    for line in result.stdout.decode(errors="replace").splitlines():
        try:
            j, i, ok, value, _, _ = json.loads(line)
            if j != 0 or i != len(got):
                break  # not the runner's line: a solution writing on its output
            got.append((bool(ok), dec(value) if ok else None))
        except Exception:  # noqa: BLE001 - whatever a solution wrote on its output: the part ends there
            break
    return got


# --------------------------------------------------------------------------- pass@k as evalplus reports it


def estimate(n: int, c: int, k: int) -> float:
    if n - c < k:
        return 1.0
    prod = 1.0
    for i in range(n - c + 1, n + 1):
        prod *= 1.0 - k / i
    return 1.0 - prod


def pass_at_k(rows: list[dict], ks: tuple[int, ...] = (1, 10, 100)) -> dict:
    """{"base": {"pass@1": ...}, "plus": {...}, "tasks": n, "samples": n} over rows of (task, base, plus):
    the mean over tasks of the unbiased estimate, for each k every task has k samples for (evalplus's)."""
    tasks: dict[str, list[tuple[int, int]]] = {}
    for r in rows:
        tasks.setdefault(r["task"], []).append((int(r["base"]), int(r["base"] and r["plus"])))
    out: dict[str, Any] = {"tasks": len(tasks), "samples": len(rows)}
    for name, col in (("base", 0), ("plus", 1)):
        out[name] = {f"pass@{k}": sum(estimate(len(v), sum(x[col] for x in v), k) for v in tasks.values()) / len(tasks)
                     for k in ks if tasks and min(len(v) for v in tasks.values()) >= k}
    return out


# --------------------------------------------------------------------------- a batch's numbers, stored


def _truths(root: Path, names) -> dict[str, dict]:
    """evalplus.json of each named task that has one (read from its folder: loading 164 HumanEval tasks again
    only to find none was a fifth of a `--k 1 --trials 0` command's time)."""
    found = {name: load(tasks.tasks_root(root) / name) for name in dict.fromkeys(names)}
    return {name: truth for name, truth in found.items() if truth is not None}


class Ahead:
    """EvalPlus's statuses of (task, source) pairs, run in a pool of their own from the moment the samples are
    read, beside loop's own grading (which waits on reference tables and timeouts: the numbers fill those
    gaps instead of running after it). Each distinct pair runs once; `results()` waits for them."""

    def __init__(self, root: Path, pairs: list[tuple[str, str]], cfg: SandboxConfig, workers: int = 1):
        pairs = [(t, s) for t, s in dict.fromkeys(pairs) if s]
        truths = _truths(root, (t for t, _ in pairs))
        self._pool = ThreadPoolExecutor(max(1, workers), thread_name_prefix="loop-evalplus")
        self._outputs = _outputs(cfg)
        self._futures = {(t, s): self._pool.submit(solution_status, truths[t], s, cfg, self._outputs)
                         for t, s in pairs if t in truths}

    def results(self) -> dict[tuple[str, str], dict[str, bool]]:
        self._pool.shutdown(wait=True)
        self._outputs.close()
        return {pair: fut.result() for pair, fut in self._futures.items()}

    def cancel(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._outputs.close()


def _outputs(cfg: SandboxConfig):
    """The function kind's fork servers for solutions' outputs (kinds.function.fork.outputs)."""
    return kinds.get("function").outputs(cfg)


def grade_batch(root: Path, db: Path, batch_id: int, cfg: SandboxConfig, workers: int = 1,
                known: dict[tuple[str, str], dict[str, bool]] | None = None) -> int:
    """EvalPlus's statuses of every candidate of the batch whose task carries evalplus.json, stored in
    runs.db's evalplus_numbers (a candidate already there is not run again, nor one whose (task, source) is
    `known`, from an `Ahead`); how many were stored."""
    with RunStore(db) as store:
        done = {r[0] for r in store.db.execute("select candidate_id from evalplus_numbers where batch_id = ?", [batch_id])}
        rows = [(cid, task, source) for cid, task, source in store.db.execute(
            "select id, task, source from candidates where batch_id = ? and source is not null order by id", [batch_id])
            if cid not in done]
    known = dict(known or {})
    truths = _truths(root, (task for _, task, source in rows if (task, source) not in known))
    todo = [(cid, task, source) for cid, task, source in rows if (task, source) in known or task in truths]
    if not todo:
        return 0
    missing = [pair for pair in dict.fromkeys((task, source) for _, task, source in todo) if pair not in known]
    outputs = _outputs(cfg)
    try:
        with ThreadPoolExecutor(max(1, workers), thread_name_prefix="loop-evalplus") as pool:
            known.update(zip(missing, pool.map(lambda pair: solution_status(truths[pair[0]], pair[1], cfg, outputs),
                                               missing)))
    finally:
        outputs.close()
    statuses = [known[(task, source)] for _, task, source in todo]
    with RunStore(db) as store, immediate(store.db):
        store.db["evalplus_numbers"].insert_all(
            [{"candidate_id": cid, "batch_id": batch_id, "task": task, "base": int(s["base"]), "plus": int(s["plus"])}
             for (cid, task, _), s in zip(todo, statuses)], replace=True)
    return len(todo)


def batch_numbers(db: Path, batch_id: int) -> dict | None:
    """pass_at_k of the batch's stored EvalPlus statuses; None when it has none."""
    with RunStore(db) as store:
        rows = [dict(task=t, base=b, plus=p) for t, b, p in store.db.execute(
            "select task, base, plus from evalplus_numbers where batch_id = ?", [batch_id])]
    return pass_at_k(rows) if rows else None


def render(summary: dict) -> str:
    """One line per EvalPlus column, as evalplus prints them."""
    def cells(d: dict) -> str:
        return ", ".join(f"{k}: {v:.4f}" for k, v in d.items()) or "-"
    return (f"EvalPlus (its inputs and comparison, {summary['samples']} samples of {summary['tasks']} tasks): "
            f"base {cells(summary['base'])}; base + extra {cells(summary['plus'])}")
