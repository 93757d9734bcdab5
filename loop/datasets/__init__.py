"""Task sources beyond harness folders: HumanEval (and its contracts), samples files, SWE-bench instances."""
