"""Honest verdicts under hostile candidates (issue 13), as root and as an unprivileged user.

Every hostile candidate is a real file in candidates/ whose first line says the verdict it must get.
Users run loop as themselves (sandboxes then share their uid), CI runs as root (each sandbox gets its own
uid): the batch and the grades below run both ways. The test id names the user each case ran as: as root,
`user=root` and `user=nobody` (through setpriv); as any other user the unprivileged case runs as that user
(`user=<name>`, a non-root user is an unprivileged one) and the root case is skipped with the reason in the
summary, never passed as if it had run.
"""

import functools
import json
import os
import pwd
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import sqlite_utils

from _adv import ROOT, world_dir
from loop.datasets.humaneval import tasks as humaneval

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from conftest import ChatServer  # noqa: E402

HERE = Path(__file__).resolve().parent / "candidates"
LOOP = str(ROOT / ".venv" / "bin" / "loop") if (ROOT / ".venv" / "bin" / "loop").exists() else "loop"
NOBODY = 65534
IS_ROOT = os.geteuid() == 0


def _user_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid{uid}"


ME = _user_name(os.geteuid())
UNPRIVILEGED = _user_name(NOBODY) if IS_ROOT else ME  # who the unprivileged case runs as
# "root": loop as root, each sandbox on its own uid; "unprivileged": loop as a user that is not root (every
# sandbox shares its uid). The ids say who each case really ran as.
USERS = [
    pytest.param("root", id="user=root", marks=[] if IS_ROOT else pytest.mark.skip(
        reason=f"the root case needs root: this suite runs as {ME} (uid {os.geteuid()}), so only the "
               f"unprivileged case ran, as {ME}")),
    pytest.param("unprivileged", id=f"user={UNPRIVILEGED}"),
]


def expected(path: Path) -> tuple[str, str | None]:
    """The verdict a candidate file must get and, optionally, the check that must fail (its first line)."""
    words = path.read_text().splitlines()[0].split("expect:")[1].split()
    return words[0], (words[1] if len(words) > 1 else None)


def as_user(user: str) -> list[str]:
    """The command prefix that runs as `user` (a USERS value, or "self" for set-up steps): root only when we are
    root; the unprivileged user is nobody through setpriv when we are root, else ourselves. Checked once: a
    case never runs as anyone but the user its id names."""
    if user == "self":
        return []
    if user == "root":
        assert IS_ROOT, f"the root case cannot run as {ME}"
        return []
    assert user == "unprivileged", user
    prefix = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"] if IS_ROOT else []
    uid = _uid_under(tuple(prefix))
    assert uid != 0 and _user_name(uid) == UNPRIVILEGED, f"the unprivileged case would run as uid {uid}"
    return prefix


@functools.cache
def _uid_under(prefix: tuple[str, ...]) -> int:
    return int(subprocess.run([*prefix, "id", "-u"], capture_output=True, text=True, check=True).stdout)


def no_traceback(done: subprocess.CompletedProcess) -> bool:
    """No traceback of loop's own (a candidate's build error may quote its own traceback on stdout)."""
    return "Traceback" not in done.stderr and f'File "{ROOT / "loop"}' not in done.stdout


def world_project(config: str) -> Path:
    """A project any user can write: config.toml, the shipped harness (read-only), runs.db beside them."""
    proj = world_dir("loop-adv-integrity-")
    os.chmod(proj, 0o777)
    (proj / "harness").symlink_to(ROOT / "harness")
    (proj / "config.toml").write_text(f'[loop]\ndb = "{proj / "runs.db"}"\n{config}')
    os.chmod(proj / "config.toml", 0o644)
    return proj


def run_loop(user: str, proj: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(proj), "LC_ALL": "C.UTF-8"}
    return subprocess.run([*as_user(user), LOOP, "--config", str(proj / "config.toml"), *args], cwd=proj,
                          env=env, capture_output=True, text=True, timeout=timeout)


# Hostile candidates, each followed by correct and wrong ones that must keep their verdicts.
BATCH = ["good_loop.py", "inject_jobs.py", "wrong_no_merge.py", "wrong_no_merge.py", "good_sweep.py",
         "inject_mirror.py", "good_loop.py", "good_sweep.py", "kill_everyone.py", "good_loop.py",
         "tmp_many_files.py", "good_sweep.py", "tmp_deep_chain.py", "good_loop.py", "fill_shared_memory.py",
         "good_sweep.py", "fake_infra.py", "good_loop.py", "huge_values.py", "wrong_no_merge.py", "good_sweep.py",
         "uncapped_memory.py", "good_loop.py", "forged_fields.py", "good_sweep.py", "null_results.py",
         "good_loop.py", "innocent_big.py", "shrink_server_as.py", "innocent_big.py", "innocent_big.py",
         "surrogate.py", "good_sweep.py", "innocent_tmp.py", "lock_writable_roots.py", "innocent_tmp.py",
         "message_queues.py", "innocent_tmp.py", "surrogate_values.py", "good_loop.py", "flood_after_reply.py",
         "good_sweep.py"]


def _scripted(files: list[str]) -> ChatServer:
    """An endpoint answering the i-th request with the i-th file, fenced as a reply (a tag makes each unique)."""
    lock, sent = threading.Lock(), []

    def respond(body):
        with lock:
            i = len(sent)
            sent.append(i)
        name = files[i % len(files)]
        code = (HERE / name).read_text().replace("@@SURR@@", "\ud800") + f"\n# sample {i}\n"
        content = f"```python\n{code}```\n"
        return 200, {"id": f"r{i}", "object": "chat.completion", "model": "m",
                     "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
                     "usage": {"prompt_tokens": 10, "completion_tokens": 10}}, {}

    return ChatServer(respond)


@pytest.mark.parametrize("user", USERS)
@pytest.mark.slow
def test_hostile_batch_on_fork_servers_ends_honestly(user):
    """`loop run --k 1 --trials 0` (fork servers): job injection through /proc, the mirror attack, killing
    the server, clean-up left to the next candidate, memory held in /dev/shm, / and System V segments,
    forged handshakes and values that crash a decoder. The batch finishes `done`, every candidate graded,
    no traceback, every verdict as its file says."""
    server = _scripted(BATCH)
    proj = world_project("k = 1\ntrials = 0\nconcurrency = 2\n[endpoint]\nmax_concurrency = 2\n")
    try:
        done = run_loop(user, proj, "run", "--task", "merge_intervals_py", "--samples", str(len(BATCH)),
                        "--base-url", server.url, "--model", "m", "--json")
    finally:
        server.close()
    assert done.returncode == 0, done.stderr[-2000:]
    assert no_traceback(done)
    db = sqlite_utils.Database(proj / "runs.db")
    assert [b["status"] for b in db["batches"].rows] == ["done"]
    rows = list(db["candidates"].rows)
    assert len(rows) == len(BATCH) and all(r["status"] == "graded" for r in rows), [r["status"] for r in rows]
    wrong = []
    for r in rows:
        name = next(f for f in set(BATCH) if (HERE / f).read_text().split("@@SURR@@")[-1] in r["source"])
        if r["verdict"] != expected(HERE / name)[0]:
            wrong.append((name, r["verdict"], r["reason"], r["notes"]))
    assert not wrong, wrong


# (task, candidate file, k, trials): each graded by `loop grade` on fresh sandboxes per attempt.
GRADES = [
    ("merge_intervals_py", "fake_infra.py", 2, 0),
    ("merge_intervals_py", "huge_values.py", 2, 0),
    ("merge_intervals_py", "forged_fields.py", 2, 20),
    ("merge_intervals_py", "surrogate_values.py", 2, 10),
    ("merge_intervals_py", "late_mutation.py", 1, 30),
    ("merge_intervals_py", "good_sweep.py", 2, 30),
    ("merge_intervals_py", "uncapped_memory.py", 1, 10),
    ("merge_intervals_py", "flood_after_reply.py", 2, 0),
    ("merge_intervals_cpp", "fake_infra.cpp", 2, 0),
    ("merge_intervals_cpp", "asan_overread.cpp", 3, 20),
    ("merge_intervals_cpp", "asan_probe.cpp", 2, 0),
    ("merge_intervals_cpp", "asan_rlimit.cpp", 2, 0),
    ("merge_intervals_py", "build_error_dict.py", 1, 0),
    ("humaneval_002", "he002_overflow.py", 2, 0),
    ("humaneval_002", "he002_modf.py", 2, 0),
    ("humaneval_038", "he038_str_eq.py", 2, 0),
    ("humaneval_038", "he038_patch_runner.py", 2, 0),
    ("humaneval_038", "he038_good.py", 2, 0),
    ("humaneval_053", "he053_near_int.py", 2, 0),
    ("humaneval_053", "he053_good.py", 2, 0),
    ("humaneval_047", "he047_sorts_in_place.py", 1, 50),
    ("humaneval_047", "he047_thread_sort.py", 1, 50),
    ("humaneval_047", "he047_good.py", 2, 50),
]


@pytest.fixture(scope="module")
def grade_project():
    """The shipped merge_intervals tasks and four imported HumanEval problems, writable by any user."""
    proj = world_dir("loop-adv-grades-")
    os.chmod(proj, 0o777)
    tasks = proj / "harness" / "tasks"
    tasks.mkdir(parents=True)
    for name in ("merge_intervals_py", "merge_intervals_cpp"):
        shutil.copytree(ROOT / "harness" / "tasks" / name, tasks / name)
    wanted = {"HumanEval/2", "HumanEval/38", "HumanEval/47", "HumanEval/53"}
    humaneval.import_humaneval(tasks, [p for p in humaneval.read_problems() if p["task_id"] in wanted])
    (proj / "config.toml").write_text(f'[loop]\ndb = "{proj / "runs.db"}"\n')
    for path in [proj, *proj.rglob("*")]:
        os.chmod(path, 0o777 if path.is_dir() else 0o644)
    return proj


@pytest.mark.parametrize("user", USERS)
@pytest.mark.parametrize("task,name,k,trials", GRADES, ids=[g[1] for g in GRADES])
@pytest.mark.slow
def test_hostile_and_other_style_candidates_graded_honestly(grade_project, user, task, name, k, trials):
    """Faked infrastructure (Python and a C++ static constructor), values that crash a comparison
    (10**400 where a float is expected), checks sharing the candidate's process (a str subclass equal to
    everything, a patched check runner), float tolerance on ints, mutation after return, a deterministic
    sanitizer finding and a sanitizer probe: each ends as its first line says, and correct code written
    in another style than the reference passes."""
    verdict, check = expected(HERE / name)
    db = grade_project / f"runs-{user}-{name}.db"  # one each: a root-owned file is read-only to nobody
    done = run_loop(user, grade_project, "grade", task, str(HERE / name), "--k", str(k), "--trials", str(trials),
                    "--db", str(db), "--json", timeout=300)
    assert no_traceback(done), done.stderr[-2000:]
    g = json.loads(done.stdout.strip().splitlines()[-1])
    assert done.returncode == (0 if verdict == "stable_pass" else 1), done.stderr[-2000:]
    assert g["verdict"] == verdict and g["infra"] == 0, g
    if check is not None:
        assert [f["check"] for f in g["failures"]] == [check], g["failures"]


@pytest.mark.parametrize("user", USERS)
@pytest.mark.slow
def test_one_fork_server_keeps_every_candidate_from_the_state_its_predecessor_left(user):
    """The batch above on a single fork server, so every candidate meets the sandbox the one before left."""
    files = [str(HERE / f) for f in BATCH]
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/tmp"}
    done = subprocess.run([*as_user(user), sys.executable, str(Path(__file__).parent / "_forkbatch.py"),
                           "merge_intervals_py", *files], capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    got = json.loads(done.stdout)
    wrong = [(f, v) for f, v in zip(BATCH, got) if v[0] != expected(HERE / f)[0]]
    assert not wrong, wrong


# (task, files): hostile and correct HumanEval candidates in turn on the fork servers' fast path
FAST = [("humaneval_002", ["he002_overflow.py", "he002_modf.py", "he002_overflow.py", "he002_modf.py"]),
        ("humaneval_038", ["he038_str_eq.py", "he038_good.py", "he038_patch_runner.py", "he038_good.py",
                           "he038_forge_batch.py", "he038_good.py"]),
        ("humaneval_053", ["he053_near_int.py", "he053_good.py", "he053_near_int.py", "he053_good.py"]),
        ("humaneval_047", ["he047_sorts_in_place.py", "he047_good.py", "he047_thread_sort.py", "he047_good.py"])]


@pytest.mark.parametrize("user", USERS)
@pytest.mark.parametrize("task,files", FAST, ids=[f[0] for f in FAST])
def test_fork_servers_fast_path_keeps_verdicts_honest(grade_project, user, task, files):
    """k=2 with differential fuzzing on fork servers (one server per PYTHONHASHSEED, relations decided in the
    parent): a str subclass equal to everything, a patched check runner, forged replies to the fuzzed batch,
    10**400 where a float belongs and a float 5e-7 off an int, each followed by a correct candidate on the
    same server, end as their files say."""
    done = subprocess.run([*as_user(user), sys.executable, str(Path(__file__).parent / "_forkbatch.py"),
                           "--k", "2", "--trials", "20", "--root", str(grade_project), task,
                           *[str(HERE / f) for f in files]], capture_output=True, text=True, timeout=600,
                          env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/tmp"})
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    got = json.loads(done.stdout)
    assert [v for v, _ in got] == [expected(HERE / f)[0] for f in files], got


MUTATORS = ["he047_sorts_in_place.py", "he047_thread_sort.py"]


def _samples_grade(user: str, proj: Path, db: Path, files: list[str]) -> list[dict]:
    """`loop grade --samples` (the fork servers) of these HumanEval/47 files as `user`: each candidate's
    failed checks, from runs.db, in file order."""
    samples = proj / f"samples-{user}-{db.stem}.jsonl"
    samples.write_text("".join(json.dumps({"task_id": "HumanEval/47", "solution": (HERE / f).read_text()}) + "\n"
                               for f in files))
    os.chmod(samples, 0o644)
    done = run_loop(user, proj, "grade", "--samples", str(samples), "--k", "2", "--trials", "50", "--db", str(db),
                    "--json", timeout=600)
    assert no_traceback(done) and done.returncode in (0, 1), done.stderr[-2000:]
    rows = sqlite_utils.Database(db)
    out = []
    for cand in rows.query("select id, verdict from candidates order by id"):
        checks = list(rows.query('select "check", minimal, detail from checks where candidate_id = ? and passed = 0',
                                 [cand["id"]]))
        out.append({"verdict": cand["verdict"], "checks": checks})
    return out


@pytest.mark.parametrize("user", USERS)
@pytest.mark.slow
def test_a_candidate_changing_its_argument_fails_arguments_agree_on_the_fork_servers(grade_project, user):
    """HumanEval/47 (median; the reference sorts a copy): sorting the caller's list in place, or from a
    thread after the call returned, fails relation:arguments_agree through `loop grade --samples` (fork
    servers), the in-place one with a counterexample shrunk to two items; a correct candidate and the
    reference itself pass in the same batch."""
    db = grade_project / f"runs-{user}-mutators.db"
    got = _samples_grade(user, grade_project, db, [*MUTATORS, "he047_good.py"])
    assert [g["verdict"] for g in got] == ["stable_fail", "stable_fail", "stable_pass"], got
    for g in got[:2]:
        assert {c["check"] for c in g["checks"]} == {"relation:arguments_agree"}, g
    minimal = json.loads(got[0]["checks"][0]["minimal"])
    assert len(minimal) == 1 and len(minimal[0]) == 2 and minimal[0] != sorted(minimal[0]), minimal
    assert "argument 1 changed" in got[0]["checks"][0]["detail"]


@pytest.mark.parametrize("user", USERS)
@pytest.mark.slow
def test_a_task_declaring_mutation_allowed_passes_the_same_candidates(user):
    """HumanEval/47 with MUTATION_ALLOWED = True in its relations.py: the candidates that change their
    argument pass, on the in-process path (`loop grade`) and on the fork servers (`--samples`)."""
    proj = world_dir("loop-adv-mutable-")
    os.chmod(proj, 0o777)
    tasks = proj / "harness" / "tasks"
    tasks.mkdir(parents=True)
    humaneval.import_humaneval(tasks, [p for p in humaneval.read_problems() if p["task_id"] == "HumanEval/47"])
    relations = tasks / "humaneval_047" / "relations.py"
    relations.write_text(relations.read_text() + "MUTATION_ALLOWED = True\n")
    (proj / "config.toml").write_text(f'[loop]\ndb = "{proj / "runs.db"}"\n')
    for path in [proj, *proj.rglob("*")]:
        os.chmod(path, 0o777 if path.is_dir() else 0o644)
    try:
        got = _samples_grade(user, proj, proj / f"runs-{user}-samples.db", MUTATORS)
        assert [g["verdict"] for g in got] == ["stable_pass", "stable_pass"], got
        for name in MUTATORS:
            done = run_loop(user, proj, "grade", "humaneval_047", str(HERE / name), "--k", "1", "--trials", "50",
                            "--db", str(proj / f"runs-{user}-{name}.db"), "--json", timeout=300)
            g = json.loads(done.stdout.strip().splitlines()[-1])
            assert done.returncode == 0 and g["verdict"] == "stable_pass", (name, g)
    finally:
        shutil.rmtree(proj, ignore_errors=True)
