# Two commands: `make build` (fresh machine -> .venv -> the whole pipeline on the embedded sample)
# and `make test`. Everything runs offline once the lock file's packages are installed.
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
# `make fetch` downloads every source that needs no request form (GAPartNet: groundbench fetch gapartnet --from).
FETCH ?= umd pointerbench screenspot screenspot_v2 screenspot_pro

.PHONY: build test env lint lock clean reliability fetch

$(STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

env: $(STAMP)

build: $(STAMP)
	$(if $(SOURCES),$(BIN)/groundbench sources $(SOURCES))
	$(BIN)/dvc repro
	$(BIN)/groundbench summary
	$(BIN)/groundbench verify
	$(BIN)/groundbench check-card

fetch: $(STAMP)
	HF_HUB_OFFLINE=0 $(BIN)/groundbench fetch $(FETCH)

test: $(STAMP)
	command -v chromium >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium)
	$(BIN)/python -m pytest -n 2 --dist loadfile

reliability: $(STAMP)
	GROUNDBENCH_WRITE_RELIABILITY=1 $(BIN)/python -m pytest -q tests/test_hardening.py

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy groundbench converters schemas scoring cards loaders

lock:
	rm -rf .lockenv && $(PYTHON) -m venv .lockenv
	.lockenv/bin/pip install --quiet --upgrade pip setuptools && .lockenv/bin/pip install --quiet ".[dev]"
	{ echo "# Exact versions of every dependency (direct and transitive), for Python 3.11 on Linux."; \
	  echo "# Regenerate: make lock (installs pyproject's dependencies into a fresh venv and freezes it)."; \
	  .lockenv/bin/pip freeze --all --exclude-editable | grep -vE '^(pip|groundbench)==' | sort -f; } > requirements.lock
	rm -rf .lockenv

clean:
	rm -rf $(VENV) data/sources data/interim data/shards data/manifests data/images data/groundbench data/report
