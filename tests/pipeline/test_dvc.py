"""The real DVC pipeline: repro, a no-op second repro, push to a local remote, clone + pull."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import digests
from tests.support.builds import copy_tree
from tests.support.dvcrepo import TRACKED_OUTPUTS, default_repo, run_ok

pytestmark = pytest.mark.slow  # end to end: `dvc repro` of the whole default pipeline, a local remote


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory, _shared_builds: None) -> Path:
    """The run's `dvc repro` of the project (tests/support/dvcrepo.py); each module using it gets its own copy to
    push from."""
    return copy_tree(default_repo(), tmp_path_factory.mktemp("dvc") / "repo")


def test_repro_reproduces_the_committed_lock_file(repo: Path) -> None:
    # dvc.lock holds the hash of every output: an unchanged lock means a byte-identical build.
    diff = subprocess.run(["git", "diff", "--stat", "dvc.lock"], cwd=repo, capture_output=True, text=True, check=True)
    assert diff.stdout == "", f"the build differs from the committed dvc.lock:\n{diff.stdout}"


def test_a_second_repro_does_nothing(repo: Path) -> None:
    output = run_ok(repo, "dvc", "repro")
    assert "Running stage" not in output
    assert "Data and pipelines are up to date." in output


def test_push_then_clone_and_pull_restores_byte_identical_data(repo: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote"
    run_ok(repo, "dvc", "remote", "add", "-d", "local", str(remote))
    run_ok(repo, "dvc", "push")
    run_ok(repo, "git", "add", ".dvc/config", "dvc.lock")
    run_ok(repo, "git", "commit", "-qm", "remote")
    clone = tmp_path / "clone"
    run_ok(tmp_path, "git", "clone", "-q", str(repo), str(clone))
    run_ok(clone, "dvc", "pull")
    assert digests(clone, TRACKED_OUTPUTS) == digests(repo, TRACKED_OUTPUTS)
    assert len(digests(clone, TRACKED_OUTPUTS)) > 40
    run_ok(clone, sys.executable, "-m", "groundbench.cli", "verify")
    status = run_ok(clone, "dvc", "status")
    assert "up to date" in status

    image = sorted((clone / "data/images").rglob("*.jpg"))[0]
    data = bytearray(image.read_bytes())
    data[100] ^= 0xFF
    image.write_bytes(bytes(data))
    assert "modified:" in run_ok(clone, "dvc", "status") and "data/images" in run_ok(clone, "dvc", "status")
