"""Whether a reference's output follows the hash seed: its outputs under several seeds, compared. Only a
str, bytes or datetime hash is seeded, and a container lists such items in hash order only when it is a set
(dicts keep insertion order), so a reference that builds no set has one output under every seed; one that
does runs under SEEDS, and an output that differs between them is kept order-free or not at all.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, replace

from loop.datasets.evalplus.references import Job, Outcome, run_jobs
from loop.oracles.fuzz import order_free
from loop.sandbox import SandboxConfig
from loop.sandbox.inside.codec import enc

# Twelve seeds: a two-item set of strings keeps one order under all of them with probability 2^-11 for one
# input, and a problem's inputs are many (Mbpp/579's order shows on 19 of its 137 under two seeds).
SEEDS = (1000, 8919, 16838, 24757, 32676, 40595, 48514, 56433, 64352, 72271, 80190, 88109)
_SET_METHODS = {"union", "intersection", "difference", "symmetric_difference"}


def builds_sets(source: str) -> bool:
    """Whether the source may iterate a set: a set display or comprehension, set()/frozenset()/hash(), or a
    set operation's method. (The standard library hands back no set it built from a caller's strings.)"""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return True
    for node in ast.walk(tree):
        if isinstance(node, (ast.Set, ast.SetComp)):
            return True
        if isinstance(node, ast.Name) and node.id in ("set", "frozenset", "hash"):
            return True
        if isinstance(node, ast.Attribute) and node.attr in _SET_METHODS:
            return True
    return False


@dataclass(frozen=True)
class Output:
    ok: bool
    value: object       # the output under SEEDS[0], or why there is none
    changed: bool       # the call changed an argument (under some seed)
    seconds: float      # the slowest seed's time
    unordered: bool = False  # its order follows the hash seed: compare it order-free


def outputs(jobs: list[Job], cfg: SandboxConfig) -> list[list[Output]]:
    """Each job's outputs, decided over the seeds its inputs need: more than one only where the reference
    builds a set and a str or bytes is in the arguments or the output (ints, floats and tuples of them
    hash the same under every seed)."""
    first = run_jobs(jobs, cfg, SEEDS[0])
    suspects = [(n, [i for i, (args, o) in enumerate(zip(job.inputs, first[n])) if _seeded((args, o.value))])
                for n, job in enumerate(jobs) if builds_sets(job.source)]
    suspects = [(n, idx) for n, idx in suspects if idx]
    subjobs = [replace(jobs[n], inputs=tuple(jobs[n].inputs[i] for i in idx)) for n, idx in suspects]
    rest: dict[tuple[int, int], list[Outcome]] = {}
    for seed in SEEDS[1:] if subjobs else ():
        for (n, idx), outs in zip(suspects, run_jobs(subjobs, cfg, seed)):
            for i, o in zip(idx, outs):
                rest.setdefault((n, i), []).append(o)
    return [[_decide(o, rest.get((n, i), [])) for i, o in enumerate(outs)] for n, outs in enumerate(first)]


def may_vary(v: object) -> bool:
    """Whether an output could be listed in hash order: two or more items, a str or bytes among them."""
    return isinstance(v, (list, tuple, set, frozenset, dict)) and len(v) > 1 and _seeded(v)


def _seeded(v: object) -> bool:
    """Whether v holds a value whose hash follows the seed (str, bytes)."""
    stack = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, (str, bytes)):
            return True
        if isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, (list, tuple, set, frozenset)):
            stack.extend(x)
    return False


def _canon(v: object) -> str:
    return json.dumps(enc(v), sort_keys=True)


def _decide(first: Outcome, rest: list[Outcome]) -> Output:
    changed = first.changed or any(o.changed for o in rest)
    seconds = max([first.seconds] + [o.seconds for o in rest])
    if not first.ok:
        return Output(False, first.value, changed, seconds)
    if any(not o.ok for o in rest):
        return Output(False, "its output depends on the hash seed (it fails under some)", changed, seconds)
    mine = _canon(first.value)
    if all(_canon(o.value) == mine for o in rest):
        return Output(True, first.value, changed, seconds)
    free = _canon(order_free(first.value))
    if all(_canon(order_free(o.value)) == free for o in rest):
        return Output(True, first.value, changed, seconds, unordered=True)
    return Output(False, "its output depends on the hash seed", changed, seconds)
