"""The arguments' state after a call: what the worker sends (only a change, a late one folded in on the fork
path), how the parent decodes it (totally), arguments_agree against the reference, MUTATION_ALLOWED."""

from __future__ import annotations

import threading
import time

import pytest

from loop import verdicts as V
from loop.errors import CandidateFault
from loop.kinds.function.decide import arg_after, mutation_check
from loop.oracles import Oracle, Returned, run_relations
from loop.oracles import common, engine, fuzz
from loop.oracles.engine import CandidateRaised, Relation
from loop.sandbox.inside import worker as W
from loop.sandbox.inside.codec import enc


def _wire(*args):
    return [enc(a) for a in args]


def test_a_reply_carries_only_the_arguments_the_call_changed():
    def sort_first(xs, ys):
        xs.sort()
        return len(ys)

    assert W.call(lambda xs, ys: len(xs), _wire([3, 1], (1, 2))) == {"ok": 2}  # nothing sent back
    assert W.call(sort_first, _wire([3, 1], [2, 0])) == {"ok": 2, "args": [[0, [1, 3]]]}
    # a dict reordered, a set re-added: encoded the same way, so nothing changed
    assert "args" not in W.call(lambda d, s: s.add(1) or d.update(a=1), _wire({"a": 1}, {1, 2}))


def test_a_change_after_the_call_returned_is_folded_into_that_calls_reply():
    kept = []

    def later(xs):
        kept.append(xs)
        if len(kept) == 2:
            kept[0].append(9)  # the second call changes the first call's list
            threading.Thread(target=lambda: (time.sleep(0.01), xs.clear())).start()
        return 0

    replies = W.call_all(later, [_wire([1]), _wire([2, 3])])
    assert replies == [{"ok": 0, "args": [[0, [1, 9]]]}, {"ok": 0, "args": [[0, []]]}]


def test_the_parent_decodes_the_state_totally():
    lists = Oracle(argument_lists=True)
    one = Oracle()
    x = [[3, 1], 2]
    assert arg_after(lists, x, {"ok": 1}) is None
    assert arg_after(lists, x, {"ok": 1, "args": [[0, [1, 3]]]}) == [[1, 3], 2]
    assert arg_after(one, [3, 1], {"ok": 1}) == [3, 1]
    assert arg_after(one, [3, 1], {"ok": 1, "args": [[0, {"t": [1]}]]}) == (1,)
    for bad in ([], [[2, 1]], [[-1, 1]], [["0", 1]], [[0]], {"0": 1}, [[0, {"t": 5}]], [[True, 1]], "x"):
        with pytest.raises(CandidateFault) as info:
            arg_after(lists, x, {"ok": 1, "args": bad})
        assert info.value.check == V.CRASH


def _oracle(**kw) -> Oracle:
    return Oracle(relations=(fuzz.agrees_with_reference(), fuzz.arguments_agree()), argument_lists=True,
                  discard_reference_failures=True, shrink=fuzz.shrink_args,
                  generate=lambda rng, size: [[rng.randrange(100) for _ in range(size)]], **kw)


def _runner(fn):
    """A Call running fn in-process on a copy of x, with the state as the parent reads it from a reply."""
    def call(x):
        wire = _wire(*x)
        reply = W.call(fn, wire)
        if "ok" not in reply:
            raise CandidateRaised(reply.get("raised"))
        return Returned(reply["ok"], arg_after(Oracle(argument_lists=True), x, reply))
    return call


def _median_sorted(xs):
    s = sorted(xs)
    return s[len(s) // 2] if s else None


def _median_in_place(xs):
    xs.sort()
    return xs[len(xs) // 2] if xs else None


def test_arguments_agree_fails_a_change_the_reference_does_not_make_with_a_shrunk_counterexample():
    failures = run_relations(_oracle(), _runner(_median_in_place), _runner(_median_sorted), seed=1, trials=50)
    assert [f.relation for f in failures] == ["arguments_agree"]
    f = failures[0]
    assert len(f.minimal[0]) == 2 and f.minimal[0] != sorted(f.minimal[0])  # two items out of order
    assert f.reason.startswith("argument 1 changed: before the call ") and "the reference leaves it unchanged" in f.reason
    # the reference sorts in place too: agreeing with it passes, keeping the list then fails
    assert run_relations(_oracle(), _runner(_median_in_place), _runner(_median_in_place), seed=1, trials=50) == []
    keeps = run_relations(_oracle(), _runner(_median_sorted), _runner(_median_in_place), seed=1, trials=50)
    assert [f.relation for f in keeps] == ["arguments_agree"] and "the reference leaves it [" in keeps[0].reason


def test_a_candidate_that_raises_is_not_blamed_twice():
    def boom(xs):
        raise ValueError("no")

    failures = run_relations(_oracle(), _runner(boom), _runner(_median_sorted), seed=1, trials=10)
    assert [f.relation for f in failures] == ["agrees_with_reference"]


def test_mutation_allowed_drops_every_relation_reading_the_arguments():
    oracle = _oracle(mutation_allowed=True)
    assert [r.name for r in oracle.relations] == ["agrees_with_reference"]
    assert mutation_check(oracle) is None and mutation_check(_oracle()) == "relation:arguments_agree"
    assert run_relations(oracle, _runner(_median_in_place), _runner(_median_sorted), seed=1, trials=50) == []
    kept = Relation("mine", lambda x, ctx: None)
    assert Oracle(relations=(kept,), generate=lambda r, s: 1, mutation_allowed=True).relations == (kept,)
    with pytest.raises(ValueError, match="MUTATION_ALLOWED must be True or False"):
        _oracle(mutation_allowed=1)


def _floats(xs):  # the right median, the caller's ints left as floats
    xs[:] = [float(v) for v in xs]
    return _median_sorted(xs)


def _bools(xs):  # the right median, the caller's 0s and 1s left as False and True
    xs[:] = [bool(v) if v in (0, 1) else v for v in xs]
    return _median_sorted(xs)


def test_a_change_of_type_alone_is_a_change():
    """[1, -2] left as [1.0, -2.0], 1 as True, a dict's keys reordered: `==` calls each the same; the worker
    reports each, during the call and after it returned (the final look, fold_late)."""
    assert W.call(_floats, _wire([1, -2])) == {"ok": 1.0, "args": [[0, [1.0, -2.0]]]}
    assert W.call(_bools, _wire([1, 5])) == {"ok": 5, "args": [[0, [True, 5]]]}
    reorder = W.call(lambda d: d.update(a=d.pop("a")), _wire({"a": 1, "b": 2}))
    assert reorder["args"] == [[0, {"d": [["b", 2], ["a", 1]]}]]
    kept = []

    def later(xs):  # the second call leaves the first call's [1] as [1.0]
        kept.append(xs)
        if len(kept) == 2:
            kept[0][0] = 1.0
        return 0

    assert W.call_all(later, [_wire([1]), _wire([2])]) == [{"ok": 0, "args": [[0, [1.0]]]}, {"ok": 0}]
    assert W.call(lambda xs: xs.__setitem__(0, 1), _wire([1])) == {"ok": None}  # the same value: no change


def test_argument_state_compares_as_strictly_as_a_return_value():
    """arguments_agree and input_not_mutated: type and value, recursively, a dict's items in order."""
    for candidate in (_floats, _bools):
        failures = run_relations(_oracle(), _runner(candidate), _runner(_median_sorted), seed=1, trials=50)
        assert [f.relation for f in failures] == ["arguments_agree"], candidate
        assert "the reference leaves it unchanged" in failures[0].reason
    same = engine.same_value
    assert same([1, {"a": (2, 3.0)}], [1, {"a": (2, 3.0)}], ordered=True)
    assert not same([1.0, -2.0], [1, -2], ordered=True) and not same([True], [1], ordered=True)
    assert not same({"b": 1, "a": 2}, {"a": 2, "b": 1}, ordered=True) and same({"b": 1, "a": 2}, {"a": 2, "b": 1})
    assert not same({1.0, 2}, {1, 2}) and same({(1, "x"), 2}, {2, (1, "x")}) and not same((1,), [1])
    assert not same(10 ** 400, 1.0) and same(float("nan"), float("nan"))
    mutated = common.input_not_mutated()
    for before, after in (([1, 2], [1.0, 2]), ({"a": 1, "b": 2}, {"b": 2, "a": 1}), ([0], [False])):
        ctx = type("Ctx", (), {"call": lambda self, x, a=after: Returned(None, a)})()
        assert mutated.check(before, ctx) is not None, (before, after)
