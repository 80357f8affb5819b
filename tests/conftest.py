"""Shared fixtures: the embedded samples written once per test run, throw-away project roots, and
``build_all``, whose identical builds are made once per run (see tests/builds.py)."""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from groundbench.cli import main
from groundbench.samples.gapartnet import write_sample as write_gapartnet_sample
from groundbench.samples.umd import write_sample
from tests import builds

REPO = Path(__file__).resolve().parents[1]
# The real-format annotation fixtures beside the project (GROUNDBENCH_SHARED points elsewhere, e.g. from a git
# worktree); tests that read them skip when they are absent.
SHARED = Path(os.environ.get("GROUNDBENCH_SHARED", REPO.parent / "shared"))
UMD_FIXTURES = SHARED / "fixtures" / "real" / "umd"

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("DVC_NO_ANALYTICS", "1")

needs_shared = pytest.mark.skipif(not UMD_FIXTURES.is_dir(), reason="../shared/fixtures is not beside the project")


@pytest.fixture(scope="session", autouse=True)
def _shared_builds(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Where builds shared by every worker of this run live (tests/builds.py)."""
    builds.RUN_DIR = builds.run_dir(tmp_path_factory.getbasetemp())


@pytest.fixture(scope="session")
def umd_sample(_shared_builds: None) -> Path:
    """A pristine embedded UMD sample (written once per run); copy it before changing anything (``umd_tree``)."""
    return builds.once("umd_sample", lambda folder: write_sample(folder / "umd")) / "umd"


@pytest.fixture(scope="session")
def gapartnet_rendered(_shared_builds: None) -> Path:
    """The embedded GAPartNet sample at the default size, rendered once per run (read only: conversion never
    writes to a source; copy it before changing anything)."""
    return builds.once("gapartnet_sample", lambda folder: write_gapartnet_sample(folder / "gapartnet")) / "gapartnet"


@pytest.fixture
def umd_tree(umd_sample: Path, tmp_path: Path) -> Path:
    """A private copy of the sample that a test may damage."""
    target = tmp_path / "umd_source"
    shutil.copytree(umd_sample, target, symlinks=True)
    return target


@pytest.fixture
def project(tmp_path: Path, umd_tree: Path) -> Path:
    """A project root (params.yaml + audit file) whose UMD source is ``umd_tree``, one worker."""
    root = tmp_path / "project"
    (root / "data" / "audits").mkdir(parents=True)
    shutil.copy(REPO / "data" / "audits" / "curated_umd.yaml", root / "data" / "audits" / "curated_umd.yaml")
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params["sources"]["umd"] = str(umd_tree)
    params["umd"]["workers"] = 1
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    return root


def digests(root: Path, folders: tuple[str, ...]) -> dict[str, str]:
    """sha256 of every file under ``folders`` (relative to ``root``), keyed by relative path."""
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for folder in folders
        for path in sorted((root / folder).rglob("*"))
        if path.is_file()
    }


def run_cli(root: Path, *args: str) -> int:
    """Run the CLI in-process (output goes to the captured stdout/stderr)."""
    return main(["--root", str(root), *args])


UMD_STAGES = (
    ("convert", "umd", "--quiet"),
    ("bake", "curated_umd", "bulk_umd"),
    ("baselines",),
    ("store",),
    ("assemble",),
)


def build_all(root: Path) -> None:
    """Run every stage the way dvc.yaml does, without DVC (a copy of an identical earlier build of this run)."""
    builds.run_stages(root, UMD_STAGES, lambda where, command: run_cli(where, *command))


# Longest files first (measured with --durations on 2 cores). `make test` hands whole files to two workers
# in collection order (--no-loadscope-reorder: by default xdist starts with the files holding the most
# tests, which leaves these long few-test files for last), and a run ends when its last file does: a long
# file picked up last leaves the other worker idle. test_dvc.py makes the run's one `dvc repro`
# (tests/dvcrepo.py) that test_dvc_s3.py, test_scoring_built.py and test_faults_integrity.py read, so it
# starts at once (on the other worker) and they come later. Only the order changes: no test depends on
# another having run.
LONGEST_FIRST = (
    "test_benchmark.py",
    "test_dvc.py",
    "test_fetch_dvc.py",
    "test_faults.py",
    "test_card.py",
    "test_eval.py",
    "test_dvc_s3.py",
    "test_scoring_built.py",
    "test_faults_integrity.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: index for index, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the rest keep their order


# The reliability table (tests/reliability.py): written once the whole run is over, from the campaigns every
# hardening file recorded, so that no test has to run after the others.


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """xdist controller: take a finished worker's campaigns."""
    campaigns = getattr(node, "workeroutput", {}).get("reliability_campaigns")
    if campaigns:
        from tests import reliability

        reliability.merge(campaigns)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    reliability = sys.modules.get("tests.reliability")
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: hand the campaigns to the controller
        if reliability is not None:
            workeroutput["reliability_campaigns"] = reliability.campaigns_json(reliability.CAMPAIGNS)
        return
    if reliability is None or not reliability.CAMPAIGNS:
        return  # no hardening test ran
    missing = reliability.missing_campaigns()
    if missing:  # some of the hardening tests ran (-k, one file, a failure): no table from part of the campaigns
        if os.environ.get("GROUNDBENCH_WRITE_RELIABILITY"):
            print(f"\nreliability table NOT written: {missing} fuzz campaigns did not run", file=sys.stderr)
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        return
    print(f"\nreliability table: {reliability.write_table()}", file=sys.stderr)
