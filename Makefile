# Set-up and entry points. `make run` and `make test` work on a fresh Debian/Ubuntu machine:
# as root they install the missing system packages; otherwise they print the exact command to run.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
# evalplus.evaluate, which tests and bench_evalplus compare loop's EvalPlus numbers with, lives in a venv of its
# own: it pulls in pandas, which sqlite-utils then imports into every loop process (start-up time and memory).
EVALPLUS = .venv-evalplus
# swebench's grading functions, which bench/bench_swebench_grading.py and its test feed loop's test logs: its imports
# pull in docker, datasets and modal, which loop's own venv should not carry
SWEBENCH = .venv-swebench
APT     = bubblewrap g++ git python3 python3-venv chromium golang-go nodejs

.PHONY: run test test-fast deps venv bench clean

deps:
	@missing=""; \
	command -v bwrap >/dev/null 2>&1 || missing="$$missing bubblewrap"; \
	command -v g++ >/dev/null 2>&1 || missing="$$missing g++"; \
	command -v git >/dev/null 2>&1 || missing="$$missing git"; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v go >/dev/null 2>&1 || missing="$$missing golang-go"; \
	node -e 'process.exit(+process.versions.node.split(".")[0] < 20 ? 1 : 0)' >/dev/null 2>&1 || missing="$$missing nodejs"; \
	command -v $(PYTHON) >/dev/null 2>&1 || missing="$$missing python3"; \
	test -x $(BIN)/python || $(PYTHON) -c 'import ensurepip, venv' >/dev/null 2>&1 || missing="$$missing python3-venv"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq $$missing; \
	  else echo "missing system packages: run 'sudo apt-get install -y$$missing'"; exit 2; fi; \
	fi

venv: deps
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install -q -e '.[test,humaneval,datasette,cluster,swebench]'
	@test -x $(EVALPLUS)/bin/python || $(PYTHON) -m venv $(EVALPLUS)
	@$(EVALPLUS)/bin/python -m pip install -q 'evalplus==0.3.1'
	@test -x $(SWEBENCH)/bin/python || $(PYTHON) -m venv $(SWEBENCH)
	@$(SWEBENCH)/bin/python -m pip install -q 'swebench==5.0.2'

run: venv
	$(BIN)/loop tasks check
	$(BIN)/loop run --rounds 2

test: venv
	$(BIN)/python -m pytest -q -n 2

# unit tests only (no sandbox starts), under 2 minutes
test-fast: venv
	$(BIN)/python -m pytest -q -n 2 -m unit

bench: venv
	$(BIN)/python bench/bench_triage.py
	$(BIN)/python bench/bench_endpoint.py
	$(BIN)/python bench/bench_loop.py
	$(BIN)/python bench/bench_mutants.py
	$(BIN)/python bench/bench_humaneval.py
	$(BIN)/python bench/bench_reach.py
	$(BIN)/python bench/bench_report.py
	$(BIN)/python bench/bench_cluster.py
	$(BIN)/python bench/bench_repo.py

clean:
	rm -rf $(VENV) $(EVALPLUS) $(SWEBENCH) runs.db runs.db-*
