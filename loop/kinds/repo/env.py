"""The environment a repository's tests need (a pip requirements list, a package.json's node_modules, a go.mod's
modules and a warm Go build cache), built once per content hash into a cache outside the repository and
mounted read-only into the sandbox.

Building is the only step with network, and it runs no candidate code: each builder installs the task's own
declared dependencies into a fresh folder, which is renamed into place only once complete.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from loop.errors import HarnessError, SandboxUnavailable
from loop.kinds.repo import PYTEST, PYTEST_AS_OF
from loop.kinds.repo import seal_js_go
from loop.kinds.repo.patch import chmod_tree, fresh_copy
from loop.sandbox import Limits, SandboxConfig, clean_env, reachable, run

BUILD_TIMEOUT = 900
KINDS = ("requirements", "npm", "go")  # the [environment] keys a repo task may use (one of them)
GO_VARS = {  # no module proxy, no toolchain download, no cgo, no telemetry: the standard library and the cache.
    # -count=1 only keeps test results out of the build cache (a test command's own -count wins): each repeat
    # runs every test, even one whose cache holds an earlier repeat's results. It changes nothing that is tested.
    "GOPROXY": "off", "GOFLAGS": "-mod=mod -count=1", "GOTOOLCHAIN": "local", "CGO_ENABLED": "0", "GOSUMDB": "off",
    "GOTELEMETRY": "off", "GOPATH": "/tmp/.gopath", "GOCACHE": "/tmp/.gocache",
}
GOCACHE_MOUNT = "/env/gocache"  # the warm build cache, read-only; each run copies it into its own tmpfs


@dataclass(frozen=True)
class EnvSpec:
    """What defines an environment: its kind and the files that declare it (their content is the hash)."""
    kind: str  # requirements | npm | go
    files: tuple[tuple[str, str], ...]  # (name, content)
    tree: Path | None = None  # the base tree (go: the build cache is warmed by compiling it, not running it)
    tree_digest: str = ""  # of the tree (never the hidden tests: see _build_go)
    exclude_newer: str | None = None  # requirements: versions as they stood then (an ISO date; uv's --exclude-newer)


@dataclass(frozen=True)
class Env:
    """A built environment: read-only mounts (sandbox path -> host folder), variables, and for Go a warm build
    cache that each run gets a private writable copy of (Go refuses a read-only cache)."""
    path: Path
    mounts: dict = field(default_factory=dict)
    variables: dict = field(default_factory=dict)
    gocache: Path | None = None
    built: float | None = None  # seconds spent building; None when it was already in the cache


def cache_root() -> Path:
    """LOOP_ENV_CACHE, else ~/.cache/loop/envs; as root /var/cache/loop/envs, since the sandbox then runs as
    another uid that cannot enter /root (bubblewrap binds only what that uid can reach)."""
    if os.environ.get("LOOP_ENV_CACHE"):
        return Path(os.environ["LOOP_ENV_CACHE"])
    if os.geteuid() == 0:
        return Path("/var/cache/loop/envs")
    return Path.home() / ".cache" / "loop" / "envs"


@functools.cache
def _version(argv: tuple[str, ...]) -> str:
    """A toolchain's version (once per process: every grade looks its environment up by it)."""
    try:
        done = subprocess.run(list(argv), capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return "?"
    return (done.stdout + done.stderr).strip()


def env_key(spec: EnvSpec, interpreter: str) -> str:
    """The content hash: the declaring files, the toolchain's version and (Go) the base tree."""
    tool = {"requirements": (interpreter, "-c", "import sys; print(sys.version)"), "npm": ("node", "--version"),
            "go": ("go", "version")}[spec.kind]
    h = hashlib.sha256(f"{spec.kind}\0{interpreter if spec.kind == 'requirements' else ''}\0{_version(tool)}\0"
                       f"{spec.tree_digest if spec.kind == 'go' else ''}".encode())
    for name, text in spec.files:
        h.update(b"\0" + name.encode() + b"\0" + text.encode())
    if spec.kind == "go":  # the warm cache holds what the sealed-check helper imports: other imports, another cache
        h.update(b"\0warm\0" + " ".join(seal_js_go.GO_IMPORTS).encode())
    if spec.exclude_newer:
        h.update(b"\0uv --compile-bytecode --exclude-newer\0" + spec.exclude_newer.encode()
                 + " ".join(_cutoff_exempt(spec)).encode())
    return f"{spec.kind}-{h.hexdigest()[:24]}"


def uv() -> str | None:
    """uv (on PATH, or beside loop's own Python): the resolver that takes an upload-date cutoff."""
    beside = Path(sys.executable).parent / "uv"
    return shutil.which("uv") or (str(beside) if beside.is_file() else None)


def is_built(spec: EnvSpec, interpreter: str) -> bool:
    return (cache_root() / env_key(spec, interpreter) / ".complete").is_file()


def _pip(interpreter: str) -> list[str]:
    """The sandbox interpreter's own pip when it has one, else loop's (same major.minor needed for wheels
    with compiled parts; pure-Python requirements do not care)."""
    probe = subprocess.run([interpreter, "-m", "pip", "--version"], capture_output=True, timeout=60)
    return [interpreter if probe.returncode == 0 else sys.executable, "-m", "pip"]


def _sh(argv: list[str], cwd: Path, env: dict | None = None) -> None:
    """Run a build step (trusted tools, the task's declared dependencies; network allowed)."""
    try:
        done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=BUILD_TIMEOUT,
                              env={**os.environ, **(env or {})})
    except (OSError, subprocess.SubprocessError) as exc:
        raise HarnessError(f"environment build failed: {argv[0]}: {exc}") from None
    if done.returncode != 0:  # pip's own ERROR lines say what failed; the tail alone may be a generic hint
        said = (done.stderr or done.stdout).strip()
        errors = [x.strip() for x in said.splitlines() if re.match(r"(ERROR|error)\b|╰─> \S+$", x)]
        raise HarnessError(f"environment build failed: {' '.join(argv[:3])}: "
                           f"{' | '.join(errors)[-600:] if errors else said[-400:]}")


def _cutoff_exempt(spec: EnvSpec) -> list[str]:
    """uv's arguments that give loop's pinned pytest (when the requirements hold it) its own date."""
    text = dict(spec.files).get("requirements.txt", "")
    if PYTEST not in (line.strip() for line in text.splitlines()):
        return []
    date, names = PYTEST_AS_OF
    return [arg for name in names for arg in ("--exclude-newer-package", f"{name}={date}")]


def _build_requirements(spec: EnvSpec, tmp: Path, interpreter: str) -> None:
    if spec.exclude_newer and uv():  # what the project's unpinned requirements resolved to at the time
        _sh([uv(), "pip", "install", "--quiet", "--no-progress", "--compile-bytecode", "--target", str(tmp),
             "--python", interpreter, "--exclude-newer", spec.exclude_newer, *_cutoff_exempt(spec),
             "-r", str(tmp / "requirements.txt")], tmp)
    else:  # without uv, today's versions (docs/swebench.md says so)
        _sh([*_pip(interpreter), "install", "--quiet", "--disable-pip-version-check", "--no-input", "--target",
             str(tmp), "-r", str(tmp / "requirements.txt")], tmp)
    site = tmp / "site"  # an editable install's metadata (kind: environment.install): beside the packages
    if site.is_dir():
        for entry in site.iterdir():  # the project's own metadata wins over a copy a requirement pulled in
            shutil.rmtree(tmp / entry.name, ignore_errors=True)
            os.rename(entry, tmp / entry.name)
        site.rmdir()


def _build_npm(spec: EnvSpec, tmp: Path, interpreter: str) -> None:
    """node_modules from package.json (and its lock file); scripts never run. No dependencies, no npm."""
    declared = json.loads(dict(spec.files)["package.json"] or "{}")
    (tmp / "node_modules").mkdir()
    if not any(declared.get(k) for k in ("dependencies", "devDependencies", "optionalDependencies")):
        return
    lock = "package-lock.json" in dict(spec.files)
    _sh(["npm", "ci" if lock else "install", "--ignore-scripts", "--no-audit", "--no-fund", "--no-save",
         "--loglevel=error"], tmp, {"npm_config_cache": str(tmp / ".npm-cache")})
    shutil.rmtree(tmp / ".npm-cache", ignore_errors=True)


def _build_go(spec: EnvSpec, tmp: Path, interpreter: str) -> None:
    """The go.mod's modules (network allowed here only), then a build cache warmed by compiling the base
    tree with `-exec /bin/true`: compiled, vetted and linked, never run. Without the hidden tests: every
    candidate's sandbox gets this cache, and compiled tests hold their literals (the expected values a sealed
    check keeps out of the sandbox); a grade's hidden files are instrumented anyway, so it compiles them."""
    gomod = dict(spec.files)["go.mod"]
    env = {**GO_VARS, "GOPATH": str(tmp / "gopath"), "GOCACHE": str(tmp / "gocache"),
           "GOMODCACHE": str(tmp / "mod"), "GOFLAGS": "-mod=mod -modcacherw", "HOME": str(tmp)}
    (tmp / "mod").mkdir()
    (tmp / "gocache").mkdir()
    if "require" in gomod:  # the proxy and checksum database of this machine's settings (or Go's defaults)
        download = {k: v for k, v in env.items() if k not in ("GOPROXY", "GOSUMDB")}
        _sh(["go", "mod", "download"], tmp, download)
    if spec.tree is not None:
        work = fresh_copy(spec.tree, tmp / "warm")
        _seal_imports_package(work)
        try:
            _warm_go(work, tmp, env)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    shutil.rmtree(tmp / "gopath", ignore_errors=True)


WARM = ["go", "test", "-count=1", "-exec", "/bin/true", "./..."]
WARM_PACKAGE = "zz_loop_warm_seal_imports"  # a folder beside the base tree's packages, only in the warming copy


def _seal_imports_package(work: Path) -> None:
    """A package in the warming copy that imports what the sealed-check helper does: `go test` vets a test
    package's imports first (their facts), and a cache warmed without them vets encoding/hex in every run."""
    folder = work / WARM_PACKAGE
    if folder.exists():
        return
    folder.mkdir()
    imports = "".join(f'\t_ "{name}"\n' for name in seal_js_go.GO_IMPORTS)
    (folder / "warm_test.go").write_text(f'package {WARM_PACKAGE}\n\nimport (\n{imports}\t"testing"\n)\n\n'
                                         "func TestWarm(t *testing.T) {}\n")


def _warm_go(work: Path, tmp: Path, env: dict) -> None:
    """Compile in the sandbox, where grades run: Go keys a package's compiled output by its folder, so only
    a tree compiled at /repo (and modules at /env/gomod) is found again by a grade. Network is off there,
    as it is for a grade. Without a working bubblewrap, compile in place: the standard library is warmed all
    the same."""
    sandbox = SandboxConfig()
    if shutil.which(sandbox.bwrap) is None:
        _warm_in_place(work, env)
        return
    cache = tmp / "gocache"
    cache.chmod(0o777)  # the sandbox's uid writes it; it is handed back to us (and made read-only) below
    variables = {**clean_env(0), **GO_VARS, "GOMODCACHE": "/env/gomod", "GOCACHE": "/gocache"}
    limits = Limits(wall=BUILD_TIMEOUT, fsize_mb=1024, nproc=256, output_bytes=1 << 16, tmpfs_mb=1024)
    try:
        done = run(sandbox, WARM, limits=limits, env=variables, ro={"/env/gomod": str(tmp / "mod")},
                   rw={"/repo": str(work), "/gocache": str(cache)}, cwd="/repo", address_space=False)
    except SandboxUnavailable:  # bubblewrap cannot start here (grades then need --no-sandbox): warm in place
        _warm_in_place(work, env)
        return
    finally:
        if os.geteuid() == 0:
            for root, dirs, files in os.walk(cache):
                for name in [root, *(os.path.join(root, n) for n in dirs + files)]:
                    os.lchown(name, 0, 0)
    # A package that does not compile (hidden tests often call what only the fix adds) fails the command but
    # not the warming: everything else it compiled is in the cache, and the base runs report the rest.


def _warm_in_place(work: Path, env: dict) -> None:
    try:
        _sh(WARM, work, env)
    except HarnessError:
        pass  # as above: warming is best effort


_BUILDERS = {"requirements": _build_requirements, "npm": _build_npm, "go": _build_go}


def _env(spec: EnvSpec, path: Path, built: float | None) -> Env:
    if spec.kind == "requirements":
        return Env(path, {"/env": str(path)}, {"PYTHONPATH": "/env"}, built=built)
    if spec.kind == "npm":  # node looks for node_modules in every parent folder of /repo
        return Env(path, {"/node_modules": str(path / "node_modules")}, {}, built=built)
    return Env(path, {"/env/gomod": str(path / "mod")}, {**GO_VARS, "GOMODCACHE": "/env/gomod"},
               gocache=path / "gocache" if (path / "gocache").is_dir() else None, built=built)


_BUILDING: dict[str, threading.Lock] = {}  # one build per environment in this process (tasks load in threads)
_BUILDING_LOCK = threading.Lock()


def built(spec: EnvSpec, interpreter: str) -> Env | None:
    """The environment for `spec` if it is built; None, and nothing built, if not."""
    path = cache_root() / env_key(spec, interpreter)
    return _env(spec, path, None) if (path / ".complete").is_file() else None


def ensure(spec: EnvSpec, interpreter: str) -> Env:
    """The environment for `spec`, building it on first use (the only step allowed network)."""
    if (done := built(spec, interpreter)) is not None:
        return done
    root = cache_root()
    path = root / env_key(spec, interpreter)
    with _BUILDING_LOCK:
        building = _BUILDING.setdefault(str(path), threading.Lock())
    with building:  # a second thread wanting the same environment waits for the first one's
        if (path / ".complete").is_file():
            return _env(spec, path, None)
        return _build(spec, interpreter, root, path)


def _build(spec: EnvSpec, interpreter: str, root: Path, path: Path) -> Env:
    start = time.monotonic()
    reachable(root)
    tmp = root / f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    for name, text in spec.files:
        (tmp / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp / name).write_text(text, encoding="utf-8")
    try:
        _BUILDERS[spec.kind](spec, tmp, interpreter)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    chmod_tree(tmp, writable=False)
    (tmp / ".complete").write_text("ok\n")
    try:
        os.rename(tmp, path)
    except OSError:  # another process finished the same environment first: use theirs
        shutil.rmtree(tmp, ignore_errors=True)
    return _env(spec, path, round(time.monotonic() - start, 3))
