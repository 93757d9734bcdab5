"""The run: candidates in, grades out. A batch (ask, dedupe, grade, rounds, budget), one file, a samples or predictions file."""
