"""Oracles: what decides a candidate's outputs are right beyond goldens and named tests.

Layered: engine (Relation, Context, trial inputs, shrinking, run_relations) <- oracle (Oracle: a task's
relations.py read once); relation libraries common, intervals and text; fuzz (differential fuzzing) and gen
(contract generators). Task folders import these names from here (`from loop import oracles`) or from the modules.
"""

from loop.oracles.common import (
    agrees_with_reference,
    idempotence,
    input_not_mutated,
    output_contract,
    permutation,
    prefix_consistency,
    subsequence_of_input,
)
from loop.oracles.engine import (
    DEFAULT_MAX_SIZE,
    GENERATE_TRIES,
    MAX_SHRINK_ATTEMPTS,
    MAX_SHRINK_CANDIDATES,
    MEMO_CAPACITY,
    NO_INPUT,
    SIZE_RAMP_TRIALS,
    VALUE_ERRORS,
    Call,
    CandidateRaised,
    Context,
    ReferenceFailed,
    Relation,
    RelationFailure,
    Returned,
    contract_rejections,
    derived_inputs,
    generated_inputs,
    generic_shrink,
    json_repr,
    run_relations,
    trial_input,
    trial_size,
)
from loop.oracles.intervals import (
    INT32_MAX,
    INT32_MIN,
    canonical_intervals,
    canonical_union,
    check_sorted_disjoint,
    gen_intervals,
    interval_cover,
    interval_measure,
    shrink_intervals,
    union_measure,
    validate_intervals,
)
from loop.oracles.oracle import Oracle
from loop.oracles.text import CASEFOLD_DISTRACTORS, CASEFOLD_TRAPS, casefold_distinct, casefolds_kept, vary_case

__all__ = [
    "Oracle",
    "Returned", "CandidateRaised", "ReferenceFailed", "Call", "Context", "Relation", "RelationFailure",
    "run_relations", "derived_inputs", "trial_input", "trial_size", "generated_inputs", "generic_shrink", "shrink_intervals",
    "json_repr", "canonical_union", "union_measure", "canonical_intervals", "check_sorted_disjoint",
    "validate_intervals", "gen_intervals", "INT32_MIN", "INT32_MAX",
    "CASEFOLD_TRAPS", "CASEFOLD_DISTRACTORS", "vary_case",
    "permutation", "idempotence", "input_not_mutated", "output_contract", "agrees_with_reference",
    "interval_measure", "interval_cover", "subsequence_of_input", "casefold_distinct", "casefolds_kept",
    "prefix_consistency", "contract_rejections", "NO_INPUT", "VALUE_ERRORS", "GENERATE_TRIES", "DEFAULT_MAX_SIZE",
    "SIZE_RAMP_TRIALS", "MAX_SHRINK_ATTEMPTS", "MAX_SHRINK_CANDIDATES", "MEMO_CAPACITY",
]
