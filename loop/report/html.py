"""`loop report --format html`: the report as one self-contained page, readable without scripts or network.

It reads through loop.report.tables (the views and their numbers) and only lays them out: the comparison, a
pass-rate chart as inline SVG, rates, cost, and per task the transition matrix and each failing candidate's
diff against the baseline with its minimal counterexample. A new section is one more function in SECTIONS.
"""

from __future__ import annotations

import difflib
import html
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from loop.store.lite import sqlite_utils

from loop import tasks
from loop import verdicts as V
from loop.errors import LoopError
from loop.report import rounds as report_rounds
from loop.report import tables as R
from loop.report.format import fmt_value
from loop.report.stats import wilson

CSS = """body{font:15px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1200px;padding:0 1em;color:#222}
h1{font-size:26px}h2{font-size:20px;margin-top:1.8em;border-bottom:1px solid #ddd}h3{font-size:16px}
table{border-collapse:collapse;margin:.6em 0 1.2em}td,th{border:1px solid #ccc;padding:3px 7px;text-align:left;
vertical-align:top}th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}
.repaired{background:#b7e4b7}.preserved{background:#e2f2e2}.still_broken{background:#f6c6c6}.regressed{background:#e88}
.better{background:#b7e4b7}.worse{background:#f6c6c6}.note{color:#555;font-size:13px}
code,pre{font:13px/1.4 ui-monospace,monospace}figure{margin:1em 0}figcaption{font-size:13px;color:#555}
table.diff{width:100%;border:1px solid #ccc}table.diff td{border:none;padding:0 6px;white-space:pre-wrap;
font:13px/1.4 ui-monospace,monospace}.wide{overflow-x:auto}.charts{display:flex;flex-wrap:wrap;gap:0 24px}
.charts figure{overflow-x:auto;max-width:100%}#rates td,#cost td{white-space:nowrap}
table.diff td.ln{color:#888;text-align:right;width:3em;user-select:none}table.diff td.mark{width:1em;font-weight:bold}
tr.del{background:#fde8e8}tr.ins{background:#e6f6e6}tr.gap td{color:#888;background:#f6f6f6}
del{background:#f4a8a8;text-decoration:line-through}ins{background:#9fdc9f;text-decoration:none}
dl.cx{display:grid;grid-template-columns:max-content auto;gap:2px 12px;margin:.4em 0}dl.cx dt{font-weight:600}
dl.cx dd{margin:0;font:13px ui-monospace,monospace;white-space:pre-wrap;word-break:break-all}
.candidate{border-left:4px solid #c55;padding:2px 0 2px 12px;margin:1.2em 0}"""

MARK = {V.REPAIRED: "repaired ✔", V.PRESERVED: "preserved ✓", V.STILL_BROKEN: "still broken ✗",
        V.REGRESSED: "regressed ✗✗"}
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"]
FAILING = (V.STABLE_FAIL, V.FLAKY)
MAX_FAILING = 25  # failing candidates shown per task: a 2,000-candidate batch must still make a page
MAX_VALUE = 600  # characters of one stored value shown (inputs, outputs, details)


def esc(value) -> str:
    return html.escape("" if value is None else str(value))


@dataclass
class Page:
    """What the sections read: the rows of the batches shown, and where task folders are (for baselines)."""

    db: Path
    rates: list[dict]
    batches: list[int]
    task: str | None = None
    root: Path | None = None
    comparison: tuple | None = None  # (rows, a, b, by) from report.compare
    colours: dict = field(default_factory=dict)

    def colour(self, model) -> str:
        return self.colours.setdefault(model_name(model), PALETTE[len(self.colours) % len(PALETTE)])


def model_name(model) -> str:
    """A batch graded from files (`loop grade`) has no model."""
    return "(no model)" if model is None else str(model)


def render(db: Path, *, batch: int | None = None, task: str | None = None, root: Path | None = None,
           comparison: tuple | None = None, batches: list[int] | None = None) -> str:
    """The whole page. `batches` limits it to those batches (a comparison's sides); `root` is where
    harness/tasks/ is, to diff failing candidates against their task's baseline."""
    rows = R.pass_rates(db, batch=batch, task=task)
    if batches is not None:
        rows = [r for r in rows if r["batch_id"] in batches]
    shown = sorted({r["batch_id"] for r in rows})
    page = Page(db, rows, shown, task, root, comparison)
    for r in rows:
        page.colour(r["model"])
    title = "loop report" + (f": batch {batch}" if batch is not None else "")
    if comparison:
        _, a, b, by = comparison
        title = f"loop: {by} {a} against {by} {b}"
    body = "\n".join(part for section in SECTIONS if (part := section(page)))
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{esc(title)}</title>"
            f"<style>{CSS}</style></head><body><h1>{esc(title)}</h1>\n{body}\n</body></html>")


def render_comparison(db: Path, a: str, b: str, *, by: str = "batch", min_coverage: float = 0.9,
                      root: Path | None = None) -> str:
    """`loop report --compare A B --format html`: the comparison table on top of the page of both sides."""
    rows = R.comparison(db, a, b, by=by, min_coverage=min_coverage)
    return render(db, root=root, comparison=(rows, a, b, by), batches=R.side_batches(db, a, b, by))


# --------------------------------------------------------------------------- comparison
def comparison_section(page: Page) -> str:
    if not page.comparison:
        return ""
    rows, a, b, by = page.comparison
    head = R.compare_head(a, b, by)
    out = ["<h2>Comparison</h2><table id='compare'><tr>" + "".join(f"<th>{esc(h)}</th>" for h in head) + "</tr>"]
    for r in rows:
        verdict = r["verdict"].split(" ")[0]
        cls = verdict if verdict in ("better", "worse") else ""
        cells = [esc(r["task"]), *(esc(c) for c in R.compare_cells(r))]
        out.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells[:-1]) + f"<td class='{cls}'>{cells[-1]}</td></tr>")
    out.append("</table><p class='note'>difference = rate a − rate b (passed / decided), with Newcombe's hybrid "
               "score 95% interval; <em>better</em> or <em>worse</em> only when the interval excludes 0.</p>")
    return "\n".join(out)


# --------------------------------------------------------------------------- chart
def _point(label: str, sub: str, rows: list[dict], colour: str) -> dict:
    passed, decided = sum(r["passed"] for r in rows), sum(r["decided"] for r in rows)
    ci = wilson(passed, decided)
    return {"label": label, "sub": sub, "colour": colour, "passed": passed, "decided": decided,
            "rate": passed / decided if decided else None, "low": ci[0] if ci else None,
            "high": ci[1] if ci else None}


def _grouped(rows: list[dict], key: Callable[[dict], tuple]) -> dict[tuple, list[dict]]:
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault(key(r), []).append(r)
    return groups


def _batches(n: int) -> str:
    return f"{n} batch" if n == 1 else f"{n} batches"


def chart_section(page: Page) -> str:
    rows = page.rates
    if not rows:
        return "<h2>Pass rate</h2><p>No candidates.</p>"
    per_batch = [_point(f"batch {b}", f"seed {rs[0]['seed']}", rs, page.colour(rs[0]["model"]))
                 for (b,), rs in _grouped(rows, lambda r: (r["batch_id"],)).items()]
    per_model = [_point(model_name(m), _batches(len({r["batch_id"] for r in rs})), rs, page.colour(m))
                 for (m,), rs in _grouped(rows, lambda r: (r["model"],)).items()]
    per_seed = [_point(f"seed {s}", model_name(m), rs, page.colour(m))
                for (s, m), rs in sorted(_grouped(rows, lambda r: (r["seed"], model_name(r["model"]))).items(),
                                         key=lambda kv: (str(kv[0][0]), kv[0][1]))]
    legend = list(page.colours.items())
    charts = [svg_chart(per_batch, "Pass rate per batch", "batch (seed below)", legend, "chart-batch"),
              svg_chart(per_model, "Pass rate per model (all batches added up)", "model", legend, "chart-model"),
              svg_chart(per_seed, "Pass rate per seed and model", "seed (model below)", legend, "chart-seed")]
    return ("<h2>Pass rate</h2><div class='charts'>" + "".join(f"<figure>{c}</figure>" for c in charts) + "</div>"
            + "<p class='note'>Dots: passed / decided (stable_pass and stable_pass_varying over candidates that "
              "are neither inconclusive nor infra_unknown); bars: Wilson 95% interval; colour: model.</p>")


def svg_chart(points: list[dict], title: str, x_title: str, legend: list[tuple[str, str]], ident: str) -> str:
    """Rates with intervals on a 0–1 axis: labelled axes, ticks, a legend, values beside the dots."""
    left, right, top, bottom, plot_h, slot = 70, 20, 64, 78, 220, 110
    width = max(560, left + right + slot * len(points))
    height = top + plot_h + bottom
    step = (width - left - right) / max(1, len(points))

    def y(v: float) -> float:
        return round(top + (1 - v) * plot_h, 1)

    el = [f"<svg id='{ident}' width='{width}' height='{height}' "
          f"viewBox='0 0 {width} {height}' role='img' aria-label='{esc(title)}' font-family='system-ui,sans-serif'>",
          f"<rect x='0' y='0' width='{width}' height='{height}' fill='#fff'/>",
          f"<text x='{left}' y='20' font-size='16' font-weight='bold'>{esc(title)}</text>"]
    x = left  # legend: one entry per model, then the glyphs
    entries = [(c, m, "dot") for m, c in legend] + [("#444", "95% interval", "bar")]
    for colour, name, glyph in entries:
        if glyph == "dot":
            el.append(f"<circle cx='{x + 6}' cy='40' r='6' fill='{colour}'/>")
        else:
            el.append(f"<line x1='{x + 6}' y1='32' x2='{x + 6}' y2='48' stroke='{colour}' stroke-width='2'/>")
        el.append(f"<text x='{x + 16}' y='45' font-size='13'>{esc(name)}</text>")
        x += 30 + 7.5 * len(name)
    for tick in (0, 0.25, 0.5, 0.75, 1):
        el.append(f"<line x1='{left}' y1='{y(tick)}' x2='{width - right}' y2='{y(tick)}' stroke='#e3e3e3'/>")
        el.append(f"<text x='{left - 8}' y='{y(tick) + 4}' font-size='13' text-anchor='end'>{tick:g}</text>")
    el.append(f"<line x1='{left}' y1='{top}' x2='{left}' y2='{y(0)}' stroke='#444'/>")
    el.append(f"<line x1='{left}' y1='{y(0)}' x2='{width - right}' y2='{y(0)}' stroke='#444'/>")
    mid = top + plot_h / 2
    el.append(f"<text x='18' y='{mid}' font-size='13' text-anchor='middle' transform='rotate(-90 18 {mid})'>"
              "pass rate</text>")
    el.append(f"<text x='{(left + width - right) / 2}' y='{height - 8}' font-size='13' text-anchor='middle'>"
              f"{esc(x_title)}</text>")
    for i, p in enumerate(points):
        cx = round(left + step * (i + 0.5), 1)
        el.append(f"<text x='{cx}' y='{y(0) + 20}' font-size='13' text-anchor='middle'>{esc(p['label'][:18])}</text>")
        el.append(f"<text x='{cx}' y='{y(0) + 37}' font-size='12' fill='#555' text-anchor='middle'>"
                  f"{esc(p['sub'][:20])}</text>")
        if p["rate"] is None:
            el.append(f"<text x='{cx}' y='{y(0) - 8}' font-size='12' fill='#888' text-anchor='middle'>"
                      "nothing decided</text>")
            continue
        lo, hi = y(p["low"]), y(p["high"])
        el.append(f"<g stroke='{p['colour']}' stroke-width='2'><line x1='{cx}' y1='{lo}' x2='{cx}' y2='{hi}'/>"
                  f"<line x1='{cx - 7}' y1='{lo}' x2='{cx + 7}' y2='{lo}'/>"
                  f"<line x1='{cx - 7}' y1='{hi}' x2='{cx + 7}' y2='{hi}'/></g>")
        el.append(f"<circle cx='{cx}' cy='{y(p['rate'])}' r='6' fill='{p['colour']}'><title>{esc(p['label'])}: "
                  f"{p['passed']}/{p['decided']} = {p['rate']:.2f} [{p['low']:.2f}, {p['high']:.2f}]</title></circle>")
        el.append(f"<text x='{cx + 11}' y='{y(p['rate']) + 4}' font-size='13'>{p['rate']:.2f}</text>")
        el.append(f"<text x='{cx}' y='{y(0) + 53}' font-size='12' fill='#555' text-anchor='middle'>"
                  f"{p['passed']}/{p['decided']} passed</text>")
    return "\n".join(el + ["</svg>"])


# --------------------------------------------------------------------------- rates and cost
def rates_section(page: Page) -> str:
    head = ["batch", "task", "model", "seed", "candidates", "decided", "pass rate", "95% CI", "coverage",
            "pass@1", "pass@k", "flaky", "inconclusive", "infra_unknown"]
    out = ["<h2>Pass rates</h2><div class='wide'><table id='rates'><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for r in page.rates:
        ci = "-" if r["pass_rate"] is None else f"[{r['wilson_low']:.2f}, {r['wilson_high']:.2f}]"
        cells = [r["batch_id"], r["task"], model_name(r["model"]), r["seed"], r["candidates"], r["decided"],
                 fmt_value(r["pass_rate"]), ci, fmt_value(r["coverage"]), fmt_value(r["pass@1"]), fmt_value(r["pass@k"]),
                 r["flaky"], r["inconclusive"], r["infra_unknown"]]
        out.append("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in cells) + "</tr>")
    return "\n".join(out + ["</table></div>"])


def cost_section(page: Page) -> str:
    batches = [b for b in R.batch_rates(page.db) if b["batch_id"] in page.batches]
    if not batches:
        return ""
    tasks = [t for t in R.task_costs(page.db) if t["batch_id"] in page.batches
             and (page.task is None or t["task"] == page.task)]
    rows = R.cost_rows(batches, tasks)
    head = R.COST_HEAD
    out = ["<h2>Cost</h2><table id='cost'><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for cells in rows:
        style = " style='font-weight:600'" if cells[1] == "(batch)" else ""
        out.append(f"<tr{style}>" + "".join(f"<td class='num'>{esc(c)}</td>" if i > 1 else f"<td>{esc(c)}</td>"
                                            for i, c in enumerate(cells)) + "</tr>")
    out.append("</table><p class='note'>Tokens as the endpoint reported them, priced at the batch's recorded "
               "endpoint.prompt_price and completion_price (per million tokens).</p>")
    return "\n".join(out)


# --------------------------------------------------------------------------- per task
def tasks_section(page: Page) -> str:
    if not page.batches:
        return ""
    d = sqlite_utils.Database(page.db)
    marks = ",".join("?" * len(page.batches))
    where, params = f"batch_id in ({marks})", list(page.batches)
    if page.task is not None:
        where, params = where + " and task = ?", params + [page.task]
    parts = []
    names = [r["task"] for r in d.query(f"select distinct task from candidates where {where} order by task", params)]
    for name in names:
        cands = list(d.query(f"select id, batch_id, sample, source, verdict, reason, duplicate_of from candidates "
                             f"where {where} and task = ? order by id", [*params, name]))
        # a duplicate's original is in its own batch (identical sources are graded once per batch)
        checks = list(d.query(f"select * from checks where candidate_id in (select id from candidates where {where} "
                              "and task = ?) and repeat is null order by id", [*params, name]))
        parts.append(f"<h2 id='task-{esc(name)}'>Task {esc(name)}</h2>")
        parts.append(_transition_matrix(cands, checks))
        parts.append(_test_grid(cands, checks))
        parts.append(_failing(page, name, cands, checks))
    return "\n".join(parts)


def _transition_matrix(cands: list[dict], checks: list[dict]) -> str:
    """Named-test results counted over the task's candidates (duplicates count as their original):
    rows the baseline's outcome, columns the candidate's."""
    by_cand = {}
    for c in checks:
        if c["kind"] == "test" and c["transition"]:
            by_cand.setdefault(c["candidate_id"], []).append(c)
    counts: dict[tuple, int] = {}
    for cand in cands:
        for c in by_cand.get(cand["duplicate_of"] or cand["id"], []):
            key = (c["baseline"], c["candidate"], c["transition"])
            counts[key] = counts.get(key, 0) + 1
    if not counts:
        return "<p class='note'>No named tests with transitions.</p>"
    before = sorted({k[0] for k in counts}, key=lambda v: (v != "fail", v))
    after = sorted({k[1] for k in counts}, key=lambda v: ({"pass": 0, "fail": 1}.get(v, 2), v))
    out = ["<table class='matrix'><tr><th>baseline ↓ / candidate →</th>"
           + "".join(f"<th>{esc(a)}</th>" for a in after) + "</tr>"]
    for b in before:
        cells = []
        for a in after:
            hits = [(t, n) for (b2, a2, t), n in counts.items() if b2 == b and a2 == a]
            text = "<br>".join(f"{esc(t.replace('_', ' '))} {n}" for t, n in hits) or "0"
            cells.append(f"<td class='{esc(hits[0][0]) if len(hits) == 1 else ''} num'>{text}</td>")
        out.append(f"<tr><th>{esc(b)}</th>{''.join(cells)}</tr>")
    return "<h3>Transition matrix (named tests)</h3>" + "\n".join(out + ["</table>"])


def _test_grid(cands: list[dict], checks: list[dict]) -> str:
    tests = sorted({c["check"] for c in checks if c["kind"] == "test"})
    cell = {(c["candidate_id"], c["check"]): c for c in checks}
    out = ["<h3>Candidates × tests</h3><div class='wide'><table class='grid'><tr><th>candidate</th><th>batch</th>"
           "<th>verdict</th>"
           + "".join(f"<th>{esc(x.removeprefix('test:'))}</th>" for x in tests) + "</tr>"]
    for c in cands:
        src = c["duplicate_of"] or c["id"]
        tds = []
        for x in tests:
            ch = cell.get((src, x))
            tr = ch["transition"] if ch else None
            tds.append(f"<td class='{esc(tr)}'>{MARK.get(tr, esc(ch['candidate']) if ch else '')}</td>")
        dup = f" (= #{c['duplicate_of']})" if c["duplicate_of"] else ""
        out.append(f"<tr><td>#{c['id']}{dup}</td><td>{c['batch_id']}</td><td>{esc(c['verdict'])}</td>"
                   f"{''.join(tds)}</tr>")
    return "\n".join(out + ["</table></div>"])


def _failing(page: Page, name: str, cands: list[dict], checks: list[dict]) -> str:
    """Each failing candidate (duplicates once): what broke, its minimal counterexample, its diff."""
    failing = [c for c in cands if c["verdict"] in FAILING and not c["duplicate_of"]]
    if not failing:
        return ""
    baseline, patch_kind = _baseline(page.root, name)
    per_cand: dict[int, list[dict]] = {}
    for c in checks:
        if not c["passed"]:
            per_cand.setdefault(c["candidate_id"], []).append(c)
    out = [f"<h3>Failing candidates ({len(failing)})</h3>"]
    for c in failing[:MAX_FAILING]:
        dups = [d["id"] for d in cands if d["duplicate_of"] == c["id"]]
        also = f" (same source as {', '.join(f'#{i}' for i in dups)})" if dups else ""
        out.append(f"<div class='candidate' id='candidate-{c['id']}'><h4>#{c['id']} (batch {c['batch_id']}) "
                   f"{esc(c['verdict'])}: "
                   f"{esc(c['reason'])}{esc(also)}</h4>")
        out.append(_counterexample(per_cand.get(c["id"], [])))
        out.append(_diff(baseline, c["source"], patch_kind))
        out.append("</div>")
    if len(failing) > MAX_FAILING:
        out.append(f"<p class='note'>{len(failing) - MAX_FAILING} more failing candidates not shown "
                   "(`loop report --format json` or runs.db have them all).</p>")
    return "\n".join(out)


def _baseline(root: Path | None, name: str) -> tuple[str | None, bool]:
    """The task's baseline source, and whether its candidates are patches (repo tasks) rather than files."""
    if root is None:
        return None, False

    try:
        task = tasks.load(root, name)
    except LoopError:  # the task folder is gone or broken: the page still shows the candidate
        return None, False
    return task.baseline, task.kind == "repo"


def _cut(value) -> str:
    text = "" if value is None else str(value)
    return text if len(text) <= MAX_VALUE else text[:MAX_VALUE] + f"… ({len(text)} characters)"


def _counterexample(failed: list[dict]) -> str:
    """The smallest evidence the grade holds: a relation's shrunk input first, else a failing test's
    input, expected and actual output, else the check's detail (a build error, no code)."""
    if not failed:
        return "<p class='note'>No failing check stored.</p>"
    shrunk = [c for c in failed if c["minimal"]]
    tests = [c for c in failed if c["kind"] == "test"]
    c = (shrunk or tests or failed)[0]
    rows = [("check", c["check"])]
    if c["minimal"]:
        rows.append(("minimal counterexample", c["minimal"]))
    elif c["input"] is not None:
        rows.append(("input", c["input"]))
    if c["expected"] is not None:
        rows.append(("expected", c["expected"]))
    if c["actual"] is not None:
        rows.append(("actual", c["actual"]))
    if c["detail"]:
        rows.append(("detail", c["detail"]))
    others = sorted({x["check"] for x in failed} - {c["check"]})
    if others:
        rows.append(("also failed", ", ".join(others)))
    return ("<dl class='cx'>" + "".join(f"<dt>{esc(k)}</dt><dd>{esc(_cut(v))}</dd>" for k, v in rows) + "</dl>")


def _diff(baseline: str | None, source: str | None, patch_kind: bool) -> str:
    """The candidate against the baseline, line by line; in replaced lines the changed characters are
    marked (<del>/<ins>). A repo task's candidate is already a patch: its lines are marked as they are."""
    if source is None:
        return "<p class='note'>No source (the reply held no code).</p>"
    rows = []
    if patch_kind or baseline is None:
        note = "the candidate's patch" if patch_kind else "the candidate (baseline not available)"
        for line in source.splitlines():
            cls = "ins" if line.startswith("+") and not line.startswith("+++") else \
                  "del" if line.startswith("-") and not line.startswith("---") else ""
            rows.append(_diff_row(cls, "", "", line[:1] if cls else "", esc(line[1:] if cls else line)))
        return f"<p class='note'>{note}</p><table class='diff'>{''.join(rows)}</table>"
    old, new = baseline.splitlines(), source.splitlines()
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            keep = list(range(i2 - i1))
            if len(keep) > 6:  # three lines of context either side
                for k in keep[:3]:
                    rows.append(_diff_row("", i1 + k + 1, j1 + k + 1, " ", esc(old[i1 + k])))
                rows.append(_diff_row("gap", "", "", "", f"… {len(keep) - 6} unchanged lines"))
                keep = keep[-3:]
            for k in keep:
                rows.append(_diff_row("", i1 + k + 1, j1 + k + 1, " ", esc(old[i1 + k])))
            continue
        pairs = min(i2 - i1, j2 - j1) if tag == "replace" else 0
        marked = [_intraline(old[i1 + k], new[j1 + k]) for k in range(pairs)]
        for k in range(i2 - i1):
            text = marked[k][0] if k < pairs else esc(old[i1 + k])
            rows.append(_diff_row("del", i1 + k + 1, "", "-", text))
        for k in range(j2 - j1):
            text = marked[k][1] if k < pairs else esc(new[j1 + k])
            rows.append(_diff_row("ins", "", j1 + k + 1, "+", text))
    if all(t == "equal" for t, *_ in matcher.get_opcodes()):
        return "<p class='note'>The candidate is identical to the baseline.</p>"
    return f"<p class='note'>Diff against the baseline: − removed, + added</p><table class='diff'>{''.join(rows)}</table>"


def _diff_row(cls: str, old_no, new_no, mark: str, text: str) -> str:
    return (f"<tr class='{cls}'><td class='ln'>{old_no}</td><td class='ln'>{new_no}</td>"
            f"<td class='mark'>{mark}</td><td>{text}</td></tr>")


def _intraline(a: str, b: str) -> tuple[str, str]:
    """Both lines escaped, with the characters that differ wrapped in <del> (old) and <ins> (new); lines
    too unlike each other to pair up are left whole (their row colour already says replaced)."""
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if matcher.ratio() < 0.6:
        return esc(a), esc(b)
    old, new = [], []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            old.append(esc(a[i1:i2]))
            new.append(esc(b[j1:j2]))
            continue
        if i2 > i1:
            old.append(f"<del>{esc(a[i1:i2])}</del>")
        if j2 > j1:
            new.append(f"<ins>{esc(b[j1:j2])}</ins>")
    return "".join(old), "".join(new)


# The page, top to bottom. Each section takes the Page and returns HTML ("" to leave itself out).
def rounds_section(page: Page) -> str:
    """The repair curve of feedback rounds (empty when no batch shown ran a second round)."""
    return report_rounds.render_rounds_html(page.db, batch=page.batches[0] if len(page.batches) == 1 else None,
                                            task=page.task)


SECTIONS: list[Callable[[Page], str]] = [comparison_section, chart_section, rates_section, cost_section,
                                         rounds_section, tasks_section]
