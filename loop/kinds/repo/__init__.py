"""The repo kind: apply a patch to a repository, run its test suite in the sandbox, grade by transitions.

kind (load, grade, prompt, polarity), spec (the task), env (its environment), patch (applying a candidate),
screen (what a patch may touch), tree, testrun (one run of the suite), results (report parsers), tripwire
(corroborating the report)."""
