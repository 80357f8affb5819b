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

.PHONY: build test env lint lock clean reliability

# requirements.lock: what running GroundBench needs (load, request, score, build); requirements-dev.lock:
# what developing it adds (tests, lint). `make env` installs both; a user installs only the first.
$(STAMP): requirements.lock requirements-dev.lock pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.lock -r requirements-dev.lock
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

env: $(STAMP)

build: $(STAMP)
	$(BIN)/dvc repro
	$(BIN)/groundbench summary
	$(BIN)/groundbench verify
	$(BIN)/groundbench check-card

test: $(STAMP)
	command -v chromium >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium)
	$(BIN)/python -m pytest -n 2 --dist loadfile

reliability: $(STAMP)
	GROUNDBENCH_WRITE_RELIABILITY=1 $(BIN)/python -m pytest -q tests/test_hardening.py

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy groundbench converters schemas scoring cards loaders

# Two fresh venvs: the runtime dependencies alone, then with the dev extra; the dev lock holds what the
# second adds. Pins resolve for Python 3.11 (the oldest supported) and must also install on 3.12 and 3.13.
lock:
	rm -rf .lockenv .lockenv-dev && $(PYTHON) -m venv .lockenv && $(PYTHON) -m venv .lockenv-dev
	.lockenv/bin/pip install --quiet --upgrade pip setuptools && .lockenv/bin/pip install --quiet .
	.lockenv-dev/bin/pip install --quiet --upgrade pip setuptools && .lockenv-dev/bin/pip install --quiet ".[dev]"
	{ echo "# Runtime dependencies (direct and transitive) at exact versions, for Python 3.11-3.13 on Linux."; \
	  echo "# Regenerate: make lock (writes this file and requirements-dev.lock from fresh venvs)."; \
	  .lockenv/bin/pip freeze --all --exclude-editable | grep -vE '^(pip|groundbench)==' | sort -f; } > requirements.lock
	{ echo "# Development-only dependencies (tests, lint, the S3 and Hub stand-ins, the browser test) at exact versions,"; \
	  echo "# on top of requirements.lock. Regenerate: make lock."; \
	  .lockenv-dev/bin/pip freeze --all --exclude-editable | grep -vE '^(pip|groundbench)==' | sort -f \
	    | grep -vxF -f <(grep -v '^#' requirements.lock); } > requirements-dev.lock
	rm -rf .lockenv .lockenv-dev

clean:
	rm -rf $(VENV) data/sources data/interim data/shards data/manifests data/images data/groundbench data/report
