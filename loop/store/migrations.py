"""Append-only, numbered migrations of runs.db.

Never edit a migration that has shipped: add a new one. Each runs in one transaction with the
record that it ran (sqlite-utils `Migrations`), so an interrupted migration is simply re-run.
"""

import contextlib

from loop.store.lite import sqlite_utils

Migrations = sqlite_utils.migrations.Migrations

migrations = Migrations("loop")


@contextlib.contextmanager
def immediate(db):
    """One write transaction that takes the write lock before it reads anything (BEGIN IMMEDIATE, which
    waits on the busy timeout). A plain BEGIN reads first (sqlite-utils looks at the schema) and, in WAL
    mode, fails at once with "database is locked" if another process committed in between. Nested
    sqlite-utils `atomic()` blocks become savepoints inside it."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def migrate(db) -> None:
    """Apply the pending migrations one at a time, each in its own transaction, one process at a time:
    a second `loop` opening a new runs.db at the same moment re-reads, under the lock, what the first
    applied instead of racing it from a stale snapshot."""
    while migrations.pending(db):
        with immediate(db):
            later = [m.name for m in migrations.pending(db)[1:]]
            migrations.apply(db, stop_before=later)  # the first pending one only


@migrations(name="001_core")
def m001_core(db):
    db["batches"].create({
        "id": int, "kind": str, "created_at": str, "finished_at": str, "status": str,
        "seed": int, "model": str, "endpoint": str, "config": str, "suite": str, "k": int,
        "trials": int, "sandboxed": int, "command": str,
    }, pk="id")
    db["candidates"].create({
        "id": int, "batch_id": int, "task": str, "sample": int, "source": str, "source_sha256": str,
        "reply": str, "status": str, "reason": str, "verdict": str, "resolved": int, "suite": str,
        "seed": int, "k": int, "passes": int, "fails": int, "infra": int, "digests": int,
        "duplicate_of": int, "sandboxed": int, "model": str, "notes": str, "created_at": str, "graded_at": str,
    }, pk="id", foreign_keys=[("batch_id", "batches", "id")])
    db["candidates"].create_index(["batch_id", "task", "sample"], unique=True)
    db["candidates"].create_index(["source_sha256"])
    db["attempts"].create({
        "id": int, "candidate_id": int, "repeat": int, "status": str, "reason": str, "exit_code": int,
        "digest": str, "duration": float, "seed": int, "env": str,
    }, pk="id", foreign_keys=[("candidate_id", "candidates", "id")])
    db["attempts"].create_index(["candidate_id", "repeat"], unique=True)
    db["checks"].create({
        "id": int, "candidate_id": int, "repeat": int, "check": str, "kind": str, "passed": int,
        "test_kind": str, "baseline": str, "candidate": str, "transition": str, "input": str,
        "expected": str, "actual": str, "minimal": str, "detail": str, "seed": int, "trial": int,
        "quarantined": int, "excluded": int,
    }, pk="id", foreign_keys=[("candidate_id", "candidates", "id")])
    db["checks"].create_index(["candidate_id"])
    db["requests"].create({
        "id": int, "batch_id": int, "candidate_id": int, "task": str, "sample": int, "attempt": int,
        "started_at": str, "latency": float, "status_code": int, "error_class": str, "wait": float,
        "prompt_tokens": int, "completion_tokens": int,
    }, pk="id", foreign_keys=[("batch_id", "batches", "id")])
    db["requests"].create_index(["batch_id"])
    db["seeds"].create({"id": int, "old": int, "new": int, "rotated_at": str}, pk="id")


@migrations(name="002_pass_rates")
def m002_pass_rates(db):
    """Pass rates over decided candidates (infra and inconclusive never in the denominator), Wilson 95%."""
    db.execute("""
    create view pass_rates as
    with counts as (
      select c.batch_id, c.task, coalesce(c.model, b.model) as model, b.seed as seed,
        count(*) as candidates,
        sum(c.verdict in ('stable_pass', 'stable_pass_varying', 'flaky', 'stable_fail')) as decided,
        sum(c.verdict in ('stable_pass', 'stable_pass_varying')) as passed,
        sum(c.verdict = 'stable_pass') as stable_pass,
        sum(c.verdict = 'stable_pass_varying') as stable_pass_varying,
        sum(c.verdict = 'flaky') as flaky,
        sum(c.verdict = 'stable_fail') as stable_fail,
        sum(c.verdict = 'inconclusive') as inconclusive,
        sum(c.verdict = 'infra_unknown') as infra_unknown,
        sum(c.verdict is null) as ungraded
      from candidates c join batches b on b.id = c.batch_id
      group by c.batch_id, c.task, coalesce(c.model, b.model), b.seed
    )
    select *,
      case when decided > 0 then 1.0 * passed / decided end as pass_rate,
      case when decided > 0 then
        ((1.0 * passed / decided) + 1.9208 / decided
         - 1.96 * sqrt((1.0 * passed / decided) * (1 - 1.0 * passed / decided) / decided + 0.9604 / (decided * decided)))
        / (1 + 3.8416 / decided) end as wilson_low,
      case when decided > 0 then
        ((1.0 * passed / decided) + 1.9208 / decided
         + 1.96 * sqrt((1.0 * passed / decided) * (1 - 1.0 * passed / decided) / decided + 0.9604 / (decided * decided)))
        / (1 + 3.8416 / decided) end as wilson_high,
      1.0 * decided / candidates as coverage
    from counts
    """)


@migrations(name="003_synthesis")
def m003_synthesis(db):
    """Test-synthesis mode: one `suites` row per judged suite, one `synth_tests` row per test in it."""
    if "suites" not in db.table_names():
        db["suites"].create({
            "id": int, "batch_id": int, "task": str, "model": str, "sample": int, "verdict": str,
            "reason": str, "reply": str, "created_at": str,
        }, pk="id", foreign_keys=[("batch_id", "batches", "id")])
        db["suites"].create_index(["batch_id", "task"])
    if "synth_tests" not in db.table_names():
        db["synth_tests"].create({
            "id": int, "suite_id": int, "name": str, "class": str, "reason": str, "input": str,
            "expected": str, "baseline": str, "reference": str,
        }, pk="id", foreign_keys=[("suite_id", "suites", "id")])
        db["synth_tests"].create_index(["suite_id"])


@migrations(name="004_synthesis_rates")
def m004_synthesis_rates(db):
    """Per batch, model and task: the share of accepted suites and of bug-reproducing tests."""
    db.execute("""
    create view synthesis_rates as
    select s.batch_id, s.model, s.task,
      count(distinct s.id) as suites,
      count(distinct case when s.verdict = 'accepted' then s.id end) as accepted,
      count(distinct case when s.verdict in ('accepted', 'rejected') then s.id end) as decided,
      1.0 * count(distinct case when s.verdict = 'accepted' then s.id end)
        / nullif(count(distinct case when s.verdict in ('accepted', 'rejected') then s.id end), 0) as accepted_share,
      count(t.id) as tests,
      sum(t.class = 'reproduces_bug') as reproducing,
      1.0 * sum(t.class = 'reproduces_bug') / nullif(count(t.id), 0) as reproducing_share
    from suites s left join synth_tests t on t.suite_id = s.id
    group by s.batch_id, s.model, s.task
    """)


@migrations(name="005_pass_rates_ungraded")
def m005_pass_rates_ungraded(db):
    """pass_rates again, for batches with nothing graded yet (after `loop generate`, or stopped by the
    endpoint): counts are 0, never NULL (a sum over NULL verdicts is NULL), and the Wilson bounds are
    clamped to [0, 1] (floating-point error gave 3.8e-17 for 0 of n)."""
    db.execute("drop view if exists pass_rates")
    db.execute("""
    create view pass_rates as
    with counts as (
      select c.batch_id, c.task, coalesce(c.model, b.model) as model, b.seed as seed,
        count(*) as candidates,
        coalesce(sum(c.verdict in ('stable_pass', 'stable_pass_varying', 'flaky', 'stable_fail')), 0) as decided,
        coalesce(sum(c.verdict in ('stable_pass', 'stable_pass_varying')), 0) as passed,
        coalesce(sum(c.verdict = 'stable_pass'), 0) as stable_pass,
        coalesce(sum(c.verdict = 'stable_pass_varying'), 0) as stable_pass_varying,
        coalesce(sum(c.verdict = 'flaky'), 0) as flaky,
        coalesce(sum(c.verdict = 'stable_fail'), 0) as stable_fail,
        coalesce(sum(c.verdict = 'inconclusive'), 0) as inconclusive,
        coalesce(sum(c.verdict = 'infra_unknown'), 0) as infra_unknown,
        sum(c.verdict is null) as ungraded
      from candidates c join batches b on b.id = c.batch_id
      group by c.batch_id, c.task, coalesce(c.model, b.model), b.seed
    )
    select *,
      case when decided > 0 then 1.0 * passed / decided end as pass_rate,
      case when decided > 0 then max(0.0,
        ((1.0 * passed / decided) + 1.9208 / decided
         - 1.96 * sqrt((1.0 * passed / decided) * (1 - 1.0 * passed / decided) / decided + 0.9604 / (decided * decided)))
        / (1 + 3.8416 / decided)) end as wilson_low,
      case when decided > 0 then min(1.0,
        ((1.0 * passed / decided) + 1.9208 / decided
         + 1.96 * sqrt((1.0 * passed / decided) * (1 - 1.0 * passed / decided) / decided + 0.9604 / (decided * decided)))
        / (1 + 3.8416 / decided)) end as wilson_high,
      1.0 * decided / candidates as coverage
    from counts
    """)


@migrations(name="006_adaptive_limit")
def m006_adaptive_limit(db):
    """Per request: the wait in the adaptive limiter and its rate estimate; per batch: the share of 429s."""
    for column in ("limiter_wait", "rate_estimate"):
        if column not in db["requests"].columns_dict:
            db["requests"].add_column(column, float)
    db.execute("""
    create view request_rates as
    select batch_id, count(*) as requests,
      coalesce(sum(status_code = 429), 0) as rate_limited,
      1.0 * coalesce(sum(status_code = 429), 0) / count(*) as share_429,
      coalesce(sum(limiter_wait), 0.0) as limiter_wait,
      (select r2.rate_estimate from requests r2 where r2.batch_id = r.batch_id and r2.rate_estimate is not null
       order by r2.id desc limit 1) as rate_estimate
    from requests r group by batch_id
    """)


@migrations(name="007_batch_rates_and_cost")
def m007_batch_rates_and_cost(db):
    """Tokens and cost per batch and task (prices per million tokens, as the batch recorded them in
    `config.prices`), and batch_rates: one row per batch with its overall rate, interval, coverage and cost."""
    db.execute("""
    create view usage as
    select r.batch_id, r.task,
      coalesce(sum(r.prompt_tokens), 0) as prompt_tokens,
      coalesce(sum(r.completion_tokens), 0) as completion_tokens,
      (coalesce(sum(r.prompt_tokens), 0) * coalesce(json_extract(b.config, '$.prices.prompt'), 0)
       + coalesce(sum(r.completion_tokens), 0) * coalesce(json_extract(b.config, '$.prices.completion'), 0))
       / 1000000.0 as cost
    from requests r join batches b on b.id = r.batch_id
    group by r.batch_id, r.task
    """)
    db.execute("""
    create view batch_rates as
    with c as (
      select batch_id, sum(candidates) as candidates, sum(decided) as decided, sum(passed) as passed
      from pass_rates group by batch_id
    ), u as (
      select batch_id, sum(prompt_tokens) as prompt_tokens, sum(completion_tokens) as completion_tokens,
        sum(cost) as cost
      from usage group by batch_id
    )
    select b.id as batch_id, b.kind, b.model, b.seed, b.status, c.candidates, c.decided, c.passed,
      case when c.decided > 0 then 1.0 * c.passed / c.decided end as pass_rate,
      case when c.decided > 0 then max(0.0,
        ((1.0 * c.passed / c.decided) + 1.9208 / c.decided
         - 1.96 * sqrt((1.0 * c.passed / c.decided) * (1 - 1.0 * c.passed / c.decided) / c.decided
                       + 0.9604 / (c.decided * c.decided))) / (1 + 3.8416 / c.decided)) end as wilson_low,
      case when c.decided > 0 then min(1.0,
        ((1.0 * c.passed / c.decided) + 1.9208 / c.decided
         + 1.96 * sqrt((1.0 * c.passed / c.decided) * (1 - 1.0 * c.passed / c.decided) / c.decided
                       + 0.9604 / (c.decided * c.decided))) / (1 + 3.8416 / c.decided)) end as wilson_high,
      case when c.candidates > 0 then 1.0 * c.decided / c.candidates end as coverage,
      coalesce(u.prompt_tokens, 0) as prompt_tokens, coalesce(u.completion_tokens, 0) as completion_tokens,
      coalesce(u.cost, 0.0) as cost,
      case when c.decided > 0 then coalesce(u.cost, 0.0) / c.decided end as cost_per_decided,
      case when c.passed > 0 then coalesce(u.cost, 0.0) / c.passed end as cost_per_pass
    from batches b left join c on c.batch_id = b.id left join u on u.batch_id = b.id
    """)


INPUT_COUNTS = ("generated", "kept", "contract", "reference_error", "reference_timeout")


@migrations(name="008_fuzz_inputs")
def m008_fuzz_inputs(db):
    """Per candidate: what happened to differential fuzzing's generated inputs (kept, or discarded as
    outside the input contract, rejected by the reference, too slow for it); view fuzz_inputs per task."""
    for name in INPUT_COUNTS:
        if f"inputs_{name}" not in db["candidates"].columns_dict:
            db["candidates"].add_column(f"inputs_{name}", int)
    db.execute("""
    create view fuzz_inputs as
    select batch_id, task, count(inputs_generated) as grades,
      sum(inputs_generated) as generated, sum(inputs_kept) as kept, sum(inputs_contract) as contract,
      sum(inputs_reference_error) as reference_error, sum(inputs_reference_timeout) as reference_timeout,
      1.0 * (sum(inputs_generated) - sum(inputs_kept)) / count(inputs_generated) as discarded_per_grade
    from candidates where inputs_generated is not null group by batch_id, task
    """)


def _wilson_sql(passed: str, n: str, sign: str) -> str:
    """SQL for one Wilson 95% bound of passed/n, clamped to [0, 1] (NULL when n is 0): one spelling of the
    formula for the views below instead of another copy of it."""
    p = f"(1.0 * {passed} / {n})"
    bound = (f"(({p} + 1.9208 / {n} {sign} 1.96 * sqrt({p} * (1 - {p}) / {n} + 0.9604 / ({n} * {n})))"
             f" / (1 + 3.8416 / {n}))")
    clamp = "max(0.0, " if sign == "-" else "min(1.0, "
    return f"case when {n} > 0 then {clamp}{bound}) end"


@migrations(name="009_rounds")
def m009_rounds(db):
    """Feedback rounds (issue 19): a follow-up is a candidate row with its parent's sample, its own `round`
    and `parent_id`, the `feedback` it was sent and the main kind of `evidence` in it; requests record their
    round. Unique (batch, task, sample) becomes (batch, task, sample, round). pass_rates keeps meaning the
    first answers (round 1), comparable with batches without rounds; round_rates is the repair curve."""
    columns = db["candidates"].columns_dict
    for name, kind in (("round", int), ("parent_id", int), ("feedback", str), ("evidence", str)):
        if name not in columns:
            db["candidates"].add_column(name, kind)
    db.execute("update candidates set round = 1 where round is null")
    if "round" not in db["requests"].columns_dict:
        db["requests"].add_column("round", int)
    db.execute("update requests set round = 1 where round is null")
    db.execute("drop index if exists idx_candidates_batch_id_task_sample")
    db.execute("create unique index if not exists idx_candidates_batch_id_task_sample_round "
               "on candidates (batch_id, task, sample, round)")
    db.execute("create index if not exists idx_candidates_parent_id on candidates (parent_id)")
    # pass_rates restated with `where round = 1` (a view cannot be altered, and shipped migrations stay as
    # they are); the Wilson bounds now come from _wilson_sql.
    db.execute("drop view if exists pass_rates")
    decided = "c.verdict in ('stable_pass', 'stable_pass_varying', 'flaky', 'stable_fail')"
    db.execute(f"""
    create view pass_rates as
    with counts as (
      select c.batch_id, c.task, coalesce(c.model, b.model) as model, b.seed as seed,
        count(*) as candidates,
        coalesce(sum({decided}), 0) as decided,
        coalesce(sum(c.verdict in ('stable_pass', 'stable_pass_varying')), 0) as passed,
        coalesce(sum(c.verdict = 'stable_pass'), 0) as stable_pass,
        coalesce(sum(c.verdict = 'stable_pass_varying'), 0) as stable_pass_varying,
        coalesce(sum(c.verdict = 'flaky'), 0) as flaky,
        coalesce(sum(c.verdict = 'stable_fail'), 0) as stable_fail,
        coalesce(sum(c.verdict = 'inconclusive'), 0) as inconclusive,
        coalesce(sum(c.verdict = 'infra_unknown'), 0) as infra_unknown,
        sum(c.verdict is null) as ungraded
      from candidates c join batches b on b.id = c.batch_id
      where coalesce(c.round, 1) = 1
      group by c.batch_id, c.task, coalesce(c.model, b.model), b.seed
    )
    select *,
      case when decided > 0 then 1.0 * passed / decided end as pass_rate,
      {_wilson_sql('passed', 'decided', '-')} as wilson_low,
      {_wilson_sql('passed', 'decided', '+')} as wilson_high,
      1.0 * decided / candidates as coverage
    from counts
    """)
    # After round r a sample (one conversation) has passed if any of its answers up to round r passed, and
    # is decided if any of them was decided: follow-ups only continue decided (stable_fail) samples.
    db.execute(f"""
    create view round_rates as
    with rounds as (select distinct batch_id, coalesce(round, 1) as round from candidates),
    per_sample as (
      select c.batch_id, c.task, c.sample, r.round,
        max(coalesce({decided}, 0)) as decided,
        max(coalesce(c.verdict in ('stable_pass', 'stable_pass_varying'), 0)) as passed,
        max(coalesce(c.round, 1) = r.round) as asked
      from candidates c join rounds r on r.batch_id = c.batch_id and coalesce(c.round, 1) <= r.round
      group by c.batch_id, c.task, c.sample, r.round
    ), counts as (
      select batch_id, task, round, count(*) as samples, sum(decided) as decided, sum(passed) as passed,
        sum(asked) as asked
      from per_sample group by batch_id, task, round
    ), tokens as (
      select batch_id, task, coalesce(round, 1) as round, coalesce(sum(prompt_tokens), 0) as prompt_tokens,
        coalesce(sum(completion_tokens), 0) as completion_tokens
      from requests group by batch_id, task, coalesce(round, 1)
    )
    select k.batch_id, k.task, k.round, k.samples, k.asked, k.decided, k.passed,
      case when k.decided > 0 then 1.0 * k.passed / k.decided end as pass_rate,
      {_wilson_sql('k.passed', 'k.decided', '-')} as wilson_low,
      {_wilson_sql('k.passed', 'k.decided', '+')} as wilson_high,
      coalesce(t.prompt_tokens, 0) as prompt_tokens, coalesce(t.completion_tokens, 0) as completion_tokens
    from counts k left join tokens t on t.batch_id = k.batch_id and t.task = k.task and t.round = k.round
    """)
    # Which evidence repaired what: each follow-up, by the main kind of evidence its feedback held.
    db.execute("""
    create view round_repairs as
    select batch_id, task, round, evidence, count(*) as follow_ups,
      coalesce(sum(verdict in ('stable_pass', 'stable_pass_varying')), 0) as repaired,
      coalesce(sum(verdict in ('stable_pass', 'stable_pass_varying', 'flaky', 'stable_fail')), 0) as decided
    from candidates where parent_id is not null
    group by batch_id, task, round, evidence
    """)


@migrations(name="010_checks_decided_by")
def m010_checks_decided_by(db):
    """Issue 41: what decided a repository test's row: `sealed` (a sealed assertion, compared outside the
    sandbox), `tripwire-guarded` (the report, corroborated by tripwires) or `unguarded` (the report alone)."""
    if "decided_by" not in db["checks"].columns_dict:
        db["checks"].add_column("decided_by", str)


@migrations(name="011_hostile_endpoint")
def m011_hostile_endpoint(db):
    """Per candidate: why the model stopped (`finish_reason`) and whether its reply is cut short (`truncated`:
    finish_reason `length`, or cut at endpoint.max_reply_bytes). Per request: the tokens a budget counted
    (`billed_*`: the reported usage, else for an answer the estimate; NULL for a request that got none)."""
    for name, kind in (("finish_reason", str), ("truncated", int)):
        if name not in db["candidates"].columns_dict:
            db["candidates"].add_column(name, kind)
    for name in ("billed_prompt_tokens", "billed_completion_tokens"):
        if name not in db["requests"].columns_dict:
            db["requests"].add_column(name, int)


@migrations(name="012_evalplus_numbers")
def m012_evalplus_numbers(db):
    """Issue 45: per candidate of an imported EvalPlus task, EvalPlus's own statuses (its inputs, ground truth,
    comparison and time limits): `base` and `plus` (1 passed, 0 not), beside loop's verdict."""
    if "evalplus_numbers" not in db.table_names():
        db["evalplus_numbers"].create({"candidate_id": int, "batch_id": int, "task": str, "base": int, "plus": int},
                                      pk="candidate_id", foreign_keys=[("candidate_id", "candidates", "id"),
                                                                       ("batch_id", "batches", "id")])
        db["evalplus_numbers"].create_index(["batch_id"])
