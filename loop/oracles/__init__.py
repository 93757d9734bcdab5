"""Oracles: what decides a candidate's outputs are right beyond goldens and named tests.

engine (Relation, Context, trial inputs, shrinking, run_relations), oracle (Oracle: a task's relations.py
read once), relation libraries common, intervals and text, fuzz (differential fuzzing) and gen (contract
generators). Task folders import these; `loop.relations`, `loop.fuzz` and `loop.gen` are older names for them.
"""

from loop.oracles.oracle import Oracle

__all__ = ["Oracle"]
