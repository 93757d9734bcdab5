"""Issue 3 through `loop grade`: relations catch what goldens and named tests miss; seeds replay; sanitizer gate."""

import pytest

import json

import sqlite_utils

from conftest import EXAMPLES, grade_json

SORTS_IN_PLACE = '''
def merge_intervals(intervals):
    intervals.sort()
    merged = []
    for lo, hi in intervals:
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return [list(m) for m in merged]
'''

ADJACENT_INTEGERS_MERGE = '''
def merge_intervals(intervals):
    merged = []
    for lo, hi in sorted(map(list, intervals)):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return merged
'''

ALTERNATIVE_CORRECT = '''
def merge_intervals(intervals):
    """Sort by hi descending and sweep backwards: not the reference's algorithm."""
    out = []
    for lo, hi in sorted((tuple(iv) for iv in intervals), key=lambda p: (-p[1], -p[0])):
        if out and hi >= out[-1][0]:
            out[-1] = [min(lo, out[-1][0]), max(hi, out[-1][1])]
        else:
            out.append([lo, hi])
    out.sort()
    merged = []
    for lo, hi in out:
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return merged
'''

CPP_CONTAINED = '''#include "merge_intervals.hpp"
#include <algorithm>
std::vector<std::pair<int, int>> merge_intervals(std::vector<std::pair<int, int>> v) {
  std::sort(v.begin(), v.end());
  std::vector<std::pair<int, int>> out;
  for (const auto& iv : v) {
    if (!out.empty() && iv.first <= out.back().second) out.back().second = iv.second;  // forgets containment
    else out.push_back(iv);
  }
  return out;
}
'''

CPP_OUT_OF_BOUNDS = '''#include "merge_intervals.hpp"
#include <algorithm>
std::vector<std::pair<int, int>> merge_intervals(std::vector<std::pair<int, int>> v) {
  volatile int past_end = 0;
  if (!v.empty()) past_end = v.data()[v.size()].first;  // reads one past the end: right answers, undefined behaviour
  (void)past_end;
  std::sort(v.begin(), v.end());
  std::vector<std::pair<int, int>> out;
  for (const auto& iv : v) {
    if (!out.empty() && iv.first <= out.back().second) out.back().second = std::max(out.back().second, iv.second);
    else out.push_back(iv);
  }
  return out;
}
'''


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def _only_relations_fail(g, relation):
    checks = [f["check"] for f in g["failures"]]
    assert relation in checks, checks
    assert all(c.startswith("relation:") for c in checks), checks
    return next(f for f in g["failures"] if f["check"] == relation)


@pytest.mark.sandbox
def test_in_place_sort_caught_by_input_not_mutated(loop_cli, db, tmp_path):
    code, g = grade_json(loop_cli, "merge_intervals_py", _write(tmp_path, "c.py", SORTS_IN_PLACE), "--k", "1", "--db", db)
    assert code == 1
    failure = _only_relations_fail(g, "relation:input_not_mutated")
    assert "seed 1" in failure["detail"] and "minimal input" in failure["detail"]
    minimal = json.loads(sqlite_utils.Database(db).execute(
        "select minimal from checks where \"check\" = 'relation:input_not_mutated' limit 1").fetchone()[0])
    assert len(minimal) <= 3


@pytest.mark.sandbox
def test_adjacent_integers_merged_caught_by_cover(loop_cli, db, tmp_path):
    code, g = grade_json(loop_cli, "merge_intervals_py", _write(tmp_path, "c.py", ADJACENT_INTEGERS_MERGE),
                         "--k", "1", "--db", db)
    failure = _only_relations_fail(g, "relation:interval_cover")
    minimal = json.loads(failure["detail"].split("minimal input ")[1].split(";")[0])
    assert len(minimal) == 2


@pytest.mark.sandbox
def test_lower_instead_of_casefold_caught_only_by_relations(loop_cli, db):
    code, g = grade_json(loop_cli, "dedupe_words_py", EXAMPLES / "dedupe_words_py" / "lower_not_casefold.py",
                         "--k", "1", "--db", db)
    failure = _only_relations_fail(g, "relation:casefold_distinct")
    minimal = json.loads(failure["detail"].split("minimal input ")[1].split(";")[0])
    assert len(minimal) == 2 and minimal[0].lower() != minimal[1].lower()
    assert minimal[0].casefold() == minimal[1].casefold()


@pytest.mark.sandbox
def test_correct_alternative_implementation_passes(loop_cli, db, tmp_path):
    code, g = grade_json(loop_cli, "merge_intervals_py", _write(tmp_path, "alt.py", ALTERNATIVE_CORRECT),
                         "--k", "1", "--db", db)
    assert code == 0 and g["verdict"] == "stable_pass", g["failures"]


@pytest.mark.sandbox
def test_same_seed_same_failures_and_replay(loop_cli, db, tmp_path):
    path = _write(tmp_path, "c.py", ADJACENT_INTEGERS_MERGE)
    _, first = grade_json(loop_cli, "merge_intervals_py", path, "--k", "1", "--seed", "42", "--db", db)
    _, second = grade_json(loop_cli, "merge_intervals_py", path, "--k", "1", "--seed", "42", "--db", db)
    assert first["failures"] == second["failures"] and first["seed"] == 42
    _, other = grade_json(loop_cli, "merge_intervals_py", path, "--k", "1", "--seed", "43", "--db", db)
    assert other["failures"] != first["failures"]
    code, out = loop_cli("replay", first["candidate_id"], "--db", db, "--json")
    replayed = json.loads(out)
    assert replayed["matches"] is True and replayed["failures"] == first["failures"] and replayed["seed"] == 42
    sqlite_utils.Database(db)["candidates"].update(first["candidate_id"], {"verdict": "stable_pass"})
    code, out = loop_cli("replay", first["candidate_id"], "--db", db)
    assert code == 1 and "DIFFERENT" in out and "recomputed: stable_fail" in out


def test_seed_rotate_records_and_show(loop_cli, task_copy, tmp_path):
    _, cfg = task_copy("merge_intervals_py")
    code, out = loop_cli("seed", "show", config=cfg)
    assert out.strip() == "1"
    code, out = loop_cli("seed", "rotate", config=cfg)
    assert code == 0
    code, shown = loop_cli("seed", "show", config=cfg)
    new = int(shown)
    assert new != 1 and 0 <= new < 2**63
    loop_cli("seed", "rotate", config=cfg)
    rows = list(sqlite_utils.Database(tmp_path / "runs.db")["seeds"].rows)
    assert rows[0]["old"] is None and rows[0]["new"] == new and rows[1]["old"] == new


@pytest.mark.sandbox
def test_cpp_containment_bug_caught_by_relations(loop_cli, db, tmp_path):
    code, g = grade_json(loop_cli, "merge_intervals_cpp", _write(tmp_path, "c.cpp", CPP_CONTAINED), "--k", "1", "--db", db)
    checks = [f["check"] for f in g["failures"]]
    assert code == 1 and all(c.startswith("relation:") for c in checks) and "relation:interval_cover" in checks


@pytest.mark.sandbox
def test_cpp_out_of_bounds_caught_by_sanitizer_only(loop_cli, db, tmp_path):
    code, g = grade_json(loop_cli, "merge_intervals_cpp", _write(tmp_path, "c.cpp", CPP_OUT_OF_BOUNDS), "--k", "1",
                         "--trials", "20", "--db", db)
    assert code == 1 and [f["check"] for f in g["failures"]] == ["sanitizer"], g["failures"]
    assert "AddressSanitizer" in g["failures"][0]["detail"]
