"""Plain-text and CSV tables, and rows of runs.db's views: the pieces every report is laid out with."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from loop.store.lite import sqlite_utils

from loop.store.db import RunStore

COLUMNS = ["batch_id", "task", "model", "seed", "candidates", "decided", "stable_pass", "stable_pass_varying",
           "flaky", "stable_fail", "inconclusive", "infra_unknown", "pass_rate", "wilson_low", "wilson_high",
           "coverage", "pass@1", "pass@k"]


def fmt_value(v) -> str:
    if v is None:
        return "-"
    return f"{v:.2f}" if isinstance(v, float) else str(v)


def columns(head: list[str], body: list[list[str]]) -> str:
    """Plain-text table: each column as wide as its widest cell, two spaces between columns."""
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip() for cells in [head, *body])


def render_csv(rows: list[dict], fieldnames: list[str] = COLUMNS) -> str:
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=fieldnames, extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
    return out.getvalue()


def view_rows(db: Path, view: str, order: str, *, batch: int | None, task: str | None) -> list[dict]:
    """Rows of a view, filtered by batch and task where given (the database migrated first)."""
    RunStore(db).close()
    where = " and ".join(w for w, v in (("batch_id = ?", batch), ("task = ?", task)) if v is not None)
    params = [v for v in (batch, task) if v is not None]
    sql = f"select * from {view}" + (f" where {where}" if where else "") + f" order by {order}"
    return list(sqlite_utils.Database(db).query(sql, params))
