# Set-up and entry points. `make run` and `make test` work on a fresh Debian/Ubuntu machine.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin

.PHONY: run test deps venv examples bench clean

deps:
	@command -v bwrap >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq bubblewrap g++ python3; \
	  else echo "bubblewrap is missing: run 'sudo apt-get install -y bubblewrap g++ python3'"; exit 2; fi; }
	@command -v g++ >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq g++; \
	  else echo "g++ is missing: run 'sudo apt-get install -y g++'"; exit 2; fi; }

venv: deps
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install -q -e '.[test,humaneval]'

run: venv
	$(BIN)/loop tasks check
	$(BIN)/loop run

test: venv
	$(BIN)/python -m pytest -q -n 2

bench: venv
	$(BIN)/python bench/bench_triage.py

clean:
	rm -rf $(VENV) runs.db runs.db-*
