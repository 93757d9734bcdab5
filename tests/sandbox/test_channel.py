"""The seal channel (issue 41, red team round ten): a FIFO only loop can read. Inside a real sandbox, as root and as
an unprivileged user, nothing can read it back, truncate, chmod, replace or remove it, yet writes arrive; long records
from concurrent writers arrive whole; a dead reader never leaves a writer waiting."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from loop.errors import SandboxUnavailable
from loop.sandbox.channel import PIPE_BUF, Channel

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "adversarial"))
from test_integrity import USERS, as_user  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

# Run as the user under test: a Channel, a sandbox that attacks it, what the sandbox saw and what loop drained.
DRIVER = r"""
import json, sys
from loop.sandbox import Limits, SandboxConfig, make_scratch, run
from loop.sandbox.channel import Channel

ATTACK = '''
import json, os
path, out = "/loopchannel/seals.jsonl", {}
def attempt(name, fn):
    try:
        fn()
        out[name] = "done"
    except OSError as exc:
        out[name] = exc.errno
attempt("read", lambda: os.open(path, os.O_RDONLY | os.O_NONBLOCK))
attempt("read_write", lambda: os.open(path, os.O_RDWR | os.O_NONBLOCK))
attempt("chmod", lambda: os.chmod(path, 0o666))
attempt("truncate", lambda: os.truncate(path, 0))
attempt("unlink", lambda: os.unlink(path))
attempt("rename", lambda: os.rename(path, "/loopchannel/held"))
open("/out/mine", "w").close()
attempt("replace", lambda: os.rename("/out/mine", path))
attempt("new_file", lambda: open("/loopchannel/other", "w"))
attempt("mount_aside", lambda: os.rename("/loopchannel", "/tmp/aside"))
for i in range(3):  # as the helpers open it: O_CREAT | O_APPEND on the read-only bind
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_TRUNC, 0o666)
    os.write(fd, b"line %d\\n" % i)
    os.close(fd)
print(json.dumps(out))
'''

scratch = make_scratch("loop-test-channel-")
(scratch / "out").mkdir(mode=0o777)
(scratch / "out").chmod(0o777)
cfg = SandboxConfig()
channel = Channel(scratch / "channel", "seals.jsonl", scratch / "drained", 1 << 20)
with channel:
    res = run(cfg, [cfg.interpreter(), "-c", ATTACK], limits=Limits(), env={"PATH": "/usr/bin:/bin"},
              ro=channel.binds(True), rw={"/out": str(scratch / "out")})
print(json.dumps({"sandbox": res.stdout.decode(), "stderr": res.stderr.decode()[-2000:],
                  "drained": (scratch / "drained").read_text(), "mode": oct(channel.fifo.stat().st_mode)}))
"""


@pytest.mark.sandbox
@pytest.mark.parametrize("user", USERS)
def test_the_sandbox_can_write_the_channel_and_nothing_else(user, tmp_path):
    done = subprocess.run([*as_user(user), sys.executable, "-c", DRIVER], capture_output=True, text=True,
                          timeout=120, cwd="/tmp", env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                                                        "HOME": "/tmp", "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout)
    assert got["sandbox"], got["stderr"]
    seen = json.loads(got["sandbox"])
    assert seen.pop("read") == seen.pop("read_write") == errno.EACCES  # the mode: no read for anyone, owner too
    assert set(seen.values()) <= {errno.EROFS, errno.EPERM, errno.EBUSY, errno.EACCES, errno.EINVAL, errno.EXDEV}, seen
    assert len(seen) == 7  # each attempt refused
    assert got["drained"] == "line 0\nline 1\nline 2\n"  # O_TRUNC is no-op on a FIFO: every line arrived
    assert got["mode"] == "0o10222"


def _python_writer(path: Path, tag: str, count: int, size: int) -> str:
    """A process that sends `count` records of `size` characters through loop's Python helper, as fast as it can."""
    from loop.kinds.repo import seal

    test = f"def test_big():\n    for i in range({count}):\n        assert big(i) == 'x'\n"
    sealed, seals = seal.plan(test, str(path), file="t.py")
    return sealed.replace("def test_big", f"def big(i):\n    return '{tag}' * {size} + str(i)\n\n\ndef test_big"), seals


def test_long_records_from_concurrent_writers_arrive_whole(tmp_path):
    """Two Python processes and two node processes each send 40 records of ~20 KB (five times PIPE_BUF) at once
    through loop's helpers: unframed, their writes would interleave in the pipe; framed, every record is whole."""
    from loop.kinds.repo import seal

    channel = Channel(tmp_path / "channel", seal.CHANNEL, tmp_path / seal.CHANNEL, seal.CHANNEL_CAP)
    fifo, size, count = str(channel.fifo), 20000, 40
    procs, all_seals = [], []
    with channel:
        for tag in "ab":
            text, seals = _python_writer(fifo, tag, count, size)
            all_seals += seals
            (tmp_path / f"w_{tag}.py").write_text(text + "\ntest_big()\n")
        node = ("import { test } from 'node:test';\nimport assert from 'node:assert/strict';\n"
                "function big(i) { return '%s'.repeat(%d) + i; }\n"
                "test('big', () => { for (let i = 0; i < %d; i++) assert.equal(big(i), 'x'); });\n")
        for tag in "cd":
            text, found = seal.js_go.plan_node(node % (tag, size, count), fifo, seal.EVERY, "w.mjs",
                                               seal._RNG, None, seal.VALUE_CAP, seal.DEPTH_CAP)
            assert len(found) == 1
            all_seals.append(seal.Seal(found[0][1], "w.mjs", 4, 0, "strict", "x", "", False, style="node"))
            (tmp_path / f"w_{tag}.mjs").write_text(text)
        for tag in "ab":
            procs.append(subprocess.Popen([sys.executable, str(tmp_path / f"w_{tag}.py")]))
        for tag in "cd":
            procs.append(subprocess.Popen(["node", str(tmp_path / f"w_{tag}.mjs")], stdout=subprocess.DEVNULL))
        assert [p.wait(timeout=120) for p in procs] == [0, 0, 0, 0]
    got, stray = seal.records(tmp_path, tuple(all_seals))
    assert stray is None
    values = sorted(v for vs in got.values() for v in vs)
    assert values == sorted(t * size + str(i) for t in "abcd" for i in range(count))
    assert len((tmp_path / seal.CHANNEL).read_bytes().split(b"\n")[0]) <= PIPE_BUF  # it was sent in pieces


def test_a_dead_reader_never_leaves_a_writer_waiting(tmp_path):
    """The drained copy cannot be written (/dev/full): the reader stops and closes the read end, so a writer gets
    EPIPE instead of blocking on a full pipe, and the run is infra (loop's fault), not the candidate's."""
    channel = Channel(tmp_path / "channel", "c", Path("/dev/full"), 1 << 20)
    writer = ("import os\nfd = os.open(%r, os.O_WRONLY)\ntry:\n    for _ in range(1000):\n"
              "        os.write(fd, b'x' * 4096)\nexcept BrokenPipeError:\n    print('EPIPE')\n") % str(channel.fifo)
    with pytest.raises(SandboxUnavailable, match="could not drain its seal channel"):
        with channel:
            done = subprocess.run([sys.executable, "-c", writer], capture_output=True, text=True, timeout=60)
    assert done.stdout == "EPIPE\n", done.stderr
