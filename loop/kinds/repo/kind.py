"""The `repo` kind: the candidate is a unified diff to a repository at its base; it is graded by running the
repository's own test command in the sandbox, on the base tree and on the patched tree, per test id.

A task folder holds task.toml, the tree (`repo/`, or a git bundle and a commit), hidden tests (staged after
the patch), a gold patch and optionally an environment (requirements, package.json or go.mod); see
harness/tasks/repo_*/task.toml and the README's "Repository tasks". The tests run in
the candidate's process (that is what a test command is), so a report is decoded totally and a test id
missing from it counts as failing, never as passing.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from loop import prompts
from loop import verdicts as V
from loop.errors import HarnessError, SandboxUnavailable, TaskError
from loop.grading import triage
from loop.grading.conclude import conclude, grade_without_attempts
from loop.grading.model import Attempt, Check, Grade, Options
from loop.grading.triage import transition
from loop.kinds.repo import changes as repo_changes
from loop.kinds.repo import env as repo_env
from loop.kinds.repo import hints
from loop.kinds.repo import metadata as repo_metadata
from loop.kinds.repo import patch as repo_patch
from loop.kinds.repo import results as repo_results
from loop.kinds.repo import screen as repo_screen
from loop.kinds.repo import seal as repo_seal
from loop.kinds.repo import tree as repo_tree
from loop.kinds.repo import tripwire as repo_tripwire
from loop.kinds.repo.env import Env, EnvSpec
from loop.kinds.repo.results import PARSERS, Outcome
from loop.kinds.repo.spec import RepoSpec, RepoTask
from loop.kinds.repo.reference import (_run_ids, _seals, _stage_hidden, baseline, known_tripwire_points,
                                      tripwire_points)
from loop.kinds.repo.testrun import Early, Tripwires, fresh_tripwires, run_tests, start_early
from loop.kinds.task import NOTE, Task, Test, check_keys
from loop.prompts.render import load_template
from loop.sandbox import Limits, SandboxConfig, clean_env, make_scratch, pythons

KEYS = {"name", "kind", "language", "description", "bug_report", "repo", "context", "test_command", "parser",
        "test_paths", "hidden_tests", "gold_patch", "fail_to_pass", "pass_to_pass", "environment", "limits",
        "toolchain", "commit", "allow_test_infrastructure", "python"}
TEST_COMMAND = "test_command"  # the check of a run that wrote no readable report


def _strings(meta: dict, key: str, where: Path, required: bool = True) -> tuple[str, ...] | None:
    value = meta.get(key)
    if value is None and not required:
        return None
    if not (isinstance(value, list) and all(isinstance(v, str) and v for v in value)):
        raise TaskError(f"{where}: key '{key}' must be a list of non-empty strings")
    return tuple(value)


def _digest(*folders: Path | None) -> str:
    h = hashlib.sha256()
    for folder in folders:
        if folder is None:
            continue
        for p in sorted(x for x in folder.rglob("*") if x.is_file() and "__pycache__" not in x.parts):
            h.update(str(p.relative_to(folder)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


class RepoKind:
    name = "repo"

    # loading ------------------------------------------------------------------------------------------
    def load(self, folder: Path, meta: dict) -> Task:
        where = folder / "task.toml"
        check_keys(where, meta, KEYS, ("description", "bug_report", "repo", "parser", "gold_patch"))
        tree = folder / meta["repo"]
        if "commit" in meta:  # a git bundle and the commit whose tree is the base
            if not isinstance(meta["commit"], str):
                raise TaskError(f"{where}: key 'commit' must be a string")
            tree = repo_tree.from_bundle(tree, meta["commit"])
        elif not tree.is_dir():
            raise TaskError(f"{tree}: the repository folder is missing")
        if meta["parser"] not in PARSERS:
            raise TaskError(f"{where}: parser '{meta['parser']}' is not one of {', '.join(sorted(PARSERS))}")
        command = _strings(meta, "test_command", where)
        python, command = _python(meta, command, where)
        early = repo_tripwire.stops_early(command)
        if early:
            raise TaskError(f"{where}: test_command has '{early}', which stops at the first failing test; every "
                            "test must run (loop's tripwire tests fail on purpose)")
        context = _strings(meta, "context", where)
        for rel in context:
            if not (tree / rel).is_file():
                raise TaskError(f"{tree / rel}: context file is missing")
        hidden = folder / meta["hidden_tests"] if "hidden_tests" in meta else None
        if hidden is not None and not hidden.is_dir():
            raise TaskError(f"{hidden}: hidden tests folder is missing")
        hidden_files = tuple(sorted(str(p.relative_to(hidden)) for p in hidden.rglob("*") if p.is_file())) if hidden else ()
        gold = folder / meta["gold_patch"]
        if not gold.is_file():
            raise TaskError(f"{gold}: gold patch file is missing")
        environment = _environment_spec(meta.get("environment", {}), folder, tree, where)
        requirements = dict(environment.files)["requirements.txt"] if environment and environment.kind == "requirements" else None
        f2p = _strings(meta, "fail_to_pass", where)
        p2p = _strings(meta, "pass_to_pass", where, required=False)
        try:
            limits = Limits(**{"wall": 120.0, "tmpfs_mb": 256, **meta.get("limits", {})})
        except TypeError as exc:
            raise TaskError(f"{where}: bad [limits] ({exc})") from None
        spec = RepoSpec(tree=tree, hidden=hidden, hidden_files=hidden_files, context=context, command=command,
                        parser=meta["parser"], test_paths=_strings(meta, "test_paths", where, False) or ("tests/",),
                        fail_to_pass=f2p, pass_to_pass=p2p, requirements=requirements,
                        toolchain=(_strings(meta, "toolchain", where, False) or (command[0],))
                        + ((f"python {meta['python']}",) if "python" in meta and python is None else ()),
                        python=python, paths=_editable_paths(environment, tree),
                        digest=_digest(tree, hidden), environment=environment,
                        stdout_report=not any("{report}" in a for a in command),
                        allowed=_strings(meta, "allow_test_infrastructure", where, False) or ())
        tests = tuple(Test(t, V.F2P, ("smoke", "full"), (), None) for t in f2p)
        tests += tuple(Test(t, V.P2P, ("full",), (), None) for t in p2p or ())
        return RepoTask(name=meta["name"], path=folder, language=str(meta.get("language", "repo")), entry_point="",
                        candidate_file="candidate.diff", description=meta["description"],
                        bug_report=meta["bug_report"].strip(), contract=shlex.join(command),
                        contract_file="task.toml", baseline=None, reference=gold.read_text(encoding="utf-8"),
                        tests=tests, goldens=(), limits=limits, kind=self.name, spec=spec)

    # grading ------------------------------------------------------------------------------------------
    def grade(self, task: Task, source: str | None, cfg: SandboxConfig, opts: Options,
              quarantined: frozenset = frozenset()) -> Grade:
        spec: RepoSpec = task.spec
        if source is None or not source.strip():
            return grade_without_attempts(task, source, opts, cfg, V.NO_CODE, "the reply held no diff")
        tool = missing_tool(spec)
        if tool:
            return grade_without_attempts(task, source, opts, cfg, V.INFRA_UNKNOWN, _tool_warning(task, tool), V.INFRA_UNKNOWN)
        work, early = make_scratch("loop-repo-"), None
        try:
            protected, hidden = list(spec.test_paths) + _test_files(spec), list(spec.hidden_files)
            # SWE-bench's rules run what loop refuses for touching tests; that refusal then fails every attempt
            # beside the tests instead (an integrity check)
            swebench = opts.rules == "swebench"
            tests = ([], []) if swebench else (protected, hidden)
            refusal = repo_patch.refuse(source, spec.tree, *tests)  # the diff's names: a first fence
            if refusal:
                return grade_without_attempts(task, source, opts, cfg, refusal.check, refusal.detail)
            early = _start_early(task, cfg)  # the first repeat's sandbox starts beside the patch step
            patched = repo_patch.fresh_copy(spec.tree, work / "patched")
            rejected = repo_patch.apply(source, patched, cfg)
            if rejected is not None:
                return grade_without_attempts(task, source, opts, cfg, repo_patch.PATCH_DOES_NOT_APPLY, rejected)
            # What decides: the files the patch changed in the copy, however its headers were written
            changes = repo_changes.between(spec.tree, patched)
            refusal = repo_patch.refuse_changes(changes, spec.tree, *tests)
            if refusal:
                return grade_without_attempts(task, source, opts, cfg, refusal.check, refusal.detail)
            integrity = []
            touched = repo_patch.refuse_changes(changes, spec.tree, protected, hidden) if swebench else None
            if touched:
                integrity.append(Check(touched.check, touched.check, False, touched.detail))
            _stage_hidden(spec, patched)  # (the screen reads the test files a Go package's names must keep)
            infrastructure = repo_screen.screen(changes, spec.tree, patched, spec.allowed)
            if infrastructure and not swebench:
                return grade_without_attempts(task, source, opts, cfg, repo_screen.TOUCHES_TEST_INFRASTRUCTURE,
                                              infrastructure)
            if infrastructure:
                integrity.append(Check(repo_screen.TOUCHES_TEST_INFRASTRUCTURE, repo_screen.TOUCHES_TEST_INFRASTRUCTURE,
                                       False, infrastructure))
            try:
                env = _environment(spec, cfg)
            except HarnessError as exc:
                return grade_without_attempts(task, source, opts, cfg, V.INFRA_UNKNOWN, str(exc), V.INFRA_UNKNOWN)
            ids = _ids(task, cfg, env)
            # The repeats run side by side over the cores, each beside its base-tree run (both remembered
            # after the first grade, as the probes and seals are: see reference.py)
            with ThreadPoolExecutor(max(1, min(2 * opts.k, os.cpu_count() or 1)),
                                    thread_name_prefix="loop-repeat") as pool:
                sealing = pool.submit(_seals, task, cfg, env)  # the gold tree's run, beside the probes
                allowed = tripwire_points(task, cfg, env)
                if isinstance(allowed, str):
                    return grade_without_attempts(task, source, opts, cfg, V.INFRA_UNKNOWN, allowed, V.INFRA_UNKNOWN)
                wires = fresh_tripwires(allowed) if allowed is not None else None
                # Each repeat compiles the patch from the warm cache again: a build cache a repeat wrote holds
                # what the candidate's code wrote into it while it ran, which would then decide its later repeats.
                seals = sealing.result()
                bases = [pool.submit(baseline, task, cfg, env, repeat) for repeat in range(opts.k)]
                # at k=1 the one run takes the patched tree itself
                runs = list(pool.map(lambda r: _attempt(task, cfg, env, patched, ids, r, opts.seed, quarantined,
                                                        wires, seals, bases[r], opts.k == 1, early if r == 0 else None),
                                     range(opts.k)))
            attempts = [a for a, _ in runs]
            for attempt in attempts:
                if attempt.status != V.INFRA_UNKNOWN:
                    attempt.checks[0:0] = [replace(c) for c in integrity]
            # The digest leaves out unstable fixtures: their outcome varies by design, not by the candidate.
            unstable = {name.removeprefix("test:") for name in triage.unstable_fixtures(attempts)}
            for attempt, outcomes in runs:
                if attempt.status != V.INFRA_UNKNOWN:
                    attempt.digest = _digest_of({t: o for t, o in outcomes.items() if t not in unstable})
            _taint(attempts)
            grade = conclude(task, source, opts, cfg, attempts)
            if repo_tripwire.framework(spec.command) is None:
                grade.notes.append(f"no tripwire tests for this test command ({spec.command[0]}): its report "
                                   "is not corroborated")
            elif bare := [h for h, safe in allowed.items() if not safe.points] or ([] if allowed else ["any test file"]):
                more = f" and {len(bare) - 3} more" if len(bare) > 3 else ""
                grade.notes.append(f"no place where a tripwire test runs as written in {', '.join(bare[:3])}{more} "
                                   "(checked on the base tree): the report of its tests is not corroborated")
            return grade
        finally:
            if early is not None:
                early.cancel()  # (nothing, once its run went)
            shutil.rmtree(work, ignore_errors=True)

    # prompt -------------------------------------------------------------------------------------------
    def prompt(self, task: Task, cfg: SandboxConfig) -> list[dict]:
        """Bug report, context files with line numbers and the test command; never hidden tests or the gold patch."""
        spec: RepoSpec = task.spec
        shown = []
        for rel in spec.context:
            lines = (spec.tree / rel).read_text(encoding="utf-8").splitlines()
            width = len(str(len(lines)))
            numbered = "\n".join(f"{n:>{width}} | {line}" for n, line in enumerate(lines, 1))
            ticks = "`" * max(3, max((len(r) for r in numbered.split() if set(r) == {"`"}), default=0) + 1)
            shown.append(f"`{rel}`:\n\n{ticks}\n{numbered}\n{ticks}")
        values = {"task_name": task.name, "description": task.description, "bug_report": task.bug_report,
                  "context": "\n\n".join(shown), "test_command": task.contract}
        sections = load_template(prompts.template("repair_repo.md"))
        return [{"role": "system", "content": sections["system"].safe_substitute(values).strip()},
                {"role": "user", "content": sections["user"].safe_substitute(values).strip()}]

    def extract(self, task: Task, reply: str) -> str | None:
        """A unified diff, or a reply of whole files (one fenced block per path) turned into one."""
        return repo_patch.extract_diff(reply, task.spec.tree)

    # environment --------------------------------------------------------------------------------------
    def unavailable(self, task: Task) -> str | None:
        """Why this machine cannot grade the task (a missing toolchain), or None."""
        tool = missing_tool(task.spec)
        return _tool_warning(task, tool) if tool else None

    def prepare(self, task: Task, cfg: SandboxConfig) -> str:
        """Build the task's environment now (what a grade would otherwise do on first use); says what it did."""
        spec: RepoSpec = task.spec
        if spec.environment is None:
            return "no environment to build"
        if self.unavailable(task):
            return self.unavailable(task)
        try:
            env = _environment(spec, cfg)
        except HarnessError as exc:
            raise TaskError(f"task '{task.name}': {exc}") from None
        what = f"{spec.environment.kind} environment {env.path.name}"
        return f"{what} built in {env.built:.1f} s" if env.built is not None else f"{what} already built"

    # polarity -----------------------------------------------------------------------------------------
    def polarity(self, task: Task, cfg: SandboxConfig) -> list[str]:
        """Every f2p test fails on the base tree, every p2p test passes there, the gold patch passes all."""
        spec: RepoSpec = task.spec
        if missing_tool(spec):
            return []  # not a problem with the task: `loop tasks check` names it (unavailable), grades say inconclusive
        try:
            env = _environment(spec, cfg)
        except HarnessError as exc:
            return [f"{task.name}: {hints.build_failed(task, str(exc))}"]
        try:
            base = baseline(task, cfg, env, 0)
        except TaskError as exc:
            return [hints.redirect(task, str(exc))]
        problems = []
        said = next((o.message for o in base.values() if o.status != V.PASS and "No module named" in o.message), None)
        if said and spec.requirements is not None:
            problems.append(f"{task.name}: {hints.missing_module(task, said)}")
        for t in spec.fail_to_pass + (spec.pass_to_pass or ()):
            full = repo_results.prefixed(base, t) if repo_results.truncated(t) else []
            if len(full) > 1:  # graded as SWE-bench grades it (results.with_truncated): said, not refused
                problems.append(f"{NOTE}{task.name}: test id '{t}' (cut at a space, as SWE-bench's log parser cuts "
                                f"ids) stands for {len(full)} tests ({', '.join(repr(f) for f in full[:4])}"
                                f"{', ...' if len(full) > 4 else ''}): it passes when none of them fails and one passes, "
                                "as SWE-bench records it")
        for t in spec.fail_to_pass:
            if t not in base:
                problems.append(f"{task.name}: f2p test '{t}' is not in the base tree's report")
            elif base[t].status == V.PASS:
                problems.append(f"{task.name}: f2p test '{t}' passes on the base tree")
        for t in spec.pass_to_pass or ():
            if base.get(t, Outcome(V.FAIL)).status != V.PASS:
                problems.append(f"{task.name}: p2p test '{t}' does not pass on the base tree")
        gold = self.grade(task, task.reference, cfg, Options(k=1, trials=0))
        if gold.verdict != V.STABLE_PASS:
            failed = ", ".join(f["check"] for f in gold.failures()[:3]) or gold.verdict
            problems.append(f"{task.name}: the gold patch does not pass ({failed})")
        return problems


def missing_tool(spec: RepoSpec) -> str | None:
    """The first toolchain program not installed where the sandbox looks for it (/usr/bin:/bin)."""
    return next((tool for tool in spec.toolchain if tool_missing(tool)), None)


def tool_missing(tool: str) -> bool:
    """A program the sandbox cannot start: neither an existing absolute path nor on /usr/bin:/bin."""
    return not (tool.startswith("/") and Path(tool).exists()) and shutil.which(tool, path="/usr/bin:/bin") is None


def _tool_warning(task: Task, tool: str) -> str:
    if tool.startswith("python "):  # the task's `python`, not found (see _python)
        return f"{task.name}: {pythons.missing(tool.removeprefix('python '))}; grades are inconclusive until it is"
    return f"{task.name}: toolchain '{tool}' is not installed on this machine; grades are inconclusive until it is"


_PYTHON_ARGV0 = re.compile(r"^python(\d(\.\d+)?)?$")


def _python(meta: dict, command: tuple[str, ...], where: Path) -> tuple[str | None, tuple[str, ...]]:
    """task.toml's `python` ("3.9" or a path): the interpreter found for it (None: not on this machine, which
    makes the task unavailable, not broken), and the test command running it where it says python/python3."""
    want = meta.get("python")
    if want is None:
        return None, command
    if not isinstance(want, str) or not (want.startswith("/") or re.fullmatch(r"\d+\.\d+", want)):
        raise TaskError(f"{where}: key 'python' must be a version (\"3.9\") or an absolute path, got {want!r}")
    found = pythons.find(want)
    if found is None or not _PYTHON_ARGV0.match(command[0]):
        return found, command
    return found, (found, *command[1:])


def _test_files(spec: RepoSpec) -> list[str]:
    """The files that hold named tests (the part of a pytest node id before '::'): a patch may not edit them."""
    return sorted({t.split("::", 1)[0] for t in spec.fail_to_pass + (spec.pass_to_pass or ())
                   if "::" in t and "/" in t.split("::", 1)[0]})


def _environment_spec(table: dict, folder: Path, tree: Path, where: Path) -> EnvSpec | None:
    """[environment]: `requirements` (a file in the task folder), `npm` (a package.json in the tree, with its
    package-lock.json when there is one) or `go` (a go.mod in the tree, with its go.sum)."""
    if not isinstance(table, dict):
        raise TaskError(f"{where}: [environment] must be a table")
    unknown = set(table) - set(repo_env.KINDS) - {"install", "exclude_newer"}
    if unknown:
        raise TaskError(f"{where}: unknown key 'environment.{sorted(unknown)[0]}' "
                        f"(known: {', '.join(repo_env.KINDS)}, install, exclude_newer)")
    table = dict(table)
    install, newer = table.pop("install", None), table.pop("exclude_newer", None)
    if install not in (None, "editable") or (install and "requirements" not in table):
        raise TaskError(f"{where}: key 'environment.install' must be \"editable\", beside environment.requirements")
    if newer is not None and not (isinstance(newer, str) and re.fullmatch(r"\d{4}-\d\d-\d\d([T ][0-9:.]+(Z|[+-]\d\d:?\d\d)?)?", newer)
                                  and "requirements" in table):
        raise TaskError(f"{where}: key 'environment.exclude_newer' must be a date (2021-05-13 or "
                        f"2021-05-13T22:09:50Z), beside environment.requirements; got {newer!r}")
    if len(table) > 1:
        raise TaskError(f"{where}: [environment] takes one of {', '.join(repo_env.KINDS)}, not several")
    if not table:
        return None
    kind, rel = next(iter(table.items()))
    if not isinstance(rel, str) or not rel:
        raise TaskError(f"{where}: key 'environment.{kind}' must be a file name")
    base = folder if kind == "requirements" else tree
    path = base / rel
    if not path.is_file():
        raise TaskError(f"{path}: {kind} file named by environment.{kind} is missing")
    name = {"requirements": "requirements.txt", "npm": "package.json", "go": "go.mod"}[kind]
    files = [(name, path.read_text(encoding="utf-8"))]
    lock = {"npm": "package-lock.json", "go": "go.sum"}.get(kind)
    if lock and (path.parent / lock).is_file():
        files.append((lock, (path.parent / lock).read_text(encoding="utf-8")))
    if kind == "npm":
        try:
            json.loads(files[0][1])
        except ValueError as exc:
            raise TaskError(f"{path}: not JSON ({exc})") from None
    if install:  # what an editable install leaves: the project's metadata; its code stays the tree's, at /repo
        dist = repo_metadata.dist_info(repo_metadata.from_tree(tree))
        if not dist:
            raise TaskError(f"{where}: environment.install = \"editable\", but {tree} declares no project name "
                            "(pyproject.toml [project], setup.cfg [metadata] or setup.py)")
        files += [(f"site/{rel}", text) for rel, text in dist]
    if kind != "go":
        return EnvSpec(kind, tuple(files), exclude_newer=newer)
    return EnvSpec(kind, tuple(files), tree, _digest(tree))  # go: the base tree compiled into the warm cache


def _editable_paths(environment: EnvSpec | None, tree: Path) -> tuple[str, ...]:
    """What an editable install puts on the path: a src layout's src/ (a flat one is the working folder)."""
    editable = environment is not None and any(n.startswith("site/") for n, _ in environment.files)
    return ("/repo/src",) if editable and any((tree / "src").glob("*/__init__.py")) else ()


def _environment(spec: RepoSpec, cfg: SandboxConfig, build: bool = True) -> Env | None:
    """The task's environment (None without one); `build` False: None too while it is not built."""
    if not spec.environment:
        return None
    return (repo_env.ensure if build else repo_env.built)(spec.environment, spec.python or cfg.interpreter())


def _start_early(task: Task, cfg: SandboxConfig) -> Early | None:
    """The first repeat's sandbox started before its tree is ready (testrun.start_early), once the task's
    environment and tripwire points are known: never a build or a probe ahead of the patch's own checks."""
    spec: RepoSpec = task.spec
    env = _environment(spec, cfg, build=False)
    allowed = known_tripwire_points(task, cfg, env)
    if allowed is None or (spec.environment and env is None):
        return None
    return start_early(task, cfg, env, 0, [host for host, safe in allowed.items() if safe.points])


def _ids(task: Task, cfg: SandboxConfig, env: Env | None) -> list[tuple[str, str]]:
    """(test id, f2p|p2p) graded per attempt; omitted pass_to_pass = every test passing on the base tree
    (its first repeat: a test that then fails on another repeat shows up as an unstable fixture)."""
    spec: RepoSpec = task.spec
    if spec.pass_to_pass is not None:
        p2p = list(spec.pass_to_pass)
    else:
        base = baseline(task, cfg, env, 0)
        p2p = sorted(t for t, o in base.items() if o.status == V.PASS and t not in spec.fail_to_pass)
    return [(t, V.F2P) for t in spec.fail_to_pass] + [(t, V.P2P) for t in p2p]


def _taint(attempts: list[Attempt]) -> None:
    """One forged report makes every graded attempt of the candidate fail with it: a forger that forges
    only now and then is not `flaky`."""
    forged = next((c for a in attempts for c in a.checks if c.check == repo_tripwire.FORGED_REPORT), None)
    if forged is None:
        return
    for a in attempts:
        if a.status != V.INFRA_UNKNOWN and not any(c.check == forged.check for c in a.checks):
            a.checks.insert(0, Check(forged.check, "fault", False, f"{forged.detail} (in another repeat)"))


def _digest_of(outcomes: dict[str, Outcome]) -> str:
    return hashlib.sha256(json.dumps(sorted((t, o.status) for t, o in outcomes.items())).encode()).hexdigest()[:12]


def _attempt(task: Task, cfg: SandboxConfig, env: Env | None, patched: Path, ids: list[tuple[str, str]],
             repeat: int, seed: int, quarantined: frozenset, wires: Tripwires | None,
             seals: dict, base_run: Future, last: bool = False, early: Early | None = None
             ) -> tuple[Attempt, dict[str, Outcome]]:
    """One repeat on the patched tree, against the base tree's outcomes of the same repeat (`base_run`,
    submitted before it, so never queued behind it); `early`: its sandbox, if started already."""
    spec: RepoSpec = task.spec
    try:
        res = run_tests(task, cfg, env, patched, repeat, _run_ids(spec), wires, seals, consume=last, early=early)
        base = base_run.result()
    except SandboxUnavailable as exc:
        return Attempt(repeat, V.INFRA_UNKNOWN, str(exc), None, "", 0.0, seed, clean_env(repeat)), {}
    got = res.outcomes or {}
    checks = [Check(repo_tripwire.FORGED_REPORT, "fault", False, res.forged)] if res.forged else []
    for test_id, test_kind in ids:
        base_out = V.PASS if base.get(test_id, Outcome(V.FAIL)).status == V.PASS else V.FAIL
        outcome = got.get(test_id)
        passed = outcome is not None and outcome.status == V.PASS
        cand = V.PASS if passed else V.FAIL
        detail = "" if passed else ("missing from the test report" if outcome is None
                                    else (outcome.message.strip().splitlines() or [outcome.status])[0][:300])
        name = f"test:{test_id}"
        decided_by = repo_seal.decided_by(res.seals, test_id, repo_tripwire.guards(res.wires, test_id, spec.tree))
        checks.append(Check(name, "test", passed, detail, test_kind=test_kind, baseline=base_out, candidate=cand,
                            transition=transition(base_out, cand), quarantined=name in quarantined,
                            decided_by=decided_by))
    if res.fault is not None:
        checks.append(Check(res.fault.check, "fault", False, res.fault.detail, quarantined=res.fault.check in quarantined))
    elif res.outcomes is None:
        tail = "\n".join(res.stderr.strip().splitlines()[-5:])
        checks.append(Check(TEST_COMMAND, "fault", False,
                            f"the test command wrote no readable report (exit status {res.exit_code}): {tail}"[:600]))
    attempt = Attempt(repeat, V.PASS, None, res.exit_code, _digest_of(got), round(res.duration, 3), seed,
                      clean_env(repeat), checks)
    return attempt, got


KIND = RepoKind()
