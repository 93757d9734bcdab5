"""Round seven, honest patch failed: the gold patch of a copy of repo_ledger_py whose hidden file also holds a plain
test that fails 15% of the time (a stand-in for a timing test), its four fail-to-pass tests decorated so that the
flaky one is the file's only plain test (the only unchanged copy a grade can plant as its must-pass). Each grade has
a fresh loop cache, so it runs its own probes. usage: r7_flaky_twin.py PROJECT_DIR N (PYTHONPATH: the worktree)."""
import json, os, shutil, subprocess, sys
from pathlib import Path

TASKS = Path(__file__).resolve().parents[4] / "harness" / "tasks"
proj, n = Path(sys.argv[1]), int(sys.argv[2])
task = proj / "harness" / "tasks" / "flaky_twin_py"
shutil.rmtree(task, ignore_errors=True)
shutil.copytree(TASKS / "repo_ledger_py", task)
toml = task / "task.toml"
toml.write_text(toml.read_text().replace('name = "repo_ledger_py"', 'name = "flaky_twin_py"'))
hidden = task / "hidden" / "tests" / "test_tax_rounding.py"
text = "import pytest\n\n" + hidden.read_text()
for name in ("test_half_cent_rounds_up", "test_half_cent_rounds_up_on_odd_cents",
             "test_refund_half_cent_rounds_away_from_zero", "test_invoice_tax_on_half_cent"):
    text = text.replace(f"def {name}():", f'@pytest.mark.filterwarnings("error")\ndef {name}():')
hidden.write_text(text + "\n\ndef test_tax_table_loads_quickly():\n    import random\n    assert random.random() >= 0.15\n")
(proj / "config.toml").write_text(f'[loop]\ndb = "{proj / "runs.db"}"\ntrials = 0\n')
for i in range(n):
    cache = proj / "cache" / str(i)
    shutil.rmtree(cache, ignore_errors=True)
    done = subprocess.run([sys.executable, "-m", "loop", "--config", str(proj / "config.toml"), "grade", "flaky_twin_py",
                           str(task / "gold.patch"), "--json"], cwd=proj, capture_output=True, text=True,
                          env={**os.environ, "XDG_CACHE_HOME": str(cache)})
    try:
        d = json.loads(done.stdout.strip().splitlines()[-1])
        print(i, d["verdict"], [f["check"] for f in d["failures"]], flush=True)
    except (ValueError, IndexError, KeyError):
        print(i, "no grade:", done.stderr.strip()[-200:], flush=True)
