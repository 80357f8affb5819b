# Two commands: `make build` (fresh machine -> .venv -> the whole pipeline on the embedded sample)
# and `make test`. Everything runs offline once the lock file's packages are installed.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export PATH := $(abspath $(BIN)):$(PATH)
export HF_HUB_OFFLINE := 1
export DVC_NO_ANALYTICS := 1

# `make build SOURCES=real` first points params.yaml's sources: at the trees `groundbench fetch` brought in
# (sources not fetched become null: their configs are absent, with the reason); SOURCES=sample goes back.
SOURCES ?=
# `make fetch` downloads every source that needs no request form (GAPartNet: groundbench fetch gapartnet --from),
# as the specs say (converters/<name>/spec.py); read only when `make fetch` runs.
FETCH ?= $(shell $(BIN)/python -c "from groundbench.fetch.catalog import AUTOMATIC; print(*AUTOMATIC)")

.PHONY: build test test-fast env lint lock clean reliability reliability-faults fetch

# requirements.lock: what running GroundBench needs (load, request, score, build); requirements-dev.lock:
# what developing it adds (tests, lint). `make env` installs both; a user installs only the first.
$(STAMP): requirements.lock requirements-dev.lock pyproject.toml setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.lock -r requirements-dev.lock
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

env: $(STAMP)

build: $(STAMP)
	$(if $(SOURCES),$(BIN)/groundbench sources $(SOURCES))
	$(BIN)/dvc repro
	$(BIN)/dvc checkout --relink --quiet   # interim, shard and cache object of a config: one inode (docs/pipeline.md)
	$(BIN)/groundbench summary
	$(BIN)/groundbench verify
	$(BIN)/groundbench check-card

fetch: $(STAMP)
	HF_HUB_OFFLINE=0 $(BIN)/groundbench fetch $(FETCH)

# Lint first (what CI runs is `make test`, so lint is checked there too), then every test (the `slow`
# end-to-end ones too: DVC remotes, S3, the browser, the benchmark, full builds). Builds shared by many
# tests are made once per run, whichever worker needs them first (tests/support/builds.py).
test: $(STAMP) lint
	command -v chromium >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium)
	$(BIN)/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder

# While developing: lint, then everything but the tests marked `slow`.
test-fast: $(STAMP) lint
	$(BIN)/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder -m "not slow"

reliability: $(STAMP)
	GROUNDBENCH_WRITE_RELIABILITY=1 $(BIN)/python -m pytest -q tests/converters/umd/test_hardening_umd.py tests/converters/gapartnet/test_hardening_gapartnet.py \
		tests/converters/gui/test_hardening_gui.py

# The fault suite's section of docs/reliability.md (tests/faults/test_faults*.py; `make test` fails when it is stale).
reliability-faults: $(STAMP)
	GROUNDBENCH_WRITE_RELIABILITY=1 $(BIN)/python -m pytest -n 2 --dist loadfile -q $(wildcard tests/faults/test_faults*.py)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy groundbench converters schemas scoring cards loaders
	$(BIN)/groundbench dvc-deps --check

# Two fresh venvs: everything (runtime + the dev extra, which includes the eval extra) first, then the runtime
# dependencies alone, constrained to the first venv's versions so the two files never disagree (inspect-ai
# caps fsspec, which datasets and dvc share). The dev lock holds what the first venv adds. Pins resolve for
# Python 3.11 (the oldest supported) and must also install on 3.12 and 3.13.
lock:
	rm -rf .lockenv .lockenv-dev && $(PYTHON) -m venv .lockenv && $(PYTHON) -m venv .lockenv-dev
	.lockenv-dev/bin/pip install --quiet --upgrade pip setuptools && .lockenv-dev/bin/pip install --quiet ".[dev]"
	.lockenv-dev/bin/pip freeze --all --exclude-editable | grep -vE '^(pip|groundbench)==' > .lockenv-dev/all.txt
	.lockenv/bin/pip install --quiet --upgrade pip setuptools && .lockenv/bin/pip install --quiet -c .lockenv-dev/all.txt .
	{ echo "# Runtime dependencies (direct and transitive) at exact versions, for Python 3.11-3.13 on Linux."; \
	  echo "# Regenerate: make lock (writes this file and requirements-dev.lock from fresh venvs)."; \
	  .lockenv/bin/pip freeze --all --exclude-editable | grep -vE '^(pip|groundbench)==' | sort -f; } > requirements.lock
	{ echo "# Development-only dependencies (tests, lint, the S3 and Hub stand-ins, the browser test, the eval extra's"; \
	  echo "# inspect-ai and openai) at exact versions, on top of requirements.lock. Regenerate: make lock."; \
	  sort -f .lockenv-dev/all.txt | grep -vxF -f <(grep -v '^#' requirements.lock); } > requirements-dev.lock
	rm -rf .lockenv .lockenv-dev

clean:
	rm -rf $(VENV) data/sources data/interim data/shards data/manifests data/images data/groundbench data/report
