"""The repo kind: apply a patch to a repository, run its test suite in the sandbox, grade by transitions.

kind (load, grade, prompt, polarity), spec (the task), env (its environment), patch (applying a candidate),
screen (what a patch may touch), tree, testrun (one run of the suite), results (report parsers), tripwire
(corroborating the report)."""

# The test runner loop adds where a project names none (SWE-bench imports), pinned: an environment is built once
# per content hash, so it must not drift. Under a date cutoff (`exclude_newer`: versions as they stood then) it and
# what it needs keep their own date (env.py), else a 2019 cutoff leaves pytest 8.3.4 no pluggy (uv: no solution).
PYTEST = "pytest==8.3.4"
PYTEST_AS_OF = ("2024-12-02T00:00:00Z", ("pytest", "pluggy", "iniconfig", "packaging", "exceptiongroup", "tomli"))
