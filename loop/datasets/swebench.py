"""SWE-bench's formats: import instances as `repo` task folders, and grade a predictions file as one batch,
reported in SWE-bench's per-instance shape. Datasets in this format (SWE-bench, SWE-Gym, SWE-smith) then
grade locally in bubblewrap, with repeat-k, and without Docker.

An instance becomes a folder: the base commit's tree (`repo/`, pinned: the task hash covers it), the files
`test_patch` leaves behind (`hidden/`, staged after the candidate's patch), `patch` (`gold.patch`), the
clone's declared dependencies plus pytest (`requirements.txt`) and `swebench.json` (where it came from).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from loop import jsonl, tasks
from loop.datasets.swebench_requirements import (PYTEST, Declared, Requirements, read_declared,
                                                requirement_names, requirements_text)
from loop.errors import SwebenchError, read_text
from loop.grading.model import text
from loop.kinds.repo import changes as repo_changes
from loop.kinds.repo import metadata as repo_metadata
from loop.kinds.repo import patch as repo_patch
from loop.kinds.repo import screen as repo_screen
from loop.kinds.repo.kind import tool_missing
from loop.sandbox import pythons

META = "swebench.json"
REQUIRED = ("instance_id", "repo", "base_commit", "patch", "FAIL_TO_PASS", "PASS_TO_PASS", "problem_statement")
DEFAULT_COMMAND = "python3 -m pytest -p no:cacheprovider --junitxml={report}"
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$")


@dataclass(frozen=True)
class Instance:
    where: str  # FILE:LINE, for errors
    instance_id: str
    repo: str
    base_commit: str
    patch: str
    test_patch: str
    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    environment_setup_commit: str | None
    problem_statement: str
    created_at: str | None = None


# reading ------------------------------------------------------------------------------------------------
def json_objects(path: Path, what: str, keyed: bool = False) -> list[tuple[str, dict]]:
    """(where, object) per non-empty line ("FILE:LINE"); a whole-file JSON list (or SWE-bench's dict keyed
    by instance_id, for predictions) is accepted too ("FILE: item N"). Decoded totally: one line error."""
    raw = read_text(path, what, SwebenchError)
    whole = None
    if raw.lstrip().startswith(("[", "{")):
        try:
            whole = json.loads(raw)
        except (ValueError, RecursionError):
            if raw.lstrip().startswith("["):
                raise SwebenchError(f"{path}: not valid JSON") from None
    if keyed and isinstance(whole, dict) and whole and all(isinstance(v, dict) for v in whole.values()):
        whole = list(whole.values())
    if isinstance(whole, list):
        out = [(f"{path}: item {n}", obj) for n, obj in enumerate(whole, 1)]
    else:
        # JSON Lines end at LF only: a JSON string may hold U+2028 or U+0085, which splitlines() would cut at
        out = [(f"{path}:{number}", obj) for number, obj in jsonl.objects(raw.split("\n"), str(path), SwebenchError)]
    for where, obj in out:
        if not isinstance(obj, dict):
            raise SwebenchError(f"{where}: expected a JSON object")
    if not out:
        raise SwebenchError(f"{path}: no {what} in the file")
    return out


def _id_list(value, where: str, key: str) -> tuple[str, ...]:
    """FAIL_TO_PASS / PASS_TO_PASS: a list of pytest node ids, or the JSON string of one (as published)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise SwebenchError(f"{where}: field '{key}' is a string but not a JSON list") from None
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise SwebenchError(f"{where}: field '{key}' must be a list of test ids (or a JSON string of one)")
    for n, v in enumerate(value):  # each reaches the test command's argv
        jsonl.one_line({key: v}, key, f"{where}: item {n + 1} of", SwebenchError, limit=2000)
    for v in value:
        if "::" not in v or not v.split("::", 1)[0].endswith(".py"):
            raise SwebenchError(f"{where}: field '{key}': {v!r} is not a pytest node id (path.py::name); "
                                "loop runs the repository's tests with pytest")
    return tuple(dict.fromkeys(value))


def read_instances(path: Path) -> list[Instance]:
    """Every instance of the file, checked: a missing or malformed field names the line and the field."""
    out, seen = [], {}
    for where, obj in json_objects(path, "instances"):
        for key in REQUIRED:
            if key not in obj or obj[key] is None:
                raise SwebenchError(f"{where}: missing field '{key}'")
        for key in ("instance_id", "repo", "base_commit", "patch", "problem_statement"):
            if not isinstance(obj[key], str) or (key != "problem_statement" and not obj[key].strip()):
                raise SwebenchError(f"{where}: field '{key}' must be a non-empty string")
        for key in ("test_patch", "environment_setup_commit"):
            if obj.get(key) is not None and not isinstance(obj[key], str):
                raise SwebenchError(f"{where}: field '{key}' must be a string")
        for key in ("repo", "base_commit", "environment_setup_commit"):  # they reach paths and git's argv
            if obj.get(key) is not None:
                jsonl.one_line(obj, key, where, SwebenchError)
        iid = obj["instance_id"]
        if not _SAFE_NAME.fullmatch(iid):
            raise SwebenchError(f"{where}: field 'instance_id' {jsonl.show(iid)} cannot name a task folder "
                                "(letters, digits, '.', '_', '-')")
        if iid in seen:
            raise SwebenchError(f"{where}: instance_id {iid!r} already at {seen[iid]}")
        seen[iid] = where
        f2p = _id_list(obj["FAIL_TO_PASS"], where, "FAIL_TO_PASS")
        if not f2p:
            raise SwebenchError(f"{where}: field 'FAIL_TO_PASS' is empty: nothing would tell a fix from no fix")
        # text(): a lone surrogate (valid JSON, not valid UTF-8) becomes U+FFFD before it reaches a file
        out.append(Instance(where, iid, obj["repo"], obj["base_commit"].strip(), text(obj["patch"]),
                            text(obj.get("test_patch") or ""), f2p,
                            _id_list(obj["PASS_TO_PASS"], where, "PASS_TO_PASS"),
                            (obj.get("environment_setup_commit") or "").strip() or None, text(obj["problem_statement"]),
                            _date(obj.get("created_at"))))
    return out


def _date(value) -> str | None:
    """created_at as published ("2021-05-13T22:09:50Z", "2021-05-13 22:09:50"): uv's form, or None."""
    m = re.match(r"^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)", value) if isinstance(value, str) else None
    return f"{m.group(1)}T{m.group(2)}Z" if m else None


# the clone ----------------------------------------------------------------------------------------------
def _git(repo: Path, *args: str, env: dict | None = None, check_text: bool = True) -> subprocess.CompletedProcess:
    # Clones handed to us may belong to another user; neither system nor user config applies.
    base = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "HOME": str(repo), "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_TERMINAL_PROMPT": "0"}
    return subprocess.run(["git", "-c", "safe.directory=*", "-C", str(repo), *args], env={**base, **(env or {})},
                          capture_output=True, text=check_text, timeout=600)


def find_clone(repos: Path, repo: str, where: str) -> Path:
    """DIR/owner__name or DIR/owner/name (either may be bare or end in .git)."""
    if repo.count("/") != 1 or ".." in repo.split("/"):
        raise SwebenchError(f"{where}: field 'repo' {repo!r} is not owner/name")
    owner, name = repo.split("/")
    for cand in (repos / f"{owner}__{name}", repos / owner / name, repos / f"{owner}__{name}.git",
                 repos / owner / f"{name}.git"):
        if cand.is_dir() and _git(cand, "rev-parse", "--git-dir").returncode == 0:
            return cand
    raise SwebenchError(f"{where}: no clone of {repo} in {repos} (looked for {owner}__{name} and {owner}/{name})")


def resolve(clone: Path, commit: str, where: str, field: str) -> str:
    done = _git(clone, "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}")
    if done.returncode != 0 or not done.stdout.strip():
        raise SwebenchError(f"{where}: field '{field}': commit {commit!r} is not in the clone {clone}")
    return done.stdout.strip()


def _commit_date(clone: Path, commit: str) -> str:
    done = _git(clone, "show", "-s", "--format=%cd", "--date=iso-strict-local", commit, env={"TZ": "UTC"})
    return _date(done.stdout.strip()) or done.stdout.strip()


def checkout(clone: Path, commit: str, dest: Path) -> None:
    """The commit's tree into `dest`, through a throwaway index: the clone's own index and work tree are
    left alone, and no export attribute rewrites a file (as `git archive` would)."""
    dest.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="loop-swe-index-") as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        for args in (("read-tree", commit), ("--work-tree", str(dest), "checkout-index", "--all", "--force")):
            done = _git(clone, *args, env=env)
            if done.returncode != 0:
                raise SwebenchError(f"{clone}: cannot check out {commit} ({done.stderr.strip()[-300:]})")


def _file_at(clone: Path, commit: str, rel: str) -> str | None:
    done = _git(clone, "show", f"{commit}:{rel}", check_text=False)
    if done.returncode != 0:
        return None
    try:
        return done.stdout.decode("utf-8")
    except UnicodeDecodeError:
        return None


# the environment ----------------------------------------------------------------------------------------
def find_requirements(clone: Path, commit: str) -> Declared:
    """What the project declares it needs at `commit` (swebench_requirements.read_declared, over the clone)."""
    return read_declared(lambda rel: _file_at(clone, commit, rel))


def declared_requirements(clone: Path, commit: str) -> list[str]:
    return find_requirements(clone, commit).requirements


# one instance -> one task folder ------------------------------------------------------------------------
def _toml(value) -> str:
    """A TOML value from a str or a list of str (JSON strings are TOML basic strings once DEL is escaped)."""
    if isinstance(value, (list, tuple)):
        return "[\n" + "".join(f"  {_toml(v)},\n" for v in value) + "]"
    return json.dumps(text(value), ensure_ascii=False).replace("\x7f", "\\u007f")


def test_command(prefix: list[str], tree: Path) -> list[str]:
    """The prefix, `pythonpath=src` for a src layout (the package is not installed), and the named ids
    ({tests}): only they run, and the prompt, which shows the command, names no hidden test file. An id
    pytest cannot find stops the whole run, so `loop tasks check` (and every grade's polarity) catches it."""
    extra = ["-o", "pythonpath=src"] if any((tree / "src").glob("*/__init__.py")) else []
    return [*prefix, *extra] if "{tests}" in prefix else [*prefix, *extra, "{tests}"]


def _build(inst: Instance, where: str, clone: Path, folder: Path, prefix: list[str],
           requirements: Requirements | None, notes: list[str], python: str | None = None) -> None:
    base = resolve(clone, inst.base_commit, where, "base_commit")
    env_commit = resolve(clone, inst.environment_setup_commit, where, "environment_setup_commit") \
        if inst.environment_setup_commit else base
    tree = folder / "repo"
    checkout(clone, base, tree)
    for patch, field in ((inst.patch, "patch"), (inst.test_patch, "test_patch")):
        refusal = repo_patch.refuse(patch, tree, [], [])
        if refusal:
            raise SwebenchError(f"{where}: field '{field}': {refusal.detail}")
    with tempfile.TemporaryDirectory(prefix="loop-swe-") as tmp:
        staged = repo_patch.fresh_copy(tree, Path(tmp) / "tests")
        if inst.test_patch.strip():
            rejected = repo_patch.apply(inst.test_patch, staged, repo_patch.TRUSTED)
            if rejected is not None:
                raise SwebenchError(f"{where}: field 'test_patch' does not apply to {base[:12]}: "
                                    f"{rejected.splitlines()[0] if rejected else ''}")
        # what the test patch changed in the tree (files it deletes stay as they are)
        hidden = [c.path for c in repo_changes.between(tree, staged) if (staged / c.path).is_file()]
        for rel in hidden:
            (folder / "hidden" / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(staged / rel, folder / "hidden" / rel)
        files = sorted({t.split("::", 1)[0] for t in inst.fail_to_pass + inst.pass_to_pass})
        for rel in files:
            if not (staged / rel).is_file():
                raise SwebenchError(f"{where}: test file {rel} is not in {inst.repo} at {base[:12]} "
                                    "(with test_patch applied)")
        gold = repo_patch.fresh_copy(tree, Path(tmp) / "gold")
        rejected = repo_patch.apply(inst.patch, gold, repo_patch.TRUSTED)
        if rejected is not None:
            raise SwebenchError(f"{where}: field 'patch' does not apply to {base[:12]}: "
                                f"{rejected.splitlines()[0] if rejected else ''}")
        fixed = [c.path for c in repo_changes.between(tree, gold)]
    context = [p for p in fixed if (tree / p).is_file()]
    (folder / "gold.patch").write_text(inst.patch if inst.patch.endswith("\n") else inst.patch + "\n", encoding="utf-8")
    chosen = requirements.get(inst) if requirements is not None else None
    # SWE-bench installs every repository (pip install -e .): its metadata and entry points then come from the
    # environment, and its code from the tree
    install = bool(repo_metadata.dist_info(repo_metadata.from_tree(tree)))
    if chosen is None:
        declared = find_requirements(clone, env_commit)
        req = requirements_text(declared.requirements)
        added = [] if "pytest" in requirement_names(declared.requirements) else [PYTEST]
        found = "; ".join(f"{where}: {', '.join(reqs)}" for where, reqs in declared.found) or "none declared"
        source = {"from": f"{inst.repo} at {env_commit[:12]}", "found": [w for w, _ in declared.found],
                  "added": added, "dropped": declared.dropped}
        notes.append(f"{inst.instance_id}: dependencies from {source['from']}: {found}"
                     + (f" (+ {', '.join(added)}: the project names no pytest)" if added else ""))
        notes += [f"{inst.instance_id}: left out {d}" for d in declared.dropped]
        notes += [f"warning: {inst.instance_id}: {w}; if its tests need more, give --requirements FILE or DIR"
                  for w in declared.warnings]
    else:
        req, path = chosen
        source = {"from": str(path)}
        notes.append(f"{inst.instance_id}: dependencies from {path} (--requirements)")
    if python:
        found = pythons.find(python)
        notes.append(f"{inst.instance_id}: Python {python}: " + (f"found at {found}" if found else
                                                                  f"warning: {pythons.missing(python)}"))
    # every line pinned (pkg==1.2): the date changes nothing, and tasks alike share one environment
    pinned = all("==" in line for line in req.splitlines() if line.strip() and not line.startswith("#"))
    newer = None if pinned else inst.created_at or _commit_date(clone, base)
    if newer:
        notes.append(f"{inst.instance_id}: versions as they stood on {newer} ("
                     + ("the row's created_at)" if inst.created_at else "the base commit's date; the row has no created_at)"))
    if install:
        notes.append(f"{inst.instance_id}: the project is installed, editable (its metadata and entry points in "
                     "the environment, its code the tree's), as SWE-bench installs it")
    (folder / "requirements.txt").write_text(req, encoding="utf-8")
    keys = {
        "name": inst.instance_id, "kind": "repo", "language": "python",
        "description": f"SWE-bench instance {inst.instance_id}: {inst.repo} at {base[:12]}",
        "bug_report": inst.problem_statement.strip() or f"(no problem statement for {inst.instance_id})",
        **({"python": python} if python else {}),
        "repo": "repo", "context": context, "test_command": test_command(prefix, tree), "parser": "junit",
        # a patch may edit neither a file holding a named test nor one the test patch touches
        "test_paths": sorted(set(files) | set(hidden)), "gold_patch": "gold.patch",
        "fail_to_pass": inst.fail_to_pass, "pass_to_pass": inst.pass_to_pass,
    }
    allowed = repo_screen.infrastructure(fixed, tree)
    if allowed:  # the dataset's own fix edits them (setup.cfg, pyproject.toml...): a model's may too
        keys["allow_test_infrastructure"] = allowed
    if hidden:
        keys["hidden_tests"] = "hidden"
    body = "".join(f"{k} = {_toml(v)}\n" for k, v in keys.items())
    environment = ('\n[environment]\nrequirements = "requirements.txt"\n' + ('install = "editable"\n' if install else "")
                   + (f'exclude_newer = "{newer}"\n' if newer else ""))
    (folder / "task.toml").write_text(body + environment, encoding="utf-8")
    (folder / META).write_text(json.dumps({
        "instance_id": inst.instance_id, "repo": inst.repo, "base_commit": base,
        "environment_setup_commit": env_commit, "FAIL_TO_PASS": list(inst.fail_to_pass),
        "PASS_TO_PASS": list(inst.pass_to_pass),
        # what loop chose for the environment, and why (printed at import)
        "loop_environment": {"requirements": source, "install": "editable" if install else None, "python": python,
                             "exclude_newer": newer}},
        indent=2) + "\n", encoding="utf-8")


def parse_command(command: str | None) -> list[str]:
    """--test-command: the argv prefix the test ids are appended to; its program must exist here."""
    try:
        argv = shlex.split(command or DEFAULT_COMMAND)
    except ValueError as exc:
        raise SwebenchError(f"--test-command {command!r}: {exc}") from None
    if not argv:
        raise SwebenchError("--test-command is empty")
    if not any("{report}" in a for a in argv):
        raise SwebenchError(f"--test-command {command!r} must name the report path with {{report}} (--junitxml={{report}})")
    if tool_missing(argv[0]):
        raise SwebenchError(f"--test-command: program '{argv[0]}' does not exist on this machine")
    return argv


def import_instances(path: Path, repos: Path, dest: Path, requirements: Path | None = None,
                     command: str | None = None, force: bool = False, notes: list[str] | None = None,
                     python: str | None = None) -> list[str]:
    """Turn every instance of `path` into a task folder under `dest`; all or nothing: a bad instance leaves
    `dest` as it was. An instance already there is refused, unless `force` replaces its folder. `notes`
    receives what each environment was made of (dependencies found and where) and what could not be read."""
    notes = notes if notes is not None else []
    prefix = parse_command(command)
    given = Requirements.read(requirements) if requirements is not None else None
    if python is not None and not (python.startswith("/") or re.fullmatch(r"\d+\.\d+", python)):
        raise SwebenchError(f"--python {python!r}: give a version (3.9) or an interpreter's absolute path")
    if not repos.is_dir():
        raise SwebenchError(f"{repos}: --repos is not a directory")
    instances = read_instances(path)
    there = [i for i in instances if (dest / i.instance_id).exists()]
    if there and not force:
        raise SwebenchError(f"{there[0].where}: {dest / there[0].instance_id} exists ({len(there)} of the "
                            f"{len(instances)} instances are imported already); --force replaces them")
    dest.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".swebench-import-", dir=dest))
    try:
        for inst in instances:
            where = inst.where
            folder = staging / inst.instance_id
            folder.mkdir()
            _build(inst, where, find_clone(repos, inst.repo, where), folder, prefix, given, notes, python)
            tasks.load_folder(folder)  # the folder must load as the task it claims to be
        for inst in instances:
            final = dest / inst.instance_id
            if final.exists():
                shutil.rmtree(final)
            os.rename(staging / inst.instance_id, final)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return [i.instance_id for i in instances]
