"""Runaway candidates: hangs, fork bombs, huge allocations, output floods, full disks, crashes (issue scenarios 1-5, 11)."""

import resource
import shutil

import pytest

from _adv import GRACE, NAME_SELF, checks, grade, new_marker, project, survivors, world_dir

WALL = 3.0

HANGS = {
    "loop_forever": "def merge_intervals(intervals):\n    while True:\n        pass\n",
    "sleep_forever": "import time\ndef merge_intervals(intervals):\n    time.sleep(10**6)\n",
    # stdin is /dev/null (requests travel on a descriptor of their own): block on a pipe nobody writes
    "block_on_read": "import os\ndef merge_intervals(intervals):\n    r, w = os.pipe()\n    return os.read(r, 1)\n",
    "ignore_sigterm": ("import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                       "def merge_intervals(intervals):\n    while True:\n        time.sleep(0.01)\n"),
    "hang_at_import": "while True:\n    pass\ndef merge_intervals(intervals):\n    return []\n",
}


@pytest.fixture
def py(tmp_path):
    return project(tmp_path, "merge_intervals_py", wall=WALL, tmpfs_mb=16, fsize_mb=8)


@pytest.fixture(scope="module")
def cpp(tmp_path_factory):
    # One project per module (and xdist worker), so the baseline and reference builds are cached.
    return project(tmp_path_factory.mktemp("cpp"), "merge_intervals_cpp", wall=WALL)


@pytest.mark.parametrize("name", sorted(HANGS))
@pytest.mark.sandbox
def test_python_hang_is_timeout_and_killed(py, name):
    marker = new_marker()
    code, g, took, _ = grade(py, NAME_SELF.format(marker=marker) + HANGS[name])
    assert code == 1 and g["verdict"] == "stable_fail"
    want = "build" if name == "hang_at_import" else "timeout"  # a hang while importing is a build failure
    assert checks(g) == [want], g["failures"]
    if want == "build":
        assert "wall-clock limit" in g["failures"][0]["detail"]
    assert took < WALL + GRACE
    assert survivors(marker) == []


@pytest.mark.parametrize("kind", ["bare", "children_hold"])
@pytest.mark.sandbox
def test_python_fork_bomb_fails_without_survivors(py, kind):
    marker = new_marker()
    body = {
        "bare": "    while True:\n        os.fork()\n",  # EAGAIN soon: BlockingIOError -> resource
        "children_hold": ("    while True:\n        try:\n            if os.fork() == 0:\n                time.sleep(10**6)\n"
                          "        except OSError:\n            time.sleep(0.01)\n"),
    }[kind]
    code, g, took, _ = grade(py, NAME_SELF.format(marker=marker) + "import os, time\ndef merge_intervals(intervals):\n" + body)
    assert code == 1 and g["verdict"] == "stable_fail"
    assert checks(g)[0] in ("resource", "timeout"), g["failures"]
    if kind == "bare":
        assert checks(g) == ["resource"], g["failures"]
    assert took < WALL + GRACE
    assert survivors(marker) == []


@pytest.mark.sandbox
def test_python_50gb_allocation_is_resource(py):
    code, g, took, _ = grade(py, "def merge_intervals(intervals):\n    b = bytearray(50 * 1024**3)\n    return [[len(b), 0]]\n")
    assert code == 1 and checks(g) == ["resource"] and "MemoryError" in g["failures"][0]["detail"]
    assert took < WALL + GRACE


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
@pytest.mark.sandbox
def test_python_output_flood_is_capped(py, stream):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    src = (f"import os\ndef merge_intervals(intervals):\n    fd = 1 if '{stream}' == 'stdout' else 2\n"
           "    block = b'x' * (1 << 20)\n    for _ in range(4096):  # 4 GiB\n        os.write(fd, block)\n    return []\n")
    code, g, took, out = grade(py, src)
    assert code == 1 and checks(g) == ["resource"] and "output exceeded" in g["failures"][0]["detail"]
    assert len(out) < 100_000  # the flood is not echoed
    grew_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grew_mb < 64, f"loop's memory grew by {grew_mb:.0f} MiB"
    assert took < WALL + GRACE


@pytest.mark.parametrize("where", ["/tmp", "."])
@pytest.mark.sandbox
def test_python_disk_fill_is_capped(py, where):
    watched = world_dir("loop-adv-disk-")
    free = shutil.disk_usage(watched).free
    src = ("import os\ndef merge_intervals(intervals):\n    block = b'x' * (1 << 20)\n"
           "    for i in range(4096):  # 4 GiB across files: the tmpfs fills before any one file hits FSIZE\n"
           f"        with open(os.path.join({where!r}, 'fill%d' % (i // 4)), 'ab') as f:\n"
           "            f.write(block)\n    return []\n")
    code, g, took, _ = grade(py, src)
    assert code == 1 and checks(g) == ["resource"], g["failures"]
    assert "No space left" in g["failures"][0]["detail"] or "too large" in g["failures"][0]["detail"]
    assert free - shutil.disk_usage(watched).free < 512 << 20  # nothing like 4 GiB reached the host disk
    assert took < WALL + GRACE
    watched.rmdir()


@pytest.mark.sandbox
def test_python_write_to_read_only_work_folder_fails(py):
    src = "def merge_intervals(intervals):\n    open('/work/x', 'w').write('x')\n    return []\n"
    code, g, _, _ = grade(py, src)
    assert code == 1 and "Read-only file system" in g["failures"][0]["detail"]


@pytest.mark.sandbox
@pytest.mark.parametrize("how, signame", [("import ctypes\n    ctypes.string_at(0)", "SIGSEGV"),
                                          ("import os\n    os.abort()", "SIGABRT")])
def test_python_crash_is_crash_with_signal(py, how, signame):
    code, g, took, _ = grade(py, f"def merge_intervals(intervals):\n    {how}\n")
    assert code == 1 and checks(g) == ["crash"] and signame in g["failures"][0]["detail"]
    assert took < WALL + GRACE


CPP = {
    "loop_forever": ("timeout", None, "volatile unsigned long n = 0;\n  for (;;) ++n;"),
    "alloc_50gb": ("resource", "bad_alloc",
                   "std::vector<char> big(static_cast<std::size_t>(50) << 30, 1);\n  v.push_back({big[7], 0});"),
    "stdout_flood": ("resource", "output exceeded",
                     "static char block[1 << 16];\n  for (int i = 0; i < 65536; ++i) fwrite(block, 1, sizeof block, stdout);"),
    "segfault": ("crash", "SIGSEGV", "volatile int* p = nullptr;\n  *p = 1;"),
    "abort": ("crash", "SIGABRT", "std::abort();"),
}


@pytest.mark.parametrize("name", sorted(CPP))
@pytest.mark.sandbox
def test_cpp_runaway(cpp, name):
    check, detail, body = CPP[name]
    src = ('#include "merge_intervals.hpp"\n#include <cstddef>\n#include <cstdio>\n#include <cstdlib>\n'
           "std::vector<std::pair<int, int>> merge_intervals(std::vector<std::pair<int, int>> v) {\n  "
           + body + "\n  return v;\n}\n")
    code, g, took, _ = grade(cpp, src)
    assert code == 1 and checks(g) == [check], g["failures"]
    if detail:
        assert detail in g["failures"][0]["detail"]
    assert took < 60  # builds (candidate + sanitizer) plus one attempt bounded by the wall limit
