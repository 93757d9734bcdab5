"""The repair curve of feedback rounds (issue 19): pass rate after each round with its Wilson interval, per
task and over all tasks, tokens per round and what each kind of evidence repaired, as a table, CSV, JSON
and an HTML section with an inline SVG chart. Read from the views round_rates and round_repairs.

Kept apart from loop.report.tables, which calls these functions, so the rest of the page can change freely.
"""

from __future__ import annotations

import html
from pathlib import Path

from loop.report.format import columns, fmt_value, render_csv, view_rows
from loop.report.stats import wilson
from loop.store.lite import sqlite_utils

ALL = "(all)"  # the task name of the rows summed over every task of a batch
RATE_COLUMNS = ["batch_id", "task", "round", "samples", "asked", "decided", "passed", "pass_rate", "wilson_low",
                "wilson_high", "prompt_tokens", "completion_tokens"]
_SUMMED = ("samples", "asked", "decided", "passed", "prompt_tokens", "completion_tokens")


def round_rates(db: Path, *, batch: int | None = None, task: str | None = None) -> list[dict]:
    """Per batch, task and round (view round_rates), then per batch and round over all tasks (task "(all)")."""
    rows = view_rows(db, "round_rates", "batch_id, task, round", batch=batch, task=task)
    overall: dict[tuple, dict] = {}
    for r in rows:
        o = overall.setdefault((r["batch_id"], r["round"]),
                               {"batch_id": r["batch_id"], "task": ALL, "round": r["round"], **dict.fromkeys(_SUMMED, 0)})
        for key in _SUMMED:
            o[key] += r[key] or 0
    for o in overall.values():
        interval = wilson(o["passed"], o["decided"])
        o["pass_rate"] = o["passed"] / o["decided"] if o["decided"] else None
        o["wilson_low"], o["wilson_high"] = interval if interval else (None, None)
    return rows + sorted(overall.values(), key=lambda o: (o["batch_id"], o["round"]))


def round_repairs(db: Path, *, batch: int | None = None, task: str | None = None) -> list[dict]:
    """Per batch, task, round and main kind of evidence: follow-ups sent and how many passed (round_repairs)."""
    return view_rows(db, "round_repairs", "batch_id, task, round, evidence", batch=batch, task=task)


def asked_again(db: Path, batch: int) -> bool:
    """Did the batch send a follow-up (a round after the first)? One index lookup, where round_rates aggregates
    every batch in runs.db before it filters (1.6 s for one batch among 400 of 164 candidates)."""
    return bool(next(iter(sqlite_utils.Database(db).query(
        "select exists(select 1 from candidates where batch_id = ? and round > 1) as again", [batch])))["again"])


def has_rounds(rates: list[dict]) -> bool:
    """Did any batch here run a round after the first? Only then do reports show the curve."""
    return any(r["round"] > 1 for r in rates)


def _ci(r: dict) -> str:
    if r["pass_rate"] is None:
        return "-"
    return f"{r['pass_rate']:.2f} [{r['wilson_low']:.2f}, {r['wilson_high']:.2f}]"


def render_rounds_table(rates: list[dict], repairs: list[dict]) -> str:
    head = ["batch", "task", "round", "samples", "asked", "decided", "passed", "rate after round [95% CI]",
            "prompt tokens", "completion tokens"]
    body = [[str(r["batch_id"]), r["task"], str(r["round"]), str(r["samples"]), str(r["asked"]), str(r["decided"]),
             str(r["passed"]), _ci(r), str(r["prompt_tokens"]), str(r["completion_tokens"])] for r in rates]
    text = columns(head, body)
    if repairs:
        head = ["batch", "task", "round", "evidence", "follow-ups", "decided", "repaired"]
        text += "\n\nWhat each kind of evidence repaired (follow-ups by the main evidence in their feedback)\n"
        text += columns(head, [[str(r["batch_id"]), r["task"], str(r["round"]), str(r["evidence"]),
                                str(r["follow_ups"]), str(r["decided"]), str(r["repaired"])] for r in repairs])
    return text


def render_rounds_csv(rates: list[dict]) -> str:
    return render_csv(rates, RATE_COLUMNS)


def rounds_json(rates: list[dict], repairs: list[dict]) -> dict:
    return {"rates": [{c: r.get(c) for c in RATE_COLUMNS} for r in rates], "repairs": repairs}


def summary_lines(rates: list[dict], batch_id: int) -> str:
    """`loop run`'s lines for a batch with rounds: its overall rate after each round."""
    mine = [r for r in rates if r["batch_id"] == batch_id and r["task"] == ALL]
    return "\n".join(f"after round {r['round']}: pass rate {_ci(r)} ({r['passed']}/{r['decided']} decided; "
                     f"{r['asked']} asked; {r['prompt_tokens']} + {r['completion_tokens']} tokens)" for r in mine)


# HTML ---------------------------------------------------------------------------
COLOURS = ["#36c", "#c63", "#393", "#939", "#996", "#099", "#c36", "#666"]


def render_rounds_html(db: Path, *, batch: int | None = None, task: str | None = None) -> str:
    """The page's "Feedback rounds" section (empty when no batch ran a second round)."""
    rates = round_rates(db, batch=batch, task=task)
    if not has_rounds(rates):
        return ""
    repairs = round_repairs(db, batch=batch, task=task)
    head = ["batch", "task", "round", "samples", "asked", "decided", "passed", "rate after round", "95% CI",
            "prompt tokens", "completion tokens"]
    out = ["<h2>Feedback rounds</h2>", "<p>Pass rate after each round: a sample counts as passed once any of its "
           "answers so far passed; flaky, inconclusive and infra_unknown candidates get no further round.</p>",
           _svg_curve(rates), "<table id='rounds'><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for r in rates:
        ci = "-" if r["pass_rate"] is None else f"[{r['wilson_low']:.2f}, {r['wilson_high']:.2f}]"
        cells = [r["batch_id"], r["task"], r["round"], r["samples"], r["asked"], r["decided"], r["passed"],
                 fmt_value(r["pass_rate"]), ci, r["prompt_tokens"], r["completion_tokens"]]
        out.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
    out.append("</table>")
    if repairs:
        out.append("<h3>What each kind of evidence repaired</h3><table id='repairs'><tr><th>batch</th><th>task</th>"
                   "<th>round</th><th>evidence</th><th>follow-ups</th><th>decided</th><th>repaired</th></tr>")
        for r in repairs:
            cells = [r["batch_id"], r["task"], r["round"], r["evidence"], r["follow_ups"], r["decided"], r["repaired"]]
            out.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
        out.append("</table>")
    return "\n".join(out)


def _svg_curve(rates: list[dict]) -> str:
    """One line per batch and task (pass rate after each round) with its Wilson interval as a whisker;
    axes labelled with SVG <text>, and a legend."""
    series: dict[tuple, list[dict]] = {}
    for r in rates:
        if r["pass_rate"] is not None:
            series.setdefault((r["batch_id"], r["task"]), []).append(r)
    if not series:
        return ""
    last = max(r["round"] for r in rates)
    w, h, left, right, top, bottom = 560, 300, 60, 190, 20, 50
    x = lambda rnd: left + 25 + (rnd - 1) * (w - left - right - 50) / max(1, last - 1)  # noqa: E731
    end = w - right
    y = lambda v: top + (1 - v) * (h - top - bottom)  # noqa: E731
    el = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{w}' height='{h}' role='img' "
          "aria-label='repair curve: pass rate after each feedback round' font-family='sans-serif'>",
          f"<line x1='{left}' y1='{y(0)}' x2='{end}' y2='{y(0)}' stroke='#333'/>",
          f"<line x1='{left}' y1='{y(0)}' x2='{left}' y2='{y(1)}' stroke='#333'/>"]
    for v in (0, 0.25, 0.5, 0.75, 1):
        el.append(f"<line x1='{left - 4}' y1='{y(v)}' x2='{end}' y2='{y(v)}' stroke='#eee'/>")
        el.append(f"<text x='{left - 8}' y='{y(v) + 4}' font-size='12' text-anchor='end'>{v:.2f}</text>")
    for rnd in range(1, last + 1):
        el.append(f"<text x='{x(rnd)}' y='{y(0) + 18}' font-size='12' text-anchor='middle'>{rnd}</text>")
    el.append(f"<text x='{(left + end) / 2}' y='{h - 8}' font-size='13' text-anchor='middle'>round</text>")
    el.append(f"<text x='16' y='{(top + y(0)) / 2}' font-size='13' text-anchor='middle' "
              f"transform='rotate(-90 16 {(top + y(0)) / 2})'>pass rate</text>")
    el.append(f"<g class='legend' font-size='12'>")
    for i, ((batch_id, task), pts) in enumerate(sorted(series.items(), key=lambda kv: (kv[0][0], kv[0][1] != ALL, kv[0][1]))):
        colour = COLOURS[i % len(COLOURS)]
        width = 3 if task == ALL else 1.5
        coords = " ".join(f"{x(p['round']):.1f},{y(p['pass_rate']):.1f}" for p in pts)
        el.append(f"<polyline points='{coords}' fill='none' stroke='{colour}' stroke-width='{width}'/>")
        for p in pts:
            px = x(p["round"]) + (i % 5 - 2) * 3  # whiskers of several series side by side, not on top
            el.append(f"<line x1='{px:.1f}' y1='{y(p['wilson_low']):.1f}' x2='{px:.1f}' y2='{y(p['wilson_high']):.1f}' "
                      f"stroke='{colour}' stroke-width='2' stroke-opacity='0.6'/>")
            el.append(f"<circle cx='{x(p['round']):.1f}' cy='{y(p['pass_rate']):.1f}' r='3.5' fill='{colour}'>"
                      f"<title>batch {batch_id} {html.escape(task)} round {p['round']}: {_ci(p)}</title></circle>")
        ly = top + 8 + 18 * i
        el.append(f"<line x1='{w - right + 15}' y1='{ly}' x2='{w - right + 35}' y2='{ly}' stroke='{colour}' "
                  f"stroke-width='{width}'/>")
        el.append(f"<text x='{w - right + 40}' y='{ly + 4}'>b{batch_id} {html.escape(task)}</text>")
    el.append(f"<text x='{w - right + 15}' y='{top + 8 + 18 * len(series) + 4}' fill='#555'>"
              "bars: 95% Wilson interval</text>")
    el.append("</g>")
    return "\n".join(el + ["</svg>"])
