"""Published SWE-bench Lite rows graded by loop and by SWE-bench's own grading functions, prediction by prediction:
loop's `resolved` must equal what swebench 5.0.2's `get_eval_report` says about the same prediction (issue 44).

The rows (tests/data/swebench_lite_rows.jsonl) are eight rows of SWE-bench Lite's dev split (the
`SWE-bench/SWE-bench_Lite` release, whose rows carry `log_parser` and `eval_type`) from three projects:
marshmallow 1343 and 1359, sqlfluff 1517, 1625, 1733, 1763 and 2419, astroid 1978. Every field grading reads is
as published (patch, test_patch, FAIL_TO_PASS and PASS_TO_PASS with their cut ids, commits, created_at, version,
log_parser, eval_type); hints_text and eval_script are left out and problem_statement keeps its first line (the
title), since no grader reads them. The projects come from their own git history (the fetched mirrors, or
`git clone --bare`), given as local git directories.

Four predictions per row: `gold` (the row's patch), `empty`, `wrong` (the gold patch with one line of its fix
changed, so a FAIL_TO_PASS test still fails: WRONG below) and `test_edit` (no fix: test_patch itself, every
`assert` on its added lines made `assert True or ...`, as a model editing the tests to pass would).

For each prediction:
- loop: `loop tasks import swebench ROWS --python 3.9`, then `loop grade --predictions --json --k K` (one batch per
  prediction kind); its per-instance `resolved` and `verdict` are read from the report.
- SWE-bench: the prediction is applied as SWE-bench's harness applies it (`git apply`, then the row's eval
  script's steps: `git checkout <base_commit> -- <files test_patch touches>`, `git apply test_patch`, each allowed
  to fail as the script allows it, `pytest -rA <those files>`), bare, in the same environment loop built for the
  task (its interpreter and packages, the tree on the path as loop puts it). The output is written as the
  harness writes a test log (between `>>>>> Start Test Output` and `>>>>> End Test Output`, then the exit code
  line) and fed to `swebench.harness.grading.get_eval_report(TestSpec(...), prediction, log, True)`: the row's
  own log parser (`PARSER_REGISTRY[row["log_parser"]]`), `get_logs_eval`, `get_eval_tests_report` and
  `get_resolution_status`. That runs in `.venv-swebench` (`pip install swebench==5.0.2`: its imports need
  docker, datasets and modal, which loop's venv should not carry).

    .venv/bin/python bench/bench_swebench_grading.py /work/.mirror/marshmallow-code+marshmallow/repo \
        /work/.mirror/sqlfluff+sqlfluff/repo /work/.mirror/pylint-dev+astroid/repo [--k 5] [--runs 2] [--only ID]

The table printed: instance, prediction, SWE-bench resolved, loop resolved in each run, loop verdict in each run.
Exit 1 when a prediction's `resolved` differs between SWE-bench and loop, or between loop's runs.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROWS = ROOT / "tests" / "data" / "swebench_lite_rows.jsonl"
SWEBENCH_PYTHON = ROOT / ".venv-swebench" / "bin" / "python"
GIT_ENV = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.org", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@example.org"}
KINDS = ("gold", "empty", "wrong", "test_edit")
# SWE-bench's images carry a current pytest (`pip install -e .` in 2024), whose `-rA` summary its log parser reads;
# the pytest of a row's date (2019's 3.5 for marshmallow 3.0) prints no PASSED lines there. So SWE-bench's side
# runs this pytest ahead of the task's environment, everything else being the environment loop built.
PYTEST = "pytest==8.3.4"

# the wrong fix: one line of the gold patch's fix changed (old, new), so a FAIL_TO_PASS test still fails
WRONG = {
    "marshmallow-code__marshmallow-1343": ("+                except (KeyError, TypeError):",
                                           "+                except (KeyError, IndexError):"),  # only `many` fixed
    "marshmallow-code__marshmallow-1359": ("self.root.opts", "self.parent.opts"),  # a List's parent has no opts
    "sqlfluff__sqlfluff-1517": ('f"Could not parse: {current_str}"', 'f"Could not parse: {initial_str}"'),
    "sqlfluff__sqlfluff-1625": ('and join conditions."', 'and join conditions"'),
    "sqlfluff__sqlfluff-1733": ("+                # fixes (see #1713)", "+                prev_newline = False"),
    "sqlfluff__sqlfluff-1763": ("+            encoding=encoding,", '+            encoding="ascii",'),
    "sqlfluff__sqlfluff-2419": ("""instead of '{context.segment.raw_upper}'.\"""",
                                """instead of '{context.segment.raw_upper}'\""""),
    "pylint-dev__astroid-1978": ("logger.info(", "logger.debug("),  # caplog is at INFO: stdout is lost
}
# requirements given by hand where loop's import of what the project declares does not build or run here (each
# is a limit README's "Coming from SWE-bench" names): marshmallow 2.x's conftest imports simplejson from its `reco`
# extra (SWE-bench installs `.[dev]`; loop reads the test extras); sqlfluff's requirements_dev.txt names
# types-pkg_resources, whose only release then was yanked (uv refuses it); astroid's tox.ini says coverage<5
# beside requirements_test_min.txt's coverage~=7.0. These are the projects' runtime and test requirements.
REQUIREMENTS = {
    "marshmallow-code__marshmallow-1343": "pytest\npytz\npython-dateutil\nsimplejson\n",
    "sqlfluff__sqlfluff": ("appdirs\ncached-property\nchardet\nclick>=7.1\ncolorama>=0.3\ndiff-cover>=2.5.0\nJinja2\n"
                           "oyaml\npathspec\npyyaml>=5.1\nregex\ntblib\ntoml\ntqdm\ntyping_extensions\npytest\n"
                           "hypothesis\n"),
    "pylint-dev__astroid": ("lazy_object_proxy>=1.4.0\nwrapt>=1.11,<2\ntyping-extensions>=4.0.0\npytest\n"
                            "pytest-cov~=4.0\ncoverage~=7.0\n"),
}


def git(gitdir: Path, *args: str, cwd: Path | None = None, check: bool = True) -> subprocess.CompletedProcess:
    where = [f"--git-dir={gitdir}"] if gitdir else []
    return subprocess.run(["git", *where, *args], env=GIT_ENV, capture_output=True, check=check, cwd=cwd)


def test_files(patch: str) -> list[str]:
    """The files a diff leaves behind (its `+++ b/` side), in order: what the eval script checks out and runs."""
    return list(dict.fromkeys(re.findall(r"^\+\+\+ b/(\S+)", patch, re.M)
                              + re.findall(r"^rename to (\S+)", patch, re.M)))


def predictions(row: dict, old: str, new: str) -> dict[str, str]:
    """gold, empty, wrong (`old` made `new` in the gold patch) and test_edit (test_patch, asserts made true)."""
    if row["patch"].count(old) != 1:
        raise SystemExit(f"{row['instance_id']}: the wrong fix's line {old!r} is not once in the gold patch")
    edited = "\n".join(re.sub(r"^(\+\s*)assert ", r"\1assert True or ", line)
                       for line in row["test_patch"].split("\n"))
    return {"gold": row["patch"], "empty": "", "wrong": row["patch"].replace(old, new), "test_edit": edited}


# --- SWE-bench's side ----------------------------------------------------------------------------------------

def swebench_log(row: dict, gitdir: Path, patch: str, work: Path, python: str, pythonpath: list[str]) -> str:
    """The test log SWE-bench's harness would write for `patch`: applied with `git apply` (a refusal is its
    `>>>>> Patch Apply Failed`), then the eval script's reset, test_patch and `pytest -rA` over the files."""
    tree = work / "tree"
    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(git(gitdir, "archive", row["base_commit"]).stdout)) as tar:
        tar.extractall(tree, filter="data")
    git(None, "init", "-q", cwd=tree)
    git(None, "add", "-A", cwd=tree)
    git(None, "commit", "-q", "-m", "base", cwd=tree)
    base = git(None, "rev-parse", "HEAD", cwd=tree).stdout.decode().strip()
    log = ["+ git apply -v - (the model's patch)"]
    if patch.strip():
        done = subprocess.run(["git", "apply", "-v", "-"], cwd=tree, input=patch.encode(), capture_output=True,
                              env=GIT_ENV)
        if done.returncode != 0:  # the harness then tries `patch --batch --fuzz=5 -p1 -i`
            done = subprocess.run(["patch", "--batch", "--fuzz=5", "-p1"], cwd=tree, input=patch.encode(),
                                  capture_output=True)
            if done.returncode != 0:
                return ">>>>> Patch Apply Failed\n" + done.stdout.decode(errors="replace")
    files = test_files(row["test_patch"])
    log.append(git(None, "checkout", base, "--", *files, cwd=tree, check=False).stderr.decode(errors="replace"))
    applied = subprocess.run(["git", "apply", "-v", "-"], cwd=tree, input=row["test_patch"].encode(),
                             capture_output=True, env=GIT_ENV)
    log.append(applied.stderr.decode(errors="replace"))
    env = {"PATH": "/usr/bin:/bin", "HOME": str(work), "PYTHONDONTWRITEBYTECODE": "1",
           "PYTHONPATH": ":".join(p.replace("/repo", str(tree), 1) for p in pythonpath)}
    ran = subprocess.run([python, "-m", "pytest", "-rA", "-p", "no:cacheprovider", *files], cwd=tree, env=env,
                         capture_output=True, text=True, errors="replace", timeout=1800)
    return "\n".join([*log, "+ : '>>>>> Start Test Output'", ran.stdout + ran.stderr,
                      "+ : '>>>>> End Test Output'", f">>>>> Test Exit Code: {ran.returncode}", ""])


def swebench_grade(cases: list[dict]) -> list[bool]:
    """SWE-bench's verdict on each case's log: `get_eval_report`, run by .venv-swebench's python."""
    done = subprocess.run([str(SWEBENCH_PYTHON), __file__, "--grade-logs"], input=json.dumps(cases), text=True,
                          capture_output=True)
    if done.returncode != 0:
        raise SystemExit(f"swebench grading failed ({done.returncode}): {done.stderr[-1500:]}")
    return json.loads(done.stdout)


def grade_logs() -> None:
    """Inside .venv-swebench: read cases on stdin, print [resolved, ...]. Imports swebench only."""
    from swebench.harness.grading import get_eval_report
    from swebench.types import TestSpec

    out = []
    for case in json.load(sys.stdin):
        row = case["row"]
        spec = TestSpec(instance_id=row["instance_id"], image=row["image"], eval_script_list=[], repo=row["repo"],
                        version=row["version"], FAIL_TO_PASS=row["FAIL_TO_PASS"], PASS_TO_PASS=row["PASS_TO_PASS"],
                        log_parser=row["log_parser"], eval_type=row["eval_type"])
        pred = {"instance_id": row["instance_id"], "model_name_or_path": case["kind"],
                "model_patch": case["patch"]}
        report = get_eval_report(spec, pred, case["log"], include_tests_status=True)[row["instance_id"]]
        out.append(bool(report["resolved"]))
    print(json.dumps(out))


# --- loop's side ---------------------------------------------------------------------------------------------

def loop_cmd(cfg: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "loop", "--config", str(cfg), *argv], capture_output=True,
                          text=True, cwd=cfg.parent)


def loop_grades(cfg: Path, row: dict, preds: dict, k: int, run: int) -> dict[str, tuple]:
    """kind -> (resolved, verdict, reason) from one `loop grade --predictions` of the row's predictions."""
    name = f"{row['instance_id']}-{run}"
    path = cfg.parent / f"preds-{name}.jsonl"
    path.write_text("".join(json.dumps({"instance_id": row["instance_id"], "model_name_or_path": kind,
                                        "model_patch": preds[kind]}) + "\n" for kind in KINDS))
    done = loop_cmd(cfg, "grade", "--predictions", str(path), "--json", "--k", str(k),
                    "--report", str(cfg.parent / f"report-{name}.json"))
    (cfg.parent / f"grade-{name}.jsonl").write_text(done.stdout)
    (cfg.parent / f"grade-{name}.err").write_text(done.stderr)
    got = {}
    for line in done.stdout.splitlines():
        if line.startswith("{"):
            for res in json.loads(line).values():
                got[res["model_name_or_path"]] = (res["resolved"], res.get("verdict"), res.get("reason"))
    if len(got) != len(KINDS):
        raise SystemExit(f"loop grade {name}: exit {done.returncode}, {len(got)} reports for {len(KINDS)} "
                         f"predictions: {(done.stdout + done.stderr)[-1500:]}")
    return got

# --- cost: loop's whole command against the same tests run bare ------------------------------------------------

def bare_seconds(folder: Path, spec, python: str, env_path: Path, work: Path) -> float:
    """One run of the task's test command on its named tests, bare (no sandbox, no loop, no instrumentation),
    in the tree a gold grade tests (base + gold patch + hidden tests), the environment loop built, loop's paths."""
    tree = work / "bare"
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(spec.tree, tree)
    subprocess.run(["git", "apply", "-"], cwd=tree, input=(folder / "gold.patch").read_bytes(), check=True,
                   capture_output=True, env=GIT_ENV)
    shutil.copytree(folder / "hidden", tree, dirs_exist_ok=True)
    ids = [*spec.fail_to_pass, *spec.pass_to_pass]
    argv = [x for a in spec.command for x in (ids if a == "{tests}" else [a.replace("{report}", str(work / "bare.xml"))])]
    argv[0] = python if argv[0].startswith("python") else shutil.which(argv[0], path="/usr/bin:/bin")
    paths = [str(env_path), *(p.replace("/repo", str(tree), 1) for p in spec.paths)]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(work), "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": ":".join(paths)}
    start = time.perf_counter()
    subprocess.run(argv, cwd=tree, env=env, capture_output=True, timeout=1800)
    return time.perf_counter() - start


def loop_seconds(cfg: Path, row: dict, k: int) -> float:
    """One `loop grade --predictions` of the row's gold patch alone, as a user runs it (a fresh process)."""
    path = cfg.parent / f"cost-{row['instance_id']}.jsonl"
    path.write_text(json.dumps({"instance_id": row["instance_id"], "model_name_or_path": "cost",
                                "model_patch": row["patch"]}) + "\n")
    start = time.perf_counter()
    done = loop_cmd(cfg, "grade", "--predictions", str(path), "--json", "--k", str(k))
    took = time.perf_counter() - start
    if '"resolved": true' not in done.stdout:
        raise SystemExit(f"{row['instance_id']}: the gold patch not resolved in the cost run: {done.stdout[-800:]}")
    return took


def cost(cfg: Path, row: dict, folder: Path, spec, python: str, env_path: Path, work: Path, repeat: int) -> str:
    """A line: the bare run and loop's gold grade at k=1 and k=5 (medians of `repeat`, after one grade that fills
    loop's cache: base and gold trees, probes, seals), each over the bare run."""
    for k in (1, 5):
        loop_seconds(cfg, row, k)  # the first grade of a task pays the base and gold trees once
    bare, rounds = [], {1: [], 5: []}
    for _ in range(repeat):  # alternated, so the load falls on both sides alike
        bare.append(bare_seconds(folder, spec, python, env_path, work))
        for k in rounds:
            rounds[k].append(loop_seconds(cfg, row, k))
    b = statistics.median(bare)
    return (f"{row['instance_id']:36} bare {b:6.2f} s   k=1 {statistics.median(rounds[1]):6.2f} s "
            f"({statistics.median(rounds[1]) / b:.2f}x)   k=5 {statistics.median(rounds[5]):6.2f} s "
            f"({statistics.median(rounds[5]) / b:.2f}x)   load {os.getloadavg()[0]:.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("gitdirs", nargs="*", type=Path, help="local git directories holding the projects' history")
    ap.add_argument("--rows", type=Path, default=ROWS)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--runs", type=int, default=2, help="`loop grade` runs, each compared with SWE-bench's "
                    "(0: SWE-bench's side only)")
    ap.add_argument("--only", action="append", help="an instance id (repeatable); default: every row")
    ap.add_argument("--check", action="store_true", help="run `loop tasks check` first")
    ap.add_argument("--work", type=Path, help="keep the project here (default: a temporary folder)")
    ap.add_argument("--cost", type=int, default=0, metavar="N", help="also time loop's gold grade at k=1 and k=5 "
                    "against the same tests run bare, N rounds each (medians), per instance")
    ap.add_argument("--grade-logs", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.grade_logs:
        return grade_logs()
    if not SWEBENCH_PYTHON.is_file():
        raise SystemExit(f"{SWEBENCH_PYTHON} is missing: make venv makes it (pip install swebench==5.0.2)")
    sys.path.insert(0, str(ROOT))
    from loop import tasks
    from loop.kinds.repo import env as repo_env
    from loop.sandbox import pythons

    rows = [json.loads(line) for line in args.rows.read_text().splitlines() if line.strip()]
    rows = [r for r in rows if not args.only or r["instance_id"] in args.only]
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-swe-grading-"))
    repos, proj = work / "repos", work / "proj"
    repos.mkdir(parents=True, exist_ok=True)
    (proj / "harness" / "tasks").mkdir(parents=True, exist_ok=True)
    gitdirs = {}
    for row in rows:
        gitdir = next((g for g in args.gitdirs if git(g, "cat-file", "-e", f"{row['base_commit']}^{{commit}}",
                                                       check=False).returncode == 0), None)
        if gitdir is None:
            raise SystemExit(f"{row['instance_id']}: no git directory given holds {row['base_commit'][:12]} "
                             f"({row['repo']})")
        gitdirs[row["instance_id"]] = gitdir
        link = repos / row["repo"].replace("/", "__")
        if not link.exists():
            link.symlink_to(gitdir.resolve())
    reqs = work / "requirements"
    reqs.mkdir(exist_ok=True)
    for name, text in REQUIREMENTS.items():  # <instance_id>.txt, else <owner>__<name>.txt
        (reqs / f"{name}.txt").write_text(text)
    (work / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    cfg = proj / "config.toml"
    cfg.write_text(f'[loop]\ndb = "{proj / "runs.db"}"\nk = {args.k}\ntrials = 0\nconcurrency = 2\n')
    done = loop_cmd(cfg, "tasks", "import", "swebench", str(work / "rows.jsonl"), "--repos", str(repos),
                    "--python", "3.9", "--requirements", str(reqs), "--force")
    if done.returncode != 0:
        raise SystemExit(f"import failed ({done.returncode}): {(done.stdout + done.stderr)[-1500:]}")
    if args.check:
        print(loop_cmd(cfg, "tasks", "check").stdout.strip(), flush=True)

    print(f"{len(rows)} SWE-bench Lite rows x {len(KINDS)} predictions, loop at k={args.k}, {args.runs} run(s); "
          f"an instance's lines once both sides graded it")
    print(f"{'instance':36} {'prediction':10} {'SWE-bench':>9} " + " ".join(f"{'loop ' + str(r + 1):>6}"
                                                                            for r in range(args.runs))
          + "  loop verdict (reason)", flush=True)
    differ = total = 0
    costs = []
    for row in rows:  # an instance at a time, both sides, so a long run reports what it finished
        iid = row["instance_id"]
        preds = predictions(row, *WRONG[iid])
        spec = tasks.load_folder(proj / "harness" / "tasks" / iid).spec
        python = pythons.find(spec.python) if spec.python else sys.executable
        env = repo_env.ensure(spec.environment, python)
        current = repo_env.ensure(repo_env.EnvSpec("requirements", (("requirements.txt", PYTEST + "\n"),)), python)
        cases = []
        for kind in KINDS:  # SWE-bench's side: one bare run per prediction, in the environment loop built
            log = work / "logs" / iid / f"{kind}.log"
            if not log.is_file():  # kept from an earlier run with the same --work
                log.parent.mkdir(parents=True, exist_ok=True)
                log.write_text(swebench_log(row, gitdirs[iid], preds[kind], work, python,
                                            [str(current.path), str(env.path), *spec.paths]))
            cases.append({"row": row, "kind": kind, "patch": preds[kind], "log": str(log)})
        if args.cost:
            costs.append(cost(cfg, row, proj / "harness" / "tasks" / iid, spec, python, env.path, work, args.cost))
        theirs = dict(zip(KINDS, swebench_grade(cases)))
        runs = [loop_grades(cfg, row, preds, args.k, run) for run in range(args.runs)]
        for kind, resolved in theirs.items():
            ours = [run[kind] for run in runs]
            mark = "" if all(o[0] == resolved for o in ours) else "  <- differs"
            differ, total = differ + bool(mark), total + 1
            verdicts = " / ".join(f"{o[1]}" + (f" ({o[2]})" if o[2] else "") for o in ours)
            print(f"{iid:36} {kind:10} {str(resolved):>9} " + " ".join(f"{str(o[0]):>6}" for o in ours)
                  + f"  {verdicts}{mark}", flush=True)
    if args.runs:
        print(f"\n{total - differ} of {total} predictions: loop's resolved equals SWE-bench's in every run"
              + (f"; {differ} differ" if differ else ""))
    if costs:
        print(f"\ncost: median of {args.cost} rounds after a first grade, {os.cpu_count()} cores (goals: k=1 1.5x, "
              f"k=5 3x bare)\n" + "\n".join(costs))
    print(f"(project, logs and reports kept in {work})" if args.work else "")
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
