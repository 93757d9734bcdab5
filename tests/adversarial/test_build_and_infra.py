"""Hostile C++ builds and a broken sandbox (issue scenarios 12-13)."""

import os
import time

import pytest

from _adv import checks, db_bytes, grade, new_marker, project, world_dir

pytestmark = pytest.mark.sandbox  # every test here starts a sandbox

BUILD_WALL = 8.0


@pytest.fixture(scope="module")
def cpp(tmp_path_factory):
    return project(tmp_path_factory.mktemp("cppb"), "merge_intervals_cpp", wall=3.0, build_wall=BUILD_WALL)


def test_include_outside_the_task_is_a_build_failure_without_the_content(cpp):
    canary = "CANARY-" + new_marker()
    folder = world_dir("loop-adv-inc-")
    secret = folder / "secret.h"
    secret.write_text(f"#error {canary}\nint leaked = 1; // {canary}\n")
    os.chmod(secret, 0o644)
    src = f'#include "merge_intervals.hpp"\n#include "{secret}"\n'
    try:
        code, g, took, raw = grade(cpp, src)
    finally:
        secret.unlink()
        folder.rmdir()
    assert code == 1 and checks(g) == ["build"]
    assert "secret.h" in g["failures"][0]["detail"]  # not found: the path is named, the content never read
    assert canary not in raw and canary.encode() not in db_bytes(cpp["db"])
    assert took < 2 * BUILD_WALL + 10


def test_include_dev_zero_is_a_bounded_build_failure(cpp):
    code, g, took, _ = grade(cpp, '#include "merge_intervals.hpp"\n#include "/dev/zero"\n')
    assert code == 1 and checks(g) == ["build"]
    assert took < 2 * BUILD_WALL + 10


def test_endless_compile_is_killed_at_build_wall(cpp):
    # GCC stops one constexpr evaluation after 2**25 operations (a 2**22-step loop: 8 s here, under the wall
    # on CI, which then saw a limit error instead of a timeout). Each constant here stays far under the limit
    # (~3 s); 256 of them take minutes on any machine.
    spins = "".join(f"constexpr unsigned long long k{n} = spin({n}U);\n" for n in range(256))
    total = " + ".join(f"k{n}" for n in range(256))
    src = ('#include "merge_intervals.hpp"\nconstexpr unsigned long long spin(unsigned seed) {\n'
           "  unsigned long long x = seed;\n"
           "  for (unsigned i = 0; i < (1U << 10); ++i)\n    for (unsigned j = 0; j < (1U << 10); ++j) x += i ^ (x >> 3) ^ j;\n"
           f"  return x;\n}}\n{spins}"
           "std::vector<std::pair<int, int>> merge_intervals(std::vector<std::pair<int, int>> v) {\n"
           f"  v.push_back({{static_cast<int>(({total}) & 1), 0}});\n  return v;\n}}\n")
    start = time.monotonic()
    code, g, took, _ = grade(cpp, src)
    assert code == 1 and checks(g) == ["build"]
    assert "timeout" in g["failures"][0]["detail"] and "wall-clock" in g["failures"][0]["detail"]
    assert took < BUILD_WALL + 12  # killed at build_wall; then the reference build confirms the tool chain
    assert time.monotonic() - start >= BUILD_WALL - 0.5


def _fake_bwrap() -> str:
    folder = world_dir("loop-adv-bwrap-")
    script = folder / "bwrap"
    script.write_text('#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n')
    os.chmod(script, 0o755)
    return str(script)


@pytest.mark.parametrize("task", ["merge_intervals_py", "merge_intervals_cpp"])
@pytest.mark.parametrize("bwrap", ["missing", "fails_to_start"])
def test_broken_sandbox_is_inconclusive_never_a_fail_or_a_bare_run(tmp_path, task, bwrap):
    path = "/nonexistent/bwrap" if bwrap == "missing" else _fake_bwrap()
    p = project(tmp_path, task, sandbox=f'bwrap = "{path}"\n')
    marker = tmp_path / "ran_unsandboxed"
    if task.endswith("_py"):
        src = f"import pathlib\npathlib.Path({str(marker)!r}).write_text('x')\ndef merge_intervals(intervals):\n    return []\n"
    else:
        src = ('#include "merge_intervals.hpp"\nstd::vector<std::pair<int, int>> merge_intervals('
               "std::vector<std::pair<int, int>> v) {\n  return v;\n}\n")
    code, g, _, _ = grade(p, src, "--k", "2")
    assert code == 3 and g["verdict"] == "inconclusive"
    assert [a["status"] for a in g["attempts"]] == ["infra_unknown", "infra_unknown"]
    assert g["sandboxed"] is True and not marker.exists()
    if bwrap == "fails_to_start":
        assert any("uid map" in n for n in g["notes"]), g["notes"]
        os.unlink(path)
        os.rmdir(os.path.dirname(path))
