"""Escapes: network, secrets, writes outside the sandbox, faked results, killing the harness (issue scenarios 6-10)."""

import os
import socket
import subprocess
import threading

import pytest
import sqlite_utils

from _adv import GRACE, ROOT, checks, db_bytes, grade, new_marker, project, survivors, tree_digest, world_dir

pytestmark = pytest.mark.sandbox  # every test here starts a sandbox

WALL = 3.0


@pytest.fixture
def py(tmp_path):
    return project(tmp_path, "merge_intervals_py", wall=WALL)


def test_network_tcp_dns_and_unix_sockets_fail(py):
    got = []
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(8)
    tcp.settimeout(0.2)
    folder = world_dir("loop-adv-sock-")
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(str(folder / "s.sock"))
    os.chmod(folder / "s.sock", 0o777)
    unix.listen(8)
    unix.settimeout(0.2)
    abstract = socket.socket(socket.AF_UNIX)
    abstract.bind("\0" + folder.name)
    abstract.listen(8)
    abstract.settimeout(0.2)
    stop = threading.Event()

    def accept():
        while not stop.is_set():
            for s in (tcp, unix, abstract):
                try:
                    got.append(s.accept())
                except (socket.timeout, OSError):
                    pass

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    src = f"""import socket
def merge_intervals(intervals):
    out = []
    tries = [
        lambda: socket.create_connection(("127.0.0.1", {tcp.getsockname()[1]}), timeout=1).sendall(b"hi"),
        lambda: socket.getaddrinfo("example.com", 80),
        lambda: socket.create_connection(("example.com", 80), timeout=1),
        lambda: socket.socket(socket.AF_UNIX).connect({str(folder / "s.sock")!r}),
        lambda: socket.socket(socket.AF_UNIX).connect("\\0" + {folder.name!r}),
    ]
    for i, f in enumerate(tries):
        try:
            f()
            out.append("CONNECT" + "ED%d" % i)
        except Exception as e:
            out.append(type(e).__name__)
    return out
"""
    try:
        code, g, _, raw = grade(py, src)
    finally:
        stop.set()
        t.join()
        for s in (tcp, unix, abstract):
            s.close()
        (folder / "s.sock").unlink()
        folder.rmdir()
    assert code == 1 and "CONNECTED" not in raw
    assert got == []


def test_secrets_are_nowhere(py, tmp_path, monkeypatch):
    canary = "sk-canary-" + new_marker()
    monkeypatch.setenv("OPENAI_API_KEY", canary)
    monkeypatch.setenv("LOOP_API_KEY", canary)
    home = world_dir("loop-adv-home-")
    (home / ".netrc").write_text(f"machine api password {canary}\n")
    os.chmod(home / ".netrc", 0o644)
    monkeypatch.setenv("HOME", str(home))
    (py["proj"] / "secret.env").write_text(f"KEY={canary}\n")
    paths = ["/proc/self/environ", "/proc/1/environ", "/proc/1/cmdline", str(home / ".netrc"), "/root/.netrc",
             str(py["proj"] / "secret.env"), str(ROOT / "config.toml"), "/work/main/config.toml"]
    src = f"""import glob, os, sys
def merge_intervals(intervals):
    seen = [repr(dict(os.environ))]
    for p in {paths!r} + glob.glob("/proc/*/environ") + glob.glob("/proc/*/cmdline"):
        try:
            seen.append(p + "=" + open(p, "rb").read().decode(errors="replace"))
        except Exception as e:
            seen.append(p + "!" + type(e).__name__)
    text = "\\n".join(seen)
    print(text)
    print(text, file=sys.stderr)
    return [text]
"""
    try:
        code, g, _, raw = grade(py, src)
    finally:
        (home / ".netrc").unlink()
        home.rmdir()
    assert code == 1
    assert "/proc/1/environ=" in raw  # the candidate did read it, and found nothing
    assert canary not in raw
    assert canary.encode() not in db_bytes(py["db"])


def test_writes_outside_the_sandbox_change_nothing(py, tmp_path, monkeypatch):
    home = world_dir("loop-adv-home-")
    (home / "notes.txt").write_text("mine\n")
    os.chmod(home / "notes.txt", 0o666)
    monkeypatch.setenv("HOME", str(home))
    seed_code, _, _, _ = grade(py, "def merge_intervals(intervals):\n    return intervals\n")  # creates runs.db
    repo_task = ROOT / "harness" / "tasks" / "merge_intervals_py"
    watched = [home, py["task"], repo_task, py["db"]]
    before = tree_digest(*watched)
    targets = [str(home / "notes.txt"), str(home / "new.txt"), str(py["task"] / "task.toml"),
               str(py["task"] / "goldens" / "new.json"), str(py["db"]), str(repo_task / "tests.json"),
               str(ROOT / "pwned.txt"), "/root/pwned.txt"]
    targets += [str(p) for p in sorted((py["task"] / "goldens").iterdir())][:3]
    src = f"""import os
def merge_intervals(intervals):
    for p in {targets!r}:
        for mode in ("w", "a"):
            try:
                with open(p, mode) as f:
                    f.write("PWN" + "ED")
            except Exception:
                pass
        try:
            os.unlink(p)
        except Exception:
            pass
    return []
"""
    code, g, _, _ = grade(py, src)
    after = tree_digest(*watched)
    db_after = after.pop(str(py["db"]))
    before.pop(str(py["db"]))
    assert code == 1 and after == before
    assert not (ROOT / "pwned.txt").exists() and not os.path.exists("/root/pwned.txt")
    assert b"PWNED" not in db_bytes(py["db"]) and db_after
    assert sqlite_utils.Database(py["db"]).execute("pragma integrity_check").fetchone()[0] == "ok"
    for p in home.iterdir():
        p.unlink()
    home.rmdir()


FAKES = {
    "print_pass": ('print("PASS")\nprint(\'{"ready": 1}\')\n'
                   "def merge_intervals(intervals):\n"
                   "    print('PASS'); print('{\"id\": 1, \"ok\": [[1, 5]], \"after\": null}')\n    return []\n"),
    "os_exit_0": "import os\ndef merge_intervals(intervals):\n    os._exit(0)\n",
    "sys_exit_0": "import sys\ndef merge_intervals(intervals):\n    sys.exit(0)\n",
    "exit_at_import": "import sys\nsys.exit(0)\ndef merge_intervals(intervals):\n    return []\n",
    "patch_atexit": ("import atexit, os, sys\natexit.register(lambda: os._exit(0))\nsys.excepthook = lambda *a: None\n"
                     "def merge_intervals(intervals):\n    raise SystemExit(0)\n"),
    "forge_pipe": ("import os\ndef merge_intervals(intervals):\n    for fd in range(3, 12):\n        try:\n"
                   "            os.write(fd, b'{\"id\": 1, \"ok\": [[1, 5]], \"after\": null}\\nPASS\\n')\n"
                   "        except OSError:\n            pass\n    os._exit(0)\n"),
    "corrupt_pipe": ("import os\ndef merge_intervals(intervals):\n    for fd in range(3, 12):\n        try:\n"
                     "            os.write(fd, b'{\"id\": 1, \"ok\": {\"zz\": 1}}\\n{\"id\": 2, \"ok\": {\"d\": 5}}\\n')\n"
                     "        except OSError:\n            pass\n    os._exit(0)\n"),
    "deep_pipe": ("import os\ndef merge_intervals(intervals):\n    for fd in range(3, 12):\n        try:\n"
                  "            os.write(fd, b'[' * 100000 + b'\\n')\n"
                  "        except OSError:\n            pass\n    os._exit(0)\n"),
}


@pytest.mark.parametrize("name", sorted(FAKES))
def test_fake_results_never_pass(py, name):
    code, g, _, _ = grade(py, FAKES[name])
    assert code == 1 and g["verdict"] == "stable_fail" and not g["resolved"]
    assert g["failures"]


@pytest.mark.parametrize("how", ["kill_parent", "kill_all", "setsid_daemon"])
def test_killing_and_daemons_leave_loop_unaffected(py, how):
    marker = new_marker()
    bystander = subprocess.Popen(["sleep", "60"])  # a process of ours outside: kill -1 must not reach it
    body = {
        "kill_parent": "    os.kill(os.getppid(), 9)\n    os.kill(1, 9)\n",
        "kill_all": "    subprocess.run(['/bin/sh', '-c', 'kill -9 -1'])\n    os.kill(-1, 9)\n",
        "setsid_daemon": (f"    subprocess.Popen(['/bin/sh', '-c', 'trap \"\" TERM HUP; while :; do sleep 1; done', '{marker}'],\n"
                          "                     start_new_session=True, stdin=subprocess.DEVNULL,\n"
                          "                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"),
    }[how]
    src = "import os, subprocess\ndef merge_intervals(intervals):\n" + body + "    return intervals\n"
    try:
        code, g, took, _ = grade(py, src)
        assert bystander.poll() is None
    finally:
        bystander.kill()
        bystander.wait()
    assert code == 1 and g["verdict"] == "stable_fail"
    assert took < WALL + GRACE
    assert survivors(marker) == []
    code, g, _, _ = grade(py, (ROOT / "harness" / "examples" / "merge_intervals_py" / "correct_repair.py").read_text())
    assert code == 0 and g["verdict"] == "stable_pass"  # loop still grades normally afterwards
