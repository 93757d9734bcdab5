"""C++ function tasks typed by task.toml's [signature] (loop/cppwire.py): the types, the codec both ways through
a real compiled driver in the sandbox, total decoding of what a candidate's process writes, task checks, and
grades of shipped and new task shapes (a task folder is the only addition)."""

import json
import math
import os
import random
import subprocess
import sys

import pytest
import sqlite_utils

from conftest import EXAMPLES, ROOT, grade_json
from loop import tasks
from loop.kinds.function.cppwire import Signature, parse_type
from loop.kinds.function.programs import build
from loop.sandbox import SandboxConfig

DEDUPE = EXAMPLES / "dedupe_words_cpp"


def test_types_parse_to_their_cpp_spelling_and_unknown_ones_are_refused():
    assert parse_type("const std::vector<std::string>&").cpp == "std::vector<std::string>"
    assert parse_type("std::pair<long long, std::vector<std::pair<double,bool>>>").cpp == \
        "std::pair<long long, std::vector<std::pair<double, bool>>>"
    assert parse_type("int64").cpp == "std::int64_t" and parse_type("int").bits == 32
    for bad, why in [("float", "unsupported type 'float'"), ("std::map<int, int>", "unsupported type"),
                     ("std::vector<int", "expected ',' or '>'"), ("std::pair<int>", "two types"),
                     ("std::vector<int, int>", "one type"), ("int int", "unexpected"), ("", "incomplete")]:
        with pytest.raises(ValueError, match=why):
            parse_type(bad)


def test_requests_are_typed_tokens_and_inputs_that_do_not_fit_are_refused():
    sig = Signature.from_table("f", {"args": ["std::vector<std::string>", "int", "double", "bool"], "returns": "int"})
    assert sig.encode_request(7, [["a b", "é\n"], -3, 1.5, True]) == b'7 2 3:a b 3:\xc3\xa9\n -3 0x1.8000000000000p+0 1\n'
    for args in ([["a"], 2 ** 31, 1.0, True], [["a"], True, 1.0, True], [[1], 1, 1.0, True], [["a"], 1, "x", True],
                 [["a"], 1, 1.0, 1], [["\ud800"], 1, 1.0, True], [["a"], 1, 1.0]):
        with pytest.raises(ValueError):
            sig.encode_request(1, args)


def test_decoding_what_the_candidate_process_writes_is_total():
    """Every line is decoded into a reply whose value has the return type, or refused by raising (which the
    Worker turns into the candidate's crash); nothing else escapes, whatever the bytes."""
    sig = Signature.from_table("f", {"args": [], "returns": "std::vector<std::pair<std::string, int>>"})
    assert sig.decode_reply(b'{"id":3,"ok":[["a\\"b",-2147483648]]}') == {"id": 3, "ok": [['a"b', -2147483648]],
                                                                          "after": None}
    assert sig.decode_reply(b'{"id":1,"ok":[["\xff",1]]}')["ok"] == [["\ufffd", 1]]  # bad UTF-8: a wrong value
    assert sig.decode_reply(b'{"id":2,"raised":"boom"}') == {"id": 2, "raised": "boom"}
    valid = [b'{"id":3,"ok":[["ab",1],["",2]]}', b'{"id":4,"raised":"x"}', b'{"ready":1}']
    hostile = [b"", b"1 ok 2 1 2", b"null", b"[]", b'{"id":1}', b'{"id":"1","ok":[]}', b'{"id":true,"ok":[]}',
               b'{"id":1,"ok":[["a",2147483648]]}', b'{"id":1,"ok":[["a",true]]}', b'{"id":1,"ok":[["a",1.0]]}',
               b'{"id":1,"ok":[["a"]]}', b'{"id":1,"ok":[[1,1]]}', b'{"id":1,"ok":{"t":[]}}', b'{"id":1,"ok":[],"x":1}',
               b'{"id":1,"raised":5}', b'{"id":1,"ok":[' * 100000, b'{"id":1,"ok":[["a",' + b"9" * 5000 + b"]]}"]
    rng = random.Random(16)
    for _ in range(3000):
        line = bytearray(rng.choice(valid))
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(line) + 1)
            line[i:i + rng.randint(0, 3)] = bytes(rng.randrange(256) for _ in range(rng.randint(0, 3)))
        hostile.append(bytes(line))
    for line in hostile:
        try:
            msg = sig.decode_reply(line)
        except Exception:  # noqa: BLE001 - refusing is the point
            continue
        assert msg == {"ready": 1} or set(msg) in ({"id", "ok", "after"}, {"id", "raised"}, {"id", "resource"}), line
        if "ok" in msg:
            assert all(type(s) is str and type(n) is int and -2 ** 31 <= n < 2 ** 31 for s, n in msg["ok"]), line


ECHO_HEADER = """\
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>
std::pair<std::vector<std::pair<std::string, std::int64_t>>, std::vector<double>> echo(
    const std::vector<std::pair<std::string, std::int64_t>>& items, const std::vector<double>& xs, bool flip);
"""
ECHO = """\
#include "echo.hpp"
#include <algorithm>
std::pair<std::vector<std::pair<std::string, std::int64_t>>, std::vector<double>> echo(
    const std::vector<std::pair<std::string, std::int64_t>>& items, const std::vector<double>& xs, bool flip) {
  auto out = std::make_pair(items, xs);
  if (flip) {
    std::reverse(out.first.begin(), out.first.end());
    std::reverse(out.second.begin(), out.second.end());
  }
  return out;
}
"""
ECHO_SIGNATURE = """
[signature]
args = ["const std::vector<std::pair<std::string, std::int64_t>>&", "const std::vector<double>&", "bool"]
returns = "std::pair<std::vector<std::pair<std::string, std::int64_t>>, std::vector<double>>"
"""


def _task(root, name, files: dict, signature: str, entry: str, extra: str = ""):
    folder = root / "harness" / "tasks" / name
    folder.mkdir(parents=True)
    for fname, text in files.items():
        (folder / fname).write_text(text)
    (folder / "task.toml").write_text(f'name = "{name}"\nlanguage = "cpp"\nentry_point = "{entry}"\n'
                                      f'candidate_file = "{entry}.cpp"\ncontract = "{entry}.hpp"\n'
                                      f'reference = "reference.cpp"\n{extra}\n' + signature)
    return folder


@pytest.mark.sandbox
def test_values_of_every_supported_type_survive_a_compiled_driver_in_the_sandbox(tmp_path):
    _task(tmp_path, "echo_cpp", {"echo.hpp": ECHO_HEADER, "reference.cpp": ECHO}, ECHO_SIGNATURE, "echo")
    task = tasks.load(tmp_path, "echo_cpp")
    program = build(task, task.reference, "reference", SandboxConfig())
    assert program.build_error is None, program.build_error
    items = [["", 0], ['q"uote\\', -2 ** 63], ["line\nbreak\ttab\x01\x7f", 2 ** 63 - 1], ["日本 ß\x00nul", 42]]
    xs = [0.1, -0.0, 1e300, 5e-324, float("inf"), float("-inf"), float("nan"), 3.0]
    worker = program.start(SandboxConfig(), repeat=0)
    try:
        same, flipped, empty = worker.call_many([[items, xs, False], [items, xs, True], [[], [], True]])
    finally:
        worker.close()
    got_items, got_xs = same["ok"]
    assert got_items == items
    assert [x for x in got_xs[:4]] == xs[:4] and math.copysign(1, got_xs[1]) == 1  # -0 travels as 0
    assert got_xs[4:7] == [{"f": "inf"}, {"f": "-inf"}, {"f": "nan"}] and got_xs[7] == 3.0
    assert flipped["ok"][0] == items[::-1] and empty["ok"] == [[], []]


def test_signature_problems_are_one_line_task_errors(loop_cli, task_copy):
    folder, cfg = task_copy("dedupe_words_cpp")
    toml = folder / "task.toml"
    original = toml.read_text()
    toml.write_text(original.replace('returns = "std::vector<std::string>"', 'returns = "std::map<int, int>"'))
    code, out = loop_cli("tasks", "check", "dedupe_words_cpp", config=cfg)
    assert code == 2 and "task.toml: [signature]: unsupported type 'std::map'" in out
    head, _, rest = original.partition("[signature]")
    toml.write_text(head + rest[rest.index("[limits]"):])
    code, out = loop_cli("tasks", "check", "dedupe_words_cpp", config=cfg)
    assert code == 2 and "C++ tasks need a [signature] table" in out
    tests = json.loads((folder / "tests.json").read_text())
    tests[0]["input"] = ["a", 1]
    (folder / "tests.json").write_text(json.dumps(tests))
    toml.write_text(original)
    code, out = loop_cli("tasks", "check", "dedupe_words_cpp", config=cfg)
    assert code == 2 and "test 'case_variants': the input does not fit [signature]" in out
    tests[0]["input"], tests[0]["expected"] = ["a"], [7]
    (folder / "tests.json").write_text(json.dumps(tests))
    code, out = loop_cli("tasks", "check", "dedupe_words_cpp", config=cfg)
    assert code == 2 and "the expected value is not a std::vector<std::string>" in out


@pytest.mark.sandbox
def test_a_signature_the_contract_header_disagrees_with_is_refused_when_the_driver_builds(loop_cli, task_copy):
    folder, cfg = task_copy("dedupe_words_cpp")
    for path in (folder / "goldens").glob("*"):
        path.unlink()
    (folder / "tests.json").write_text("[]")
    toml = folder / "task.toml"
    toml.write_text(toml.read_text().replace('returns = "std::vector<std::string>"', 'returns = "std::vector<int>"'))
    code, out = loop_cli("tasks", "check", "dedupe_words_cpp", config=cfg)
    assert code == 2 and "the driver generated from [signature] does not build against dedupe_words.hpp" in out
    assert "does not" in out and out.strip().count("\n") == 1  # one FAIL line, then the summary
    assert out.strip().splitlines()[-1].startswith("0 ok, 1 failed, 0 skipped of 1 tasks")


@pytest.mark.sandbox
def test_dedupe_words_cpp_grades_a_correct_and_a_wrong_candidate(loop_cli, db):
    code, g = grade_json(loop_cli, "dedupe_words_cpp", DEDUPE / "correct_repair.cpp", "--k", "2", "--trials", "60",
                         "--db", db)
    assert code == 0 and g["verdict"] == "stable_pass", g["failures"]
    assert g["transitions"]["fail_to_pass"] == {"repaired": 4, "still_broken": 0}
    code, g = grade_json(loop_cli, "dedupe_words_cpp", DEDUPE / "lowercased_output.cpp", "--k", "1", "--trials", "60",
                         "--db", db)
    assert code == 1 and g["verdict"] == "stable_fail"
    failures = {f["check"]: f["detail"] for f in g["failures"]}
    assert failures["test:case_variants"] == 'expected ["Apple"], got ["apple"]'
    assert "test:non_ascii_kept_apart" in failures and "relation:agrees_with_reference" in failures
    assert g["transitions"]["pass_to_pass"]["regressed"] == 1
    assert {r["verdict"] for r in sqlite_utils.Database(db)["candidates"].rows} == {"stable_pass", "stable_fail"}


JOIN_HEADER = """\
#pragma once
#include <string>
#include <vector>
// The first n words joined by single spaces (all of them when n is larger; none when n <= 0).
std::string join_first(const std::vector<std::string>& words, int n);
"""
JOIN_REFERENCE = """\
#include "join_first.hpp"
std::string join_first(const std::vector<std::string>& words, int n) {
  std::string out;
  for (int i = 0; i < n && i < static_cast<int>(words.size()); ++i) {
    if (i) out += ' ';
    out += words[i];
  }
  return out;
}
"""
JOIN_BASELINE = JOIN_REFERENCE.replace("i < n &&", "i <= n &&")
JOIN_TESTS = [
    {"name": "two_of_three", "kind": "f2p", "args": [["a", "b", "c"], 2], "expected": "a b"},
    {"name": "none", "kind": "f2p", "args": [["a"], 0], "expected": ""},
    {"name": "more_than_there_are", "kind": "p2p", "args": [["x y", "z"], 5], "expected": "x y z"},
]


@pytest.mark.sandbox
def test_a_new_task_shape_is_a_task_folder_only(loop_cli, tmp_path):
    """std::string join_first(const std::vector<std::string>&, int): signature, header, baseline, reference
    and tests in a folder; `loop tasks check` is green and a correct and a wrong candidate grade as they are."""
    _task(tmp_path, "join_first_cpp", {"join_first.hpp": JOIN_HEADER, "reference.cpp": JOIN_REFERENCE,
                                       "baseline.cpp": JOIN_BASELINE, "tests.json": json.dumps(JOIN_TESTS)},
          '[signature]\nargs = ["const std::vector<std::string>&", "int"]\nreturns = "std::string"\n', "join_first",
          extra='baseline = "baseline.cpp"\ntests = "tests.json"')
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[loop]\ndb = "{tmp_path / "runs.db"}"\nk = 1\ntrials = 0\n')
    code, out = loop_cli("tasks", "check", "join_first_cpp", config=cfg)
    assert code == 0 and "ok   join_first_cpp" in out, out
    good = tmp_path / "good.cpp"
    good.write_text('#include "join_first.hpp"\n#include <algorithm>\n'
                    "std::string join_first(const std::vector<std::string>& w, int n) {\n"
                    "  std::string s;\n  for (int i = 0; i < std::min<int>(n, w.size()); ++i) s += (i ? \" \" : \"\") + w[i];\n"
                    "  return s;\n}\n")
    code, out = loop_cli("grade", "join_first_cpp", good, "--json", config=cfg)
    g = json.loads(out.strip().splitlines()[-1])
    assert code == 0 and g["verdict"] == "stable_pass", g
    wrong = tmp_path / "wrong.cpp"
    wrong.write_text(JOIN_REFERENCE.replace("out += ' ';", "out += ',';"))
    code, out = loop_cli("grade", "join_first_cpp", wrong, "--json", config=cfg)
    g = json.loads(out.strip().splitlines()[-1])
    assert code == 1 and {f["check"]: f["detail"] for f in g["failures"]} == {
        "test:two_of_three": 'expected "a b", got "a,b"', "test:more_than_there_are": 'expected "x y z", got "x y,z"'}
    assert g["transitions"] == {"fail_to_pass": {"repaired": 1, "still_broken": 1},
                                "pass_to_pass": {"preserved": 0, "regressed": 1}}


HOSTILE = {
    # A reply of the wrong type forged on every descriptor before the handshake: the candidate's crash.
    "forged_reply": """\
#include "dedupe_words.hpp"
#include <unistd.h>
static int forge = [] {
  for (int fd = 3; fd < 64; ++fd) (void)!write(fd, "{\\"id\\":1,\\"ok\\":[1,2]}\\n", 20);
  return 0;
}();
std::vector<std::string> dedupe_words(const std::vector<std::string>& w) { return w; }
""",
    # Bytes that are not UTF-8 in a returned string: a wrong value, decoded, never an exception in loop.
    "broken_utf8": """\
#include "dedupe_words.hpp"
std::vector<std::string> dedupe_words(const std::vector<std::string>& w) {
  std::vector<std::string> out = w;
  for (auto& s : out) s += "\\xff\\xc3";
  return out;
}
""",
    # An exception whose message holds quotes, a newline and a backslash: a failed test naming it.
    "throws": """\
#include "dedupe_words.hpp"
#include <stdexcept>
std::vector<std::string> dedupe_words(const std::vector<std::string>&) {
  throw std::runtime_error("no \\"dedupe\\"\\nhere \\\\ today");
}
""",
}


@pytest.mark.sandbox
def test_hostile_bytes_from_a_cpp_candidate_are_its_own_failure(loop_cli, db, tmp_path):
    results = {}
    for name, source in HOSTILE.items():
        path = tmp_path / f"{name}.cpp"
        path.write_text(source)
        code, g = grade_json(loop_cli, "dedupe_words_cpp", path, "--k", "1", "--trials", "0", "--db", db)
        assert code == 1 and g["verdict"] == "stable_fail" and g["infra"] == 0, (name, g)
        results[name] = {f["check"]: f["detail"] for f in g["failures"]}
    assert list(results["forged_reply"]) == ["crash"]
    assert "test:empty" not in results["broken_utf8"]  # nothing returned, nothing broken
    assert "\ufffd" in results["broken_utf8"]["test:distinct_words_unchanged"]
    assert results["throws"]["test:empty"] == 'expected [], got "raised: no \\"dedupe\\"\\nhere \\\\ today"'


@pytest.mark.slow
def test_driver_objects_are_cached_on_disk_by_content_hash_and_a_broken_one_is_not_the_candidates(tmp_path, task_copy):
    """A fresh `loop grade` process builds each flag set's driver once into the cache; the next process links
    the cached objects (shown by breaking them: then the task's own code does not build, and the task is
    refused before any candidate is judged). Independent of the machine's speed: the task's builds get
    15 minutes (a loaded machine made its 60 s an infra_unknown), and a task check that could not start a
    sandbox (a loaded machine again) leaves the judgment to the grade, where the reference does not build
    either: inconclusive, for the same broken object."""
    folder, cfg = task_copy("dedupe_words_cpp")
    toml = folder / "task.toml"
    toml.write_text(toml.read_text().replace("[limits]\n", "[limits]\nbuild_wall = 900.0\n"))
    env = {**os.environ, "LOOP_CPP_CACHE": str(tmp_path / "cpp-cache")}

    def grade_once(db):
        done = subprocess.run([sys.executable, "-m", "loop", "--config", str(cfg), "grade", "dedupe_words_cpp",
                               str(DEDUPE / "correct_repair.cpp"), "--k", "1", "--trials", "0", "--db",
                               str(tmp_path / db), "--json"],
                              cwd=ROOT, env={**env, "XDG_CACHE_HOME": str(tmp_path / f"xdg-{db}")},  # task checks anew
                              capture_output=True, text=True, timeout=1800)
        assert "Traceback" not in done.stderr, done.stderr
        return done.returncode, json.loads(done.stdout.strip().splitlines()[-1])

    code, g = grade_once("a.db")
    assert code == 0 and g["verdict"] == "stable_pass", g
    entries = sorted((tmp_path / "cpp-cache").iterdir())
    assert len(entries) == 2  # the plain flags and the sanitizer flags
    assert all((e / "driver.o").is_file() and (e / ".complete").is_file() for e in entries)
    for e in entries:
        (e / "driver.o").write_bytes(b"not an object file")
    code, g = grade_once("b.db")
    if code == 2:
        assert g["error"].startswith("task refused: dedupe_words_cpp: the baseline does not build"), g
        assert "/drv/driver.o" in g["error"] and "verdict" not in g
    else:
        why = " ".join(g["notes"])
        assert code == 3 and g["verdict"] == "inconclusive", g
        assert why.startswith("the reference does not build either") and "/drv/driver.o" in why, g


@pytest.mark.sandbox
def test_a_synthesized_test_the_signature_cannot_carry_is_invalid_before_anything_runs(loop_cli, task_copy, tmp_path):
    """`loop tests judge` on a C++ task: model-written inputs and expected values must fit [signature] (here
    with no relations.py, so nothing else checks it): an int among the words is invalid and never runs; an
    expected value the function cannot return is a wrong expectation, as in any language."""
    folder, cfg = task_copy("dedupe_words_cpp")
    (folder / "relations.py").unlink()
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps([{"name": "bug", "input": ["A", "a"], "expected": ["A"]},
                                 {"name": "mixed", "input": ["a", 5], "expected": []},
                                 {"name": "ints", "input": ["a"], "expected": [1]}]))
    code, out = loop_cli("tests", "judge", "dedupe_words_cpp", suite, "--json", config=cfg)
    result = json.loads(out.strip().splitlines()[-1])
    assert code == 1 and result["verdict"] == "rejected", result
    tests = {t["name"]: t for t in result["tests"]}
    assert tests["bug"]["class"] == "reproduces_bug"
    assert "input does not fit the signature of dedupe_words: 5 is not a string" in tests["mixed"]["reason"]
    assert tests["mixed"]["baseline"] is None and tests["mixed"]["reference"] is None
    assert tests["ints"]["class"] == "wrong_expectation"
