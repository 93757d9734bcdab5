"""One run of a repository's test suite in the sandbox: the command with its mounts, a warm Go cache, the
report it wrote (read capped and parsed totally), the outcome per test id."""

from __future__ import annotations

import functools
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from loop.errors import CandidateFault
from loop.kinds.repo import env as repo_env
from loop.kinds.repo import gorun as repo_gorun
from loop.kinds.repo import patch as repo_patch
from loop.kinds.repo import seal as repo_seal
from loop.kinds.repo import seal_js_go as repo_seal_js_go
from loop.kinds.repo import tripwire as repo_tripwire
from loop.kinds.repo.env import Env
from loop.kinds.repo.results import Outcome, parse, selector, with_truncated
from loop.kinds.repo.spec import RepoSpec
from loop.kinds.task import Task
from loop.sandbox import SandboxConfig, clean_env, make_scratch, pythons, run, stage
from loop.sandbox.channel import Channel

REPORT = "/out/report.xml"
REPORT_CAP = 32 << 20  # bytes of a report file read: more is no report
NODE_PRELOAD = Path(__file__).resolve().parents[2] / "sandbox" / "inside" / "node_assert_locked.cjs"
PRELOADS = "/loop"  # loop's own files for the test processes, read-only, outside /repo



def _host_paths(value: str, mounts: dict[str, str]) -> str:
    """--no-sandbox: a sandbox path anywhere in an argument or variable becomes the host folder it names."""
    if value in mounts:
        return mounts[value]
    # one pass, so a host path put in (itself under /tmp) is never rewritten again
    alternatives = "|".join(re.escape(d) for d in sorted(mounts, key=len, reverse=True))
    return re.sub(f"(?:^|(?<=[=:]))({alternatives})(?=/)", lambda m: mounts[m.group(1)], value)


@dataclass
class RunResult:
    outcomes: dict[str, Outcome] | None  # None: no readable report
    exit_code: int | None
    fault: CandidateFault | None
    stderr: str
    duration: float
    forged: str | None = None  # what in the report contradicts the tripwires
    wires: repo_tripwire.Planted | None = None  # the tripwires the run had
    raw: dict[str, Outcome] | None = None  # the outcomes with the tripwires' own
    seals: repo_seal.Judged | None = None  # the sealed assertions' records and the tests they decided


Tripwires = Callable[[RepoSpec, Path], "repo_tripwire.Planted | None"]


def fresh_tripwires(allowed: dict[str, repo_tripwire.Safe]) -> Tripwires:
    """Fresh tripwires for every run, in each host file at the points the base tree showed safe
    (reference.tripwire_points)."""
    return lambda spec, work: repo_tripwire.plan_all(spec.command, work, allowed, spec.fail_to_pass)


def run_tests(task: Task, cfg: SandboxConfig, env: Env | None, tree: Path, repeat: int,
              ids: list[str] | None, tripwires: Tripwires | None = None, seals=None, consume: bool = False) -> RunResult:
    """Run the test command once, sandboxed, in a fresh copy of `tree`; parse the report (a file, or the
    command's standard output) in the parent. `ids` None runs every test. Network is off (bubblewrap
    --unshare-all); the environment is read-only, except a private copy of Go's build cache. `tripwires`:
    what plans the tripwire tests planted first, by which the report is judged (a candidate's tree). `seals`:
    the keys of the assertions to seal (seal.EVERY: all that qualify), None for none; a dict (`Judged.floors` of
    the gold run): each key's rows, which a passing test's check must send values from, and how each row's
    value is compared. `consume`: `tree` is given up to this run (the caller's last use of it, on the same file
    system): moved into the run's folder, not copied (a SWE-bench tree holds thousands of files)."""
    spec: RepoSpec = task.spec
    limits = task.limits
    scratch = make_scratch("loop-run-")
    try:
        work = repo_patch.moved(tree, scratch / "repo") if consume else repo_patch.fresh_copy(tree, scratch / "repo")
        if ids is not None:  # an id SWE-bench truncated selects its function; the report says which one it was
            ids = list(dict.fromkeys(selector(t) for t in ids))
        # sealed assertions first: the tripwires are planned on the sealed file, so no copy carries a sealed literal
        # (on its cached plan's text, with ids every run shares: this run's are swapped in after the tripwires)
        style = repo_tripwire.framework(spec.command)
        sealing = None
        # the sealed checks' records leave through a FIFO only loop can read (red team, round ten); drained here
        channel = Channel(scratch / "channel", repo_seal.CHANNEL, scratch / repo_seal.CHANNEL, repo_seal.CHANNEL_CAP)
        if seals is not None and style is not None:
            # a candidate's run (`seals` a dict) seals the files of the gold run's kept seals, all of files_of's
            files = list(dict.fromkeys(k[0] for k in seals)) if isinstance(seals, dict) else repo_seal.files_of(
                spec.hidden_files, spec.fail_to_pass + (spec.pass_to_pass or ()),
                spec.tree if spec.pass_to_pass is None else None)
            sealing = repo_seal.seal_tree(work, spec.tree, files, channel.inside(cfg.enabled), seals, style,
                                          channel.fifo)
        wires = tripwires(spec, work) if tripwires else None
        if wires is not None:
            repo_tripwire.plant(wires, work)
            if ids is not None and repo_tripwire.framework(spec.command) == "pytest":
                ids = repo_tripwire.among(ids, [w.test_id for w in wires.wires])
        sealed = repo_seal.fresh(work, sealing) if sealing is not None else ()
        ids = repo_seal.selecting(sealed, ids)  # a parametrize table's rows have fresh ids in the sealed copy
        out = scratch / "out"
        out.mkdir()
        out.chmod(0o777)
        argv = []
        for arg in spec.command:
            if arg == "{tests}":
                argv += ids or []
            else:
                argv.append(arg.replace("{report}", REPORT))
        envvars = {**clean_env(repeat), "PYTHONDONTWRITEBYTECODE": "1"}
        if spec.toolchain[0] == "go" or (env is not None and env.variables.get("GOPROXY")):
            envvars.update(repo_env.GO_VARS)  # never the module proxy, even for a go.mod without [environment]
        # The hidden tests (tripwires included) are read-only inside: code under test cannot rewrite them on
        # disk before the runner reads them.
        hosts = [p.host for p in wires.plans] if wires else []
        if style == "node" and cfg.enabled:  # the assert lock in each graded file too: a process may start node
            for rel in {*hosts, *(s.file for s in sealed)}:  # without NODE_OPTIONS (red team round fifteen)
                path = work / rel
                if path.is_file() and not path.is_symlink():
                    path.write_text(repo_seal_js_go.with_lock(path.read_text(encoding="utf-8"), rel,
                                                              f"{PRELOADS}/{NODE_PRELOAD.name}"), encoding="utf-8")
        ro = {f"/repo/{rel}": str(work / rel) for rel in {*spec.hidden_files, *hosts}
              if (work / rel).is_file() and not (work / rel).is_symlink()} if cfg.enabled else {}
        ro.update(channel.binds(cfg.enabled))
        rw = {"/repo": str(work), "/out": str(out)}
        if spec.python and cfg.enabled:  # the task's interpreter, at its own path whatever its prefix
            ro.update(pythons.binds(spec.python))
        if env is not None:
            envvars.update(env.variables)
            ro.update(env.mounts)
            if env.gocache is not None and not cfg.enabled:  # --no-sandbox: no tmpfs of its own, so a host copy
                rw["/gocache"] = str(repo_patch.fresh_copy(env.gocache, scratch / "gocache"))
                envvars["GOCACHE"] = "/gocache"
        if spec.toolchain[0] == "go" and cfg.enabled:
            argv, extra = _go_run(argv, env.gocache if env is not None else None, ro)
            envvars.update(GOCACHE=GOCACHE, GOTMPDIR=GOTMPDIR,
                           GOFLAGS=" ".join(filter(None, [envvars.get("GOFLAGS"), f"-exec={repo_gorun.MOUNT}"])))
            limits = replace(limits, tmpfs_mb=limits.tmpfs_mb + extra)
        if style == "node":  # node's assert objects locked before any candidate code runs (ROUND7, cause 3)
            ro[PRELOADS] = str(_node_preload(scratch))
            envvars["NODE_OPTIONS"] = " ".join(filter(None, [envvars.get("NODE_OPTIONS"),
                                                            f"--require={PRELOADS}/{NODE_PRELOAD.name}"]))
        if spec.paths:
            envvars["PYTHONPATH"] = ":".join([*filter(None, [envvars.get("PYTHONPATH")]), *spec.paths])
        if not cfg.enabled:  # --no-sandbox: the mount points become the host folders they name
            mounts = {**ro, **rw, "/tmp": str(scratch)}
            envvars = {k: _host_paths(v, mounts) for k, v in envvars.items()}
            if "/node_modules" in ro and not (work / "node_modules").exists():
                (work / "node_modules").symlink_to(ro["/node_modules"])
            argv = ["/usr/bin/env", "-C", str(work), *[_host_paths(a, mounts) for a in argv]]
        with channel:
            result = run(cfg, argv, limits=limits, env=envvars, ro=ro, rw=rw, cwd="/repo", address_space=False)
        if spec.stdout_report:
            text = result.stdout.decode("utf-8", errors="replace")
        else:  # written by the candidate's process: never followed through a link, never read past the cap
            raw = repo_patch.read_capped(out / "report.xml", REPORT_CAP)
            text = None if raw is None else raw.decode("utf-8", errors="replace")
        outcomes = repo_seal.renamed(sealed, None if text is None else parse(spec.parser, text, work))
        outcomes = with_truncated(outcomes, spec.fail_to_pass + (spec.pass_to_pass or ()))
        forged, raw = None, outcomes
        if wires is not None:
            forged = repo_tripwire.contradiction(wires, outcomes, spec.fail_to_pass)
            outcomes = repo_tripwire.without(wires, repo_tripwire.twinned(wires, outcomes))
        copies = {w.name: w.source for w in wires.wires if w.source} if wires is not None else {}
        outcomes, judged = repo_seal.judge(sealed, scratch, outcomes, copies,  # sealed assertions (issue 41)
                                           seals if isinstance(seals, dict) else None)
        forged = forged or judged.forged
        return RunResult(outcomes, result.returncode, result.fault, result.stderr.decode(errors="replace"),
                         result.duration, forged, wires, raw, judged)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _node_preload(scratch: Path) -> Path:
    """A copy of the preload in the run's scratch folder, which the sandbox's uid can reach (loop's own install
    may sit where it cannot, such as under /root). NODE_OPTIONS reaches every test child node --test starts."""
    folder = scratch / "preload"
    folder.mkdir()
    stage(folder, NODE_PRELOAD.name, NODE_PRELOAD.read_bytes())
    return folder


# Go's build cache and go test's own files (the test binaries it links) on the sandbox's /dev/shm tmpfs, gone with
# the sandbox, where loop's runner lets no test binary write (a cache entry or another package's binary planted)
GOCACHE, GOTMPDIR = "/dev/shm/.gocache", "/dev/shm/.gotmp"


def _go_run(argv: list[str], warm: Path | None, ro: dict) -> tuple[list[str], int]:
    """The test command behind a trusted prefix that makes the cache and temporary folders and fills the cache
    from the warm one (mounted read-only; a tar pipe, not `cp -R`: ~600 files and folders in 8 ms against 14 ms,
    measured in the sandbox; sh has no pipefail, and a `tar -c` that fails only leaves more to compile), with
    loop's runner mounted for `go test -exec` (gorun.go: each test binary under a Landlock ruleset). Returns the
    argv and the MiB the tmpfs needs on top of the task's cap."""
    ro[repo_gorun.MOUNT] = str(repo_gorun.runner())
    script = f"mkdir -p {GOCACHE} {GOTMPDIR} || exit 125\n"
    if warm is not None:
        ro[repo_env.GOCACHE_MOUNT] = str(warm)
        script += f"tar -C {repo_env.GOCACHE_MOUNT} -cf - . | tar -C {GOCACHE} -xf - || exit 125\n"
    return ["/bin/sh", "-c", script + 'exec "$@"', "sh", *argv], \
        -(-_warm_footprint(str(warm)) // (1 << 20)) if warm is not None else 0


@functools.lru_cache(maxsize=64)  # a finished environment never changes
def _warm_footprint(folder: str) -> int:
    """Bytes a copy of `folder` takes on a tmpfs (whole pages per file and folder)."""
    total = 0
    for root, _, files in os.walk(folder):
        total += 4096 * (1 + len(files))
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass
    return total
