# paper-checks: `make run` checks every claim at quick scale; `make test` runs ruff and pytest;
# `make docs` builds the site (docs/_build/html) with warnings as errors.
# Both create .venv on first use (Python >= 3.11) and reinstall when pyproject.toml changes.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# `make run` and `make bench` need the package and its runtime extras only (not the test and docs
# tools: ~10 s less of a cold `make run`); the other targets add those.
RUN_STAMP := $(VENV)/.installed-run
# torch first: the pinned CPU wheel satisfies the `neural` extra's range without a CUDA download.
TORCH ?= torch==2.13.0
# Two test processes (the CI machines have 2 cores), each with single-threaded BLAS and numba;
# the 25 slowest tests are listed at the end (where CI time goes).
PYTEST_ARGS ?= -n 2 --durations=25
SINGLE_THREADED := OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 NUMBA_NUM_THREADS=1
# No bytecode at install: pip compiles every file of every package (torch alone: 18 of its 24 s),
# while a run imports a small part of them, compiled on first import (measured on a fresh clone:
# 27 s instead of 69 s to install; about 3 CPU-s more per process where no bytecode is written).
PIP_INSTALL := $(BIN)/python -m pip install --quiet --disable-pip-version-check --no-compile

.PHONY: run test fuzz lint bench docs regen clean device-wheels

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(RUN_STAMP): pyproject.toml | $(BIN)/python
	$(PIP_INSTALL) $(TORCH)
	$(PIP_INSTALL) -e ".[neural,dist,minilm]"
	touch $@

$(STAMP): $(RUN_STAMP)
	$(PIP_INSTALL) -e ".[neural,dist,minilm,test,docs]"
	touch $@

run: $(RUN_STAMP)
	$(SINGLE_THREADED) $(BIN)/paper-checks run --all --scale quick --workers 2 --fail-on error

test: lint
	MPLBACKEND=Agg $(SINGLE_THREADED) $(BIN)/python -m pytest $(PYTEST_ARGS)

# Property and fuzz tests with fresh random examples (many more than `make test`'s fixed ones):
# the bug hunt to run before a stop. FUZZ_EXAMPLES sets examples per test (default 400).
fuzz: $(STAMP)
	MPLBACKEND=Agg HYPOTHESIS_PROFILE=fuzz $(SINGLE_THREADED) $(BIN)/python -m pytest $(PYTEST_ARGS) \
		-m "hypothesis and not slow" tests

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The site: the README and docs pages, the API reference generated from the docstrings, and the
# gallery (examples/plot_*.py, executed on every build: each page shows its runtime).
docs: $(STAMP)
	rm -rf docs/_build docs/api/generated docs/gallery
	MPLBACKEND=Agg $(SINGLE_THREADED) $(BIN)/sphinx-build -W --keep-going -b html docs docs/_build/html

bench: $(RUN_STAMP)
	$(BIN)/paper-checks bench

# Wheels of the dependencies a GPU machine's image lacks, for scripts/device_check.py (which
# installs them there without a network), at the versions installed here.
device-wheels: $(STAMP)
	$(BIN)/python -m pip download --quiet --disable-pip-version-check --no-deps \
		--only-binary=:all: -d .device-wheels \
		$$($(BIN)/python -m pip freeze | grep -i -E '^(array[-_]api[-_]compat|array[-_]api[-_]strict|tqdm)==')

# The maintainers' tool (not in the wheel): rebuild the generated blocks of README.md and docs/, and
# paper_checks/reference.json, from the committed reference runs in docs/results.
regen: $(STAMP)
	MPLBACKEND=Agg $(SINGLE_THREADED) $(BIN)/python -m tools.docs

clean:
	rm -rf $(VENV) results bench.json .pytest_cache .ruff_cache docs/_build docs/api/generated docs/gallery
