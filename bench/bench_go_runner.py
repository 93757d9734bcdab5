"""Real Go repositories' own tests in loop's sandbox, as a Go task's run starts them, with and without loop's runner
(`go test -exec=/loop/gorun`: the test binaries under a Landlock ruleset, loop/sandbox/inside/gorun.go): the
outcome of every test must be the same (an honest test that executes a file it wrote, runs the Go toolchain or
writes into the tree would fail under the runner). Each repository at a revision whose go.mod this machine's Go
builds, its tests run once each way from an empty build cache (so the wall times are mostly compiling).

    .venv/bin/python bench/bench_go_runner.py GIT_DIR[@REV] ...
    (mirrors by the library's `fetch`: /work/.mirror/spf13+pflag/repo, google+uuid, BurntSushi+toml@v1.3.2)
"""

import collections
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from loop.kinds.repo import env as repo_env  # noqa: E402
from loop.kinds.repo import gorun  # noqa: E402
from loop.kinds.repo.testrun import GOCACHE, GOTMPDIR  # noqa: E402
from loop.sandbox import Limits, SandboxConfig, clean_env, make_scratch, run  # noqa: E402


def go_test(git_dir: str, rev: str, runner: bool) -> tuple[dict, float]:
    scratch = make_scratch("loop-bench-gorun-")  # a folder the sandbox's uid can reach
    try:
        tree = scratch / "repo"
        tree.mkdir()
        archive = subprocess.run(["git", f"--git-dir={git_dir}", "archive", rev], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
        for root, dirs, files in os.walk(tree):  # the sandbox's uid writes the tree, as in a grade
            for name in dirs + files:
                os.chmod(os.path.join(root, name), 0o777 if name in dirs else 0o666)
        tree.chmod(0o777)
        env = {**clean_env(0), **repo_env.GO_VARS, "GOCACHE": GOCACHE, "GOTMPDIR": GOTMPDIR}
        ro = {}
        if runner:
            env["GOFLAGS"] += f" -exec={gorun.MOUNT}"
            ro[gorun.MOUNT] = str(gorun.runner())
        start = time.perf_counter()
        res = run(SandboxConfig(), ["/bin/sh", "-c", f'mkdir -p {GOCACHE} {GOTMPDIR} && exec "$@"', "sh",
                                    "go", "test", "-json", "./..."],
                  limits=Limits(wall=600, tmpfs_mb=1024, fsize_mb=512, nproc=256, output_bytes=1 << 24), env=env,
                  ro=ro, rw={"/repo": str(tree)}, cwd="/repo", address_space=False)
        took = time.perf_counter() - start
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    outcomes = {}
    for line in res.stdout.decode(errors="replace").splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("Action") in ("pass", "fail", "skip"):
            outcomes[(event.get("Package"), event.get("Test"))] = event["Action"]
    return outcomes, took


def main() -> None:
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    for arg in sys.argv[1:]:
        git_dir, _, rev = arg.partition("@")
        plain, t_plain = go_test(git_dir, rev or "HEAD", runner=False)
        ran, t_ran = go_test(git_dir, rev or "HEAD", runner=True)
        differ = sorted(k for k in set(plain) | set(ran) if plain.get(k) != ran.get(k))
        print(f"{arg}: without the runner {dict(collections.Counter(plain.values()))} in {t_plain:.1f} s; under it "
              f"{dict(collections.Counter(ran.values()))} in {t_ran:.1f} s; tests whose outcome differs: {len(differ)}")
        for package, test in differ[:10]:
            print(f"    {package} {test}: {plain.get((package, test))} -> {ran.get((package, test))}")


if __name__ == "__main__":
    main()
