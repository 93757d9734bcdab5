"""Gold patches of real SWE-bench Lite instances, rebuilt from the projects' own git history, graded again and
again: how many repeats `loop grade --predictions` calls resolved (issue 41: a tripwire planted inside a
multi-line decorator once failed honest gold patches in 9-61% of repeats).

Each instance is made the way SWE-bench makes one: `base_commit` is the fix's parent, `patch` the fix's
changes outside test files, `test_patch` its changes to them; FAIL_TO_PASS and PASS_TO_PASS come from running
the test files `test_patch` touches on base + test_patch and on base + patch + test_patch (fail or absent
before and pass after; pass both times), in the environment loop builds from the instance's requirements
(loop's own cache, so the grades run in the same one). Then `loop tasks import swebench`, `loop tasks check`,
and `--repeats` grades of the gold patches (`--per-process` models in one predictions file: each model is a
batch graded on its own, with its own tripwire placement).

No network but PyPI for the requirements: the repositories are given as local git directories, e.g. the
fetched mirrors (fetch `github:marshmallow-code/marshmallow` and `github:pallets/flask` with the session's
fetch tool, or `git clone --bare https://github.com/...`). They are read only, never committed.

    .venv/bin/python bench/bench_swebench_history.py /work/.mirror/marshmallow-code+marshmallow/repo \
        /work/.mirror/pallets+flask/repo [--repeats 20] [--k 1] [--loop-src /tmp/before41]

An instance none of whose tests fails before the fix and passes after it here is skipped, saying what its
published FAIL_TO_PASS did after the fix. marshmallow-1343 (marshmallow 2.x) is: its setup.cfg's
filterwarnings names `marshmallow.warnings.ChangedInMarshmallow3Warning`, which pytest resolves before it
applies `-o pythonpath=src` (SWE-bench installs the package; loop's import does not), so pytest exits at
configuration; and with the package on PYTHONPATH its unmarshaller still calls `collections.Mapping`, gone
since Python 3.10, so its fix cannot pass on this machine's 3.11 either.

`--loop-src DIR` grades with another checkout of loop (its `loop` package on PYTHONPATH, this venv's
dependencies), e.g. `git worktree add /tmp/before41 90e89ed~1` for the code before issue 41's fix.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from loop.kinds.repo import env as repo_env  # noqa: E402
from loop.kinds.repo.results import parse_junit  # noqa: E402
from loop.sandbox import SandboxConfig  # noqa: E402

GIT_ENV = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "GIT_CONFIG_NOSYSTEM": "1"}
PYTEST = "pytest==8.3.4"


@dataclass(frozen=True)
class Row:
    """A SWE-bench Lite instance: its id, the fix's commit (its parent is the published base_commit), the
    FAIL_TO_PASS SWE-bench publishes (checked against the computed one) and pinned requirements from PyPI."""
    instance_id: str
    repo: str
    base: str
    fix: str
    published_f2p: tuple[str, ...]
    requirements: tuple[str, ...]
    problem: str


ROWS = (
    Row("marshmallow-code__marshmallow-1359", "marshmallow-code/marshmallow",
        "b40a0f4e33823e6d0f341f7e8684e359a99060d1", "f7e8062c5855818fe70786ef46cbfcf8a1d7c365",
        ("tests/test_fields.py::TestParentAndName::test_datetime_list_inner_format",),
        (PYTEST, "pytz", "simplejson"),
        "3.0: DateTime fields cannot be used as inner field for List or Tuple fields: the schema's "
        "datetimeformat is looked up on the List, which has no opts (AttributeError)."),
    Row("marshmallow-code__marshmallow-1343", "marshmallow-code/marshmallow",
        "2be2d83a1a9a6d3d9b85804f3ab545cecc409bb0", "cf808fc8de9e215609d8128cbff1f300bae5a9c4",
        ("tests/test_marshalling.py::TestUnmarshaller::test_deserialize_wrong_nested_type_with_validates_method",),
        (PYTEST, "pytz", "python-dateutil", "simplejson"),
        "[version 2.20.0] TypeError: 'NoneType' object is not subscriptable when a nested schema with "
        "@validates gets a value of the wrong type."),
    Row("pallets__flask-4045", "pallets/flask",
        "d8c37f43724cd9fb0870f77877b7c4c7e38a19e0", "7c5261407dae61679c268b44c63d73909c3fe652",
        ("tests/test_blueprints.py::test_dotted_name_not_allowed",
         "tests/test_blueprints.py::test_route_decorator_custom_endpoint_with_dots"),
        (PYTEST, "Werkzeug==2.0.3", "Jinja2==3.0.3", "MarkupSafe==2.1.3", "itsdangerous==2.0.1", "click==8.0.4"),
        "Raise error when blueprint name contains a dot: dots are now significant since blueprints can be "
        "nested. An error was already added for endpoint names in 1.0, but should have been added for this "
        "as well."),
    Row("pallets__flask-5063", "pallets/flask",
        "182ce3dd15dfa3537391c3efaf9c3ff407d134d4", "84c007d34f7f0b8737310fe4d67be12c463e0130",
        ("tests/test_cli.py::TestRoutes::test_subdomain", "tests/test_cli.py::TestRoutes::test_host"),
        (PYTEST, "Werkzeug==2.3.7", "Jinja2==3.1.2", "MarkupSafe==2.1.3", "itsdangerous==2.1.2", "click==8.1.3",
         "blinker==1.6.2"),
        "Flask routes to return domain/sub-domains information: `flask routes` lists endpoints, methods and "
        "rules but not which subdomain (or host) each route answers on."),
)


def git(gitdir: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["git", f"--git-dir={gitdir}", *args], env=GIT_ENV, capture_output=True, check=check)


def is_test_path(path: str) -> bool:
    """SWE-bench's split of a fix into `patch` and `test_patch`: a file under a test folder, or a test module."""
    parts = path.split("/")
    return any(p in ("test", "tests", "testing", "e2e") for p in parts[:-1]) or parts[-1].startswith("test_")


def split_fix(gitdir: Path, base: str, fix: str) -> tuple[str, str, list[str]]:
    """patch, test_patch, and the test modules test_patch touches (the files SWE-bench runs)."""
    names = git(gitdir, "diff", "--name-only", base, fix).stdout.decode().split()
    tests = [n for n in names if is_test_path(n)]
    code = [n for n in names if not is_test_path(n)]
    diff = lambda paths: git(gitdir, "diff", "--no-color", "--no-ext-diff", base, fix, "--", *paths).stdout.decode() \
        if paths else ""
    return diff(code), diff(tests), [n for n in tests if n.endswith(".py")]


def checkout(gitdir: Path, commit: str, dest: Path) -> None:
    dest.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(git(gitdir, "archive", commit).stdout)) as tar:
        tar.extractall(dest, filter="data")


def apply(tree: Path, patch: str) -> None:
    if patch.strip():
        subprocess.run(["git", "apply", "--whitespace=nowarn", "-"], cwd=tree, input=patch.encode(), check=True,
                       env=GIT_ENV, capture_output=True)


def run_tests(tree: Path, files: list[str], env_path: Path, python: str) -> tuple[dict[str, list[str]], str]:
    """The named files' outcomes ([status, last line of its message] by SWE-bench's id, through loop's junit parser),
    run as the task will run them, and the end of pytest's output."""
    report = tree.parent / f"{tree.name}-report.xml"
    src = ["-o", "pythonpath=src"] if any((tree / "src").glob("*/__init__.py")) else []
    done = subprocess.run([python, "-m", "pytest", "-p", "no:cacheprovider", f"--junitxml={report}", *src, *files],
                          cwd=tree, capture_output=True, text=True, timeout=1800,
                          env={**GIT_ENV, "PYTHONPATH": str(env_path), "PYTHONDONTWRITEBYTECODE": "1"})
    outcomes = parse_junit(report.read_text(encoding="utf-8"), tree) if report.is_file() else None
    said = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    return ({t: [o.status, (o.message.strip().splitlines() or [""])[-1][:200]] for t, o in (outcomes or {}).items()},
            " | ".join(said[-3:])[-400:])


def make_instance(row: Row, gitdir: Path, work: Path, python: str) -> dict:
    patch, test_patch, files = split_fix(gitdir, row.base, row.fix)
    env = repo_env.ensure(repo_env.EnvSpec("requirements", (("requirements.txt", requirements(row)),)), python)
    runs = {}
    for side, patches in (("before", [test_patch]), ("after", [test_patch, patch])):
        tree = work / "trees" / row.instance_id / side
        shutil.rmtree(tree, ignore_errors=True)
        checkout(gitdir, row.base, tree)
        for p in patches:
            apply(tree, p)
        runs[side] = run_tests(tree, files, env.path, python)
        shutil.rmtree(tree)
    (before, _), (after, said) = runs["before"], runs["after"]
    f2p = sorted(t for t, (s, _) in after.items() if s == "pass" and before.get(t, [""])[0] != "pass")
    p2p = sorted(t for t, (s, _) in after.items() if s == "pass" and before.get(t, [""])[0] == "pass")
    why = "; ".join(f"{t} {after[t][0]}: {after[t][1]}" for t in row.published_f2p if t in after) \
        or f"pytest wrote no report: {said}"  # why SWE-bench's FAIL_TO_PASS does not pass after the fix here
    return {"instance_id": row.instance_id, "repo": row.repo, "base_commit": row.base, "patch": patch,
            "test_patch": test_patch, "FAIL_TO_PASS": json.dumps(f2p), "PASS_TO_PASS": json.dumps(p2p),
            "environment_setup_commit": row.base, "problem_statement": row.problem, "after_the_fix": why}


def requirements(row: Row) -> str:
    return "".join(f"{r}\n" for r in row.requirements)


def loop_cmd(args, cfg: Path, *argv: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if args.loop_src:
        env["PYTHONPATH"] = str(Path(args.loop_src).resolve())
    return subprocess.run([sys.executable, "-m", "loop", "--config", str(cfg), *argv], capture_output=True,
                          text=True, env=env, cwd=cfg.parent)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("gitdirs", nargs="+", type=Path, help="local git directories holding the projects' history")
    ap.add_argument("--repeats", type=int, default=20, help="grades of each gold patch")
    ap.add_argument("--per-process", type=int, default=5, help="models (repeats) per `loop grade` process")
    ap.add_argument("--k", type=int, default=1)
    ap.add_argument("--checks", type=int, default=1, help="`loop tasks check` runs of each instance")
    ap.add_argument("--only", action="append", help="an instance id (repeatable); default: every one found")
    ap.add_argument("--loop-src", help="a checkout of loop to grade with instead of this one")
    ap.add_argument("--work", type=Path, help="keep the project here (default: a temporary folder)")
    args = ap.parse_args()
    python = SandboxConfig().interpreter()
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-swe-history-"))
    work.mkdir(parents=True, exist_ok=True)
    if args.loop_src:
        where = subprocess.run([sys.executable, "-c", "import loop; print(loop.__file__)"], capture_output=True,
                               text=True, env={**os.environ, "PYTHONPATH": str(Path(args.loop_src).resolve())},
                               cwd="/")  # as loop_cmd runs it: not from this checkout's folder
        print(f"grading with {where.stdout.strip() or where.stderr.strip()[-300:]}")

    rows = [r for r in ROWS if not args.only or r.instance_id in args.only]
    found: list[tuple[Row, Path]] = []
    for row in rows:
        gitdir = next((g for g in args.gitdirs if git(g, "cat-file", "-e", f"{row.fix}^{{commit}}",
                                                       check=False).returncode == 0), None)
        if gitdir is None:
            print(f"{row.instance_id}: skipped, no git directory given holds {row.fix[:12]} ({row.repo})")
            continue
        if git(gitdir, "rev-parse", f"{row.fix}^").stdout.decode().strip() != row.base:
            raise SystemExit(f"{row.instance_id}: {row.fix[:12]}'s parent is not the base commit {row.base[:12]}")
        found.append((row, gitdir))

    proj = work / f"proj-{Path(args.loop_src).name if args.loop_src else 'here'}-k{args.k}"  # instances shared
    (proj / "harness" / "tasks").mkdir(parents=True, exist_ok=True)
    cfg = proj / "config.toml"
    cfg.write_text(f'[loop]\ndb = "{proj / "runs.db"}"\nk = {args.k}\ntrials = 0\nconcurrency = 2\n')
    repos = work / "repos"
    repos.mkdir(exist_ok=True)
    summary = {}
    for row, gitdir in found:
        link = repos / row.repo.replace("/", "__")
        if not link.exists():
            link.symlink_to(gitdir.resolve())
        inst_file = work / f"{row.instance_id}.json"
        if inst_file.is_file():
            inst = json.loads(inst_file.read_text())
        else:
            start = time.monotonic()
            inst = make_instance(row, gitdir, work, python)
            inst_file.write_text(json.dumps(inst) + "\n")
            print(f"{row.instance_id}: instance built in {time.monotonic() - start:.0f}s", flush=True)
        f2p, p2p = json.loads(inst["FAIL_TO_PASS"]), json.loads(inst["PASS_TO_PASS"])
        if not f2p:
            print(f"{row.instance_id}: skipped, no test fails before the fix and passes after it here "
                  f"(after the fix: {inst['after_the_fix']})")
            continue
        if sorted(f2p) != sorted(row.published_f2p):
            print(f"{row.instance_id}: note: FAIL_TO_PASS computed here {f2p} differs from SWE-bench's "
                  f"{list(row.published_f2p)}")
        req = work / f"{row.instance_id}.requirements.txt"
        req.write_text(requirements(row))
        done = loop_cmd(args, cfg, "tasks", "import", "swebench", str(inst_file), "--repos", str(repos),
                        "--requirements", str(req), "--force")
        if done.returncode != 0:
            raise SystemExit(f"{row.instance_id}: import failed ({done.returncode}): {(done.stdout + done.stderr)[-800:]}")
        summary[row.instance_id] = {"f2p": len(f2p), "p2p": len(p2p), "gold": inst["patch"], "resolved": 0,
                                    "graded": 0, "fails": Counter()}

    for iid, s in summary.items():  # a check plants tripwires too: each is a process of its own
        s["checks"] = Counter()
        for _ in range(args.checks):
            done = loop_cmd(args, cfg, "tasks", "check", iid)
            said = (done.stdout.strip() or done.stderr.strip()[-300:]).splitlines()
            s["checks"]["ok" if done.returncode == 0 else f"exit {done.returncode}: {said[:3]}"[:600]] += 1
        print(f"{iid}: tasks check: {dict(s['checks'])}", flush=True)

    if not summary:
        raise SystemExit("no instance to grade")
    rounds = -(-args.repeats // args.per_process)
    for r in range(rounds):
        models = [f"gold-{r * args.per_process + m}" for m in range(args.per_process)
                  if r * args.per_process + m < args.repeats]
        preds = proj / f"preds-{r}.jsonl"
        preds.write_text("".join(json.dumps({"instance_id": iid, "model_name_or_path": m, "model_patch": s["gold"]})
                                 + "\n" for m in models for iid, s in summary.items()))
        start = time.monotonic()
        done = loop_cmd(args, cfg, "grade", "--predictions", str(preds), "--json", "--k", str(args.k),
                        "--report", str(proj / f"report-{r}.json"))
        (proj / f"grade-{r}.jsonl").write_text(done.stdout)  # each model's per-instance report, as printed
        lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        if len(lines) != len(models):
            raise SystemExit(f"grade round {r} exit {done.returncode}: {len(lines)} reports for {len(models)} "
                             f"models: {(done.stdout + done.stderr)[-1200:]}")
        for report in lines:
            for iid, res in report.items():
                s = summary[iid]
                s["graded"] += 1
                if res["resolved"]:
                    s["resolved"] += 1
                    continue
                failed = (res.get("reason") or "").split(", ")
                detail = (res.get("detail") or "").strip().splitlines()
                s["fails"][f"{res.get('verdict')}, {len(failed)} checks failed ({', '.join(failed[:2])}, ...): "
                           f"{' | '.join(detail[:2])[:300]}"] += 1
        print(f"round {r + 1}/{rounds}: {len(models)} models graded in {time.monotonic() - start:.0f}s: "
              + ", ".join(f"{iid.split('__')[1]} {s['resolved']}/{s['graded']}" for iid, s in summary.items()),
              flush=True)

    print(f"\nloop {'from ' + args.loop_src if args.loop_src else 'at ' + str(ROOT)}, k={args.k}")
    print(f"{'instance':40} {'resolved':>9} {'F2P':>4} {'P2P':>5}  tasks check ok")
    for iid, s in summary.items():
        print(f"{iid:40} {s['resolved']:>4}/{s['graded']:<4} {s['f2p']:>4} {s['p2p']:>5}  "
              f"{s['checks']['ok']}/{args.checks}")
        for why, n in [*s["fails"].most_common(), *((w, n) for w, n in s["checks"].items() if w != "ok")]:
            print(f"    {n} x {why}")
    print(f"(project kept in {work})" if args.work else "")
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
