"""What the base and gold trees of a repository task show, found once per task and shared by every candidate:
the base tree's outcomes per repeat, where tripwires may go and which copies fail (probes), and which hidden
assertions are sealed; kept in memory and remembered across processes (remembered.py), so a grade in a fresh
process runs only the candidate's tree once the task's trees have been seen."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path, PurePosixPath

from loop import verdicts as V
from loop.errors import SandboxUnavailable, TaskError
from loop.kinds.repo import patch as repo_patch
from loop.kinds.repo import remembered
from loop.kinds.repo import seal as repo_seal
from loop.kinds.repo import tripwire as repo_tripwire
from loop.kinds.repo.env import Env
from loop.kinds.repo.results import Outcome
from loop.kinds.repo.spec import RepoSpec
from loop.kinds.repo.testrun import RunResult, run_tests
from loop.kinds.task import Task
from loop.sandbox import SandboxConfig, scratch


def _missing_module(task: Task, said: str) -> str:
    """What to do when the base tree's tests cannot import a module: the environment lacks it."""
    return (f"a module is missing from the task's environment ({said[:160]}): add it to "
            f"{task.path / 'requirements.txt'}, or re-import a SWE-bench instance with --requirements FILE --force")


def _stage_hidden(spec: RepoSpec, tree: Path) -> None:
    if spec.hidden is None:
        return
    for rel in spec.hidden_files:
        dest = tree / PurePosixPath(rel)
        here = tree
        for part in PurePosixPath(rel).parts:  # whatever the patch put in the way (a file, a link) goes
            here = here / part
            if here.is_symlink() or (here.exists() and (here == dest) == here.is_dir()):
                shutil.rmtree(here) if here.is_dir() and not here.is_symlink() else here.unlink()
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(spec.hidden / rel, dest)
        dest.chmod(0o666)


_BASE_TREES: dict[str, Path] = {}
_BASELINES: dict[tuple, dict[str, Outcome]] = {}
_FAULTS = threading.local()  # per thread: how many of the task's own runs the sandbox cut short
_CUT_SHORT: set[tuple] = set()  # baselines from such a run: what is found with them is not remembered either


def _run(*args, **kw) -> RunResult:
    """run_tests on the task's own trees, counting the runs the sandbox cut short (a timeout, a resource
    limit): what such a run showed may be the machine's load, so it is never remembered across processes."""
    res = run_tests(*args, **kw)
    _FAULTS.n = getattr(_FAULTS, "n", 0) + (res.fault is not None)
    return res


def _counting_faults(fn, *args):
    """fn(*args), and whether every run it made ended on its own."""
    before = getattr(_FAULTS, "n", 0)
    value = fn(*args)
    return value, getattr(_FAULTS, "n", 0) == before


_TREES_LOCK = threading.RLock()  # a grade's threads (repeats, seals beside probes) ask for the trees


def _base_tree(spec: RepoSpec) -> Path:
    """The base tree with the hidden tests staged, made once per process and content digest."""
    with _TREES_LOCK:
        if spec.digest not in _BASE_TREES or not _BASE_TREES[spec.digest].is_dir():
            tree = repo_patch.fresh_copy(spec.tree, scratch("loop-base-") / "repo")  # removed at exit
            _stage_hidden(spec, tree)
            _BASE_TREES[spec.digest] = tree
        return _BASE_TREES[spec.digest]


def _outcomes(value) -> dict[str, Outcome] | None:
    """A remembered baseline back (None: not one)."""
    if not (isinstance(value, dict) and value and all(
            isinstance(v, list) and len(v) == 2 and all(isinstance(x, str) for x in v) for v in value.values())):
        return None
    return {t: Outcome(status, message) for t, (status, message) in value.items()}


def baseline(task: Task, cfg: SandboxConfig, env: Env | None, repeat: int) -> dict[str, Outcome]:
    """The base tree's outcomes for one repeat (its perturbed environment), cached per task digest.
    A base tree whose command writes no report, or whose report holds no test, is a broken task."""
    spec: RepoSpec = task.spec
    ids = _run_ids(spec)
    key = (spec.digest, spec.command, spec.parser, repeat, cfg, str(env and env.path), tuple(ids or ()))
    if key in _BASELINES:
        _FAULTS.n = getattr(_FAULTS, "n", 0) + (key in _CUT_SHORT)
        return _BASELINES[key]
    name = remembered.key(task, cfg, env, "baseline", repeat, ids)
    outcomes = _outcomes(remembered.recall(name))
    if outcomes is None:
        res = _run(task, cfg, env, _base_tree(spec), repeat, ids)
        if res.fault is not None and res.outcomes is None:
            raise TaskError(f"task '{task.name}': the test command fails on the base tree ({res.fault})")
        if not res.outcomes:
            lines = res.stderr.strip().splitlines()
            # pytest names an id it cannot find on an "ERROR: not found: ..." line, before a detail line
            tail = [x for x in lines if x.startswith("ERROR")][-1:] or lines[-1:] or [f"exit status {res.exit_code}"]
            missing = next((x.strip() for x in lines if "No module named" in x), None)
            hint = f"; {_missing_module(task, missing)}" if missing and spec.requirements is not None else ""
            raise TaskError(f"task '{task.name}': the {spec.parser} parser found no tests in the base tree's "
                            f"report ({tail[0][:200]}){hint}")
        outcomes = res.outcomes
        if res.fault is None:
            remembered.remember(name, {t: [o.status, o.message] for t, o in outcomes.items()})
        else:
            _CUT_SHORT.add(key)
    return _BASELINES.setdefault(key, outcomes)


_TRIPWIRE_POINTS: dict[tuple, dict[str, repo_tripwire.Safe] | str] = {}


def tripwire_points(task: Task, cfg: SandboxConfig, env: Env | None) -> dict[str, repo_tripwire.Safe] | str | None:
    """What probes show safe in the task's host file, once per process and task. On the base tree: the points of
    its structure at which a must-pass tripwire passed with the tree's own outcomes unchanged (a probe that
    changes one is retried with the end of the file alone; if that changes one too, the reason: loop's fault,
    never a candidate's). On the gold tree: the copies of real checks that fail there, the only ones a
    candidate's runs get. None: this runner gets no tripwires."""
    spec: RepoSpec = task.spec
    kind = repo_tripwire.framework(spec.command)
    if kind is None:
        return None
    key = _points_key(task, cfg, env)
    if key not in _TRIPWIRE_POINTS:
        name = remembered.key(task, cfg, env, "tripwire-points-3", spec.parser)  # 2: every graded file; 3: rows
        found = _points(remembered.recall(name))
        if found is None:
            found, clean = _counting_faults(_probe, task, cfg, env, kind)
            if clean and not isinstance(found, str):  # loop's own fault is found again, never remembered
                remembered.remember(name, {host: [remembered.plain(s.points), remembered.plain(s.copies),
                                                  remembered.plain(s.twins), remembered.plain(s.rows)]
                                           for host, s in found.items()})
        _TRIPWIRE_POINTS[key] = found
    return _TRIPWIRE_POINTS[key]


def _points_key(task: Task, cfg: SandboxConfig, env: Env | None) -> tuple:
    spec: RepoSpec = task.spec
    return spec.digest, spec.command, spec.parser, cfg, str(env and env.path)


def known_tripwire_points(task: Task, cfg: SandboxConfig, env: Env | None) -> dict[str, repo_tripwire.Safe] | None:
    """tripwire_points' answer if this process has it already (None if not, or if it is not points), never a run."""
    found = _TRIPWIRE_POINTS.get(_points_key(task, cfg, env))
    return found if isinstance(found, dict) else None


def _points(value) -> dict[str, repo_tripwire.Safe] | None:
    """Remembered tripwire points back (None: not such a value)."""
    if not isinstance(value, dict):
        return None
    try:
        return {host: repo_tripwire.Safe(remembered.keys(points), *(None if k is None else remembered.keys(k)
                                                                     for k in (copies, twins)), remembered.keys(rows))
                for host, (points, copies, twins, rows) in value.items()}
    except (ValueError, TypeError):
        return None


def _probe(task: Task, cfg: SandboxConfig, env: Env | None, kind: str) -> dict[str, repo_tripwire.Safe] | str:
    """tripwire_points' runs: the probes on the base tree, then on the gold tree, with tripwires in every file
    that holds a graded test (tripwire.hosts) at once."""
    spec: RepoSpec = task.spec
    tree = _base_tree(spec)
    plain = baseline(task, cfg, env, 0)
    graded = plain if spec.pass_to_pass is None else spec.fail_to_pass + spec.pass_to_pass
    files = list(dict.fromkeys([*spec.hidden_files, *repo_patch.files(tree)]))  # the hidden tests first
    points = {h: repo_tripwire.points_of(kind, (tree / h).read_text(encoding="utf-8", errors="replace"))
              for h in repo_tripwire.hosts(kind, tree, files, spec.fail_to_pass, graded)}
    if not points:
        return {}
    Safe = repo_tripwire.Safe
    unstable: set[str] | None = None
    first = True
    tries = [{h: Safe(frozenset(p.key for p in pts)) for h, pts in points.items()}]  # every point and copy; after
    while tries:  # a change, fewer (see below)
        safe = tries.pop(0)
        probe = repo_tripwire.plan_all(spec.command, tree, safe, spec.fail_to_pass, probe=True)
        if probe is None:
            return {h: Safe(frozenset()) for h in points}
        res = _run(task, cfg, env, tree, 0, _run_ids(spec), lambda _spec, _work: probe)
        tried = {h: [p for p in pts if p.key in safe[h].points] for h, pts in points.items()}
        kept, changed, same = repo_tripwire.settle(probe, tried, res.raw, plain, unstable or set())
        if changed and unstable is None:  # a test that varies between plain runs anyway is not evidence
            again = _run(task, cfg, env, tree, 0, _run_ids(spec)).outcomes or {}
            unstable = {t for t, o in plain.items() if t not in again or again[t].status != o.status}
            changed = [t for t in changed if t not in unstable]
        if not changed:
            return _proven_copies(task, cfg, env, {h: Safe(kept.get(h, frozenset()), s.copies, same.get(h, frozenset()))
                                                   for h, s in safe.items()})
        if first:  # a copy may be what changed its original: no copy of a changed test (the unchanged ones only
            # where they ran as their originals), then no unchanged copy, then the end of each file alone
            first, none = False, (frozenset(), frozenset())
            spare = {one.origin: repo_tripwire.spared(one, changed) for one in probe.plans}
            tries = [{h: Safe(frozenset(p.key for p in pts[cut:]), spare.get(h, none)[0],
                              same.get(h, frozenset()) & spare.get(h, none)[1] if twins else frozenset())
                      for h, pts in points.items()} for cut, twins in ((0, True), (0, False), (-1, False))]
    where = ", ".join(sorted(points))
    return (f"loop's tripwire tests in {where} change the base tree's outcome of {changed[0]}"
            + (f" (and {len(changed) - 1} more)" if len(changed) > 1 else "")
            + ": a fault of loop's instrumentation, not of the candidate; please report it")


def _proven_copies(task: Task, cfg: SandboxConfig, env: Env | None,
                   safe: dict[str, repo_tripwire.Safe]) -> dict[str, repo_tripwire.Safe]:
    """Per host, the points `safe` keeps, the copies of its `copies` (None: every one) a probe on the gold tree
    reported failing (unchecked where the gold patch does not apply) and the unchanged copies of its `twins`
    that ran as their originals there too."""
    spec: RepoSpec = task.spec
    gold = _gold_tree(task, cfg)
    probe = repo_tripwire.plan_all(spec.command, gold, safe, spec.fail_to_pass, probe=True) \
        if gold is not None else None
    if probe is None:
        return safe
    res = _run(task, cfg, env, gold, 0, _run_ids(spec), lambda _spec, _work: probe)
    found = {one.origin: (*repo_tripwire.proven(one, res.raw), repo_tripwire.twins(one, res.raw))
             for one in probe.plans}
    return {h: repo_tripwire.Safe(s.points, found[h][0], s.twins & found[h][2], found[h][1]) if h in found else s
            for h, s in safe.items()}


_GOLD_TREES: dict[str, Path | None] = {}


def _gold_tree(task: Task, cfg: SandboxConfig) -> Path | None:
    """The base tree with the gold patch applied and the hidden tests staged, once per process and content
    digest; None when the gold patch does not apply."""
    spec: RepoSpec = task.spec
    with _TREES_LOCK:
        if spec.digest not in _GOLD_TREES or (_GOLD_TREES[spec.digest] and not _GOLD_TREES[spec.digest].is_dir()):
            tree = repo_patch.fresh_copy(spec.tree, scratch("loop-gold-") / "repo")  # removed at exit
            applied = task.reference and repo_patch.apply(task.reference, tree, cfg) is None
            if applied:
                _stage_hidden(spec, tree)
            _GOLD_TREES[spec.digest] = tree if applied else None
        return _GOLD_TREES[spec.digest]


_SEALS: dict[tuple, dict] = {}


def _seals(task: Task, cfg: SandboxConfig, env: Env | None) -> dict:
    """The keys of the assertions a candidate's runs seal (in seal.files_of's files), each with the rows (-1: not a
    table's) a candidate's passing run must send from and how the gold run's records were compared (seal._mark):
    those that, sealed, send the gold tree's test run a plain value equal to their literal on every record (at least
    one, and no two for one literal), in a run whose report passes every fail-to-pass test. An assertion the gold patch
    passes only through a value loop cannot serialize, or an `__eq__` of its own, stays as it is: sealing never
    fails an honest tree that the original check passes. Run once per task (remembered); a gold patch that does
    not apply seals nothing."""
    spec: RepoSpec = task.spec
    if repo_tripwire.framework(spec.command) is None:
        return {}
    key = (spec.digest, spec.command, cfg, str(env and env.path))
    if key in _SEALS:
        return _SEALS[key]
    name = remembered.key(task, cfg, env, "seal-floors-5")  # (key, marks): seal._mark's (row, iface, bits, test)
    try:
        keep = {k: frozenset(marks) for k, marks in remembered.keys(remembered.recall(name))}
        if not all(len(m) == 4 and all(type(x) is int for x in m[:3]) and type(m[3]) is str
                   for marks in keep.values() for m in marks):
            raise ValueError("not a mark")
    except (ValueError, TypeError):
        gold = _gold_tree(task, cfg)
        keep, faulted = {}, False
        try:
            if gold is not None:
                # a parametrize table whose ids loop computes is sealed only if the base tree's run has them all
                known = repo_seal.Every(frozenset(baseline(task, cfg, env, 0)))
                res = _run(task, cfg, env, gold, 0, _run_ids(spec), seals=known)
                got = res.outcomes or {}
                if res.seals and all(t in res.seals.failed or got.get(t, Outcome(V.FAIL)).status == V.PASS
                                     for t in spec.fail_to_pass):  # the sealed file collects and runs them
                    keep = res.seals.floors(got)
                faulted = res.fault is not None
        except SandboxUnavailable:
            return {}  # the attempts say so; nothing cached
        if not faulted:
            remembered.remember(name, remembered.plain(frozenset((k, tuple(sorted(m))) for k, m in keep.items())))
    return _SEALS.setdefault(key, keep)


def _run_ids(spec: RepoSpec) -> list[str] | None:
    return None if spec.pass_to_pass is None else list(spec.fail_to_pass + spec.pass_to_pass)
