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

.PHONY: build test test-benchmark test-faults test-fast env lint lock clean reliability reliability-faults fetch

# requirements.lock: a light install (load, request, score: no extra); requirements-build.lock: what the build
# extra adds (make build); requirements-dev.lock: what developing adds (tests, lint, the eval extra). `make env`
# installs all three, then keeps the light set's wheels in $(WHEELHOUSE) (from pip's cache or the index), so a
# test installs a light GroundBench into a fresh venv offline (tests/project/test_light_install.py).
WHEELHOUSE := $(VENV)/wheelhouse
$(STAMP): requirements.lock requirements-build.lock requirements-dev.lock pyproject.toml setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.lock -r requirements-build.lock -r requirements-dev.lock
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	$(BIN)/python -m pip download --quiet --no-deps -r requirements.lock -d $(WHEELHOUSE)
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

# Lint first (CI runs `make test`, so lint is checked there too), then every test of the package (the `slow`
# end-to-end ones too: DVC remotes, S3, the browser, full builds) but two suites CI runs after it (.ci/run): the
# benchmark's smoke run (`make test-benchmark`: it tests the measuring script, 4-5 minutes of one core alone) and
# the fault suite (`make test-faults`: real full disks, read-only mounts, signals and failing servers, 4 minutes
# of both cores; it checks docs/reliability.md's section too, which needs the whole suite in one run). Builds
# shared by many tests are made once per run, whichever worker needs them first (tests/support/builds.py). Three
# workers on 2 cores: about a fifth of the suite's time is tests waiting on child processes and loopback servers,
# which a third worker fills (PYTEST_WORKERS=N to change it).
PYTEST_WORKERS ?= 3
test: $(STAMP) lint
	command -v chromium >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium)
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=25 -m "not benchmark" \
		$(addprefix --ignore=,$(FAULT_SUITE))

FAULT_SUITE = $(wildcard tests/faults/test_faults*.py)
test-faults: $(STAMP)
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=10 $(FAULT_SUITE)

# The smoke run of benchmarks/run.py (tests/project/test_benchmark.py): every section at a tiny scale.
test-benchmark: $(STAMP)
	$(BIN)/python -m pytest -m benchmark tests/project/test_benchmark.py

# While developing: lint, then everything but the tests marked `slow`.
test-fast: $(STAMP) lint
	$(BIN)/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder -m "not slow"

reliability: $(STAMP)
	GROUNDBENCH_WRITE_RELIABILITY=1 $(BIN)/python -m pytest -q tests/converters/umd/test_hardening_umd.py tests/converters/gapartnet/test_hardening_gapartnet.py \
		tests/converters/gui/test_hardening_gui.py

# The fault suite's section of docs/reliability.md (tests/faults/test_faults*.py; `make test-faults` fails when it is
# stale).
reliability-faults: $(STAMP)
	GROUNDBENCH_WRITE_RELIABILITY=1 $(BIN)/python -m pytest -n 2 --dist loadfile -q $(FAULT_SUITE)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy groundbench converters schemas scoring cards loaders
	$(BIN)/groundbench dvc-deps --check

# Three fresh venvs: everything (runtime, the build extra and the dev extra, which includes the eval extra)
# first, then the light runtime alone and the runtime with the build extra, each constrained to the first venv's
# versions so the files never disagree (inspect-ai caps fsspec, which datasets and dvc share). The build lock holds
# what the build extra adds to the light set, the dev lock what the first venv adds to both. Pins resolve for
# Python 3.11 (the oldest supported) and must also install on 3.12 and 3.13. `make lock KEEP=1` resolves within
# the current pins (after moving a package between extras: every version stays, so the build stays the same).
FREEZE = bin/pip freeze --all --exclude-editable | grep -vE '^(pip|groundbench)( @|==)'
KEEP ?=
lock:
	rm -rf .lockenv .lockenv-build .lockenv-dev
	for env in .lockenv .lockenv-build .lockenv-dev; do $(PYTHON) -m venv $$env; done
	grep -hv '^#' requirements.lock requirements-build.lock requirements-dev.lock > .lockenv-dev/pinned.txt
	.lockenv-dev/bin/pip install --quiet --upgrade $(if $(KEEP),-c .lockenv-dev/pinned.txt) pip setuptools
	.lockenv-dev/bin/pip install --quiet $(if $(KEEP),-c .lockenv-dev/pinned.txt) ".[dev]"
	.lockenv-dev/$(FREEZE) > .lockenv-dev/all.txt
	.lockenv/bin/pip install --quiet --upgrade -c .lockenv-dev/all.txt pip setuptools
	.lockenv/bin/pip install --quiet -c .lockenv-dev/all.txt .
	.lockenv-build/bin/pip install --quiet --upgrade -c .lockenv-dev/all.txt pip setuptools
	.lockenv-build/bin/pip install --quiet -c .lockenv-dev/all.txt ".[build]"
	{ echo "# Runtime dependencies of a light install (load, requests, score, table; no extra), direct and transitive, at exact"; \
	  echo "# versions, for Python 3.11-3.13 on Linux. Regenerate: make lock (writes the three lock files from fresh venvs)."; \
	  .lockenv/$(FREEZE) | sort -f; } > requirements.lock
	{ echo "# What the build extra adds to requirements.lock (DVC, the converters' geometry and rendering, the checks, the"; \
	  echo "# engines, matplotlib for the plots extra) at exact versions. Regenerate: make lock."; \
	  .lockenv-build/$(FREEZE) | sort -f | grep -vxF -f <(grep -v '^#' requirements.lock); } > requirements-build.lock
	{ echo "# Development-only dependencies (tests, lint, the S3 and Hub stand-ins, the browser test, the eval extra's"; \
	  echo "# inspect-ai and openai) at exact versions, on top of requirements.lock and requirements-build.lock. Regenerate: make lock."; \
	  sort -f .lockenv-dev/all.txt | grep -vxF -f <(grep -hv '^#' requirements.lock requirements-build.lock); } > requirements-dev.lock
	rm -rf .lockenv .lockenv-build .lockenv-dev

clean:
	rm -rf $(VENV) data/sources data/interim data/shards data/manifests data/images data/groundbench data/report
