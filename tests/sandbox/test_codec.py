"""The wire codec (loop/codec.py): values survive the trip, and the sandbox side finds the codec staged
beside the worker when it runs by path with no `loop` package to import."""

import math
import subprocess
import sys

from loop.sandbox.inside.codec import dec, enc
from loop.kinds.function.programs import stage_worker


def test_tagged_values_survive_the_trip():
    value = [1, "a", None, True, 2.5, (1, (2, 3)), {(1, 2): {3}}, frozenset({"x"}), b"\x00\xff",
             float("inf"), {"k": [float("-inf")]}]
    wire = enc(value)
    assert dec(wire) == value
    assert isinstance(dec(enc((1, 2))), tuple)
    assert math.isnan(dec(enc(float("nan"))))
    assert enc({3, 1, 2}) == {"s": [1, 2, 3]}  # sets in a stable order: digests do not depend on hashing


def test_staged_worker_imports_the_codec_beside_it(tmp_path):
    stage_worker(tmp_path)
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        "before = list(sys.path)\n"
        "import worker, codec\n"
        "assert 'loop' not in sys.modules\n"
        "assert worker.enc is codec.enc and worker.dec is codec.dec\n"
        "assert sys.path == before, sys.path\n"
        "print(worker.enc((1, 2)))\n"
    )
    done = subprocess.run([sys.executable, "-I", "-S", "-B", str(probe)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "{'t': [1, 2]}"


def _enc_plain(v):
    """The codec without its fast paths (what enc was before them): the fast paths must not change a byte."""
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else {"f": repr(v)}
    if isinstance(v, list):
        return [_enc_plain(x) for x in v]
    if isinstance(v, tuple):
        return {"t": [_enc_plain(x) for x in v]}
    return enc(v)


def test_fast_paths_encode_and_decode_as_the_plain_codec():
    import json
    import random

    class Int(int):
        pass

    rng = random.Random(7)
    leaves = [0, -1, 2 ** 70, "s", "", True, False, None, 1.5, -0.0, float("inf"), float("nan"), Int(3), b"\x01"]

    def value(depth):
        r = rng.random()
        if depth > 3 or r < 0.4:
            return rng.choice(leaves)
        items = [value(depth + 1) for _ in range(rng.randint(0, 4))]
        return items if r < 0.7 else tuple(items)

    for _ in range(2000):
        v = value(0)
        wire = enc(v)
        assert json.dumps(wire) == json.dumps(_enc_plain(v))
        assert json.dumps(enc(dec(json.loads(json.dumps(wire))))) == json.dumps(wire)
