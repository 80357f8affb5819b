"""The real DVC pipeline: repro, a no-op second repro, push to a local remote, clone + pull."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.builds import copy_tree, once
from tests.conftest import REPO, digests

pytestmark = pytest.mark.slow  # end to end: `dvc repro` of the whole default pipeline, a local remote

TRACKED_OUTPUTS = (
    "data/sources/sample/umd",
    "data/interim/umd",
    "data/shards",
    "data/manifests",
    "data/baselines",
    "data/images",
    "data/groundbench",
)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    env.update(
        HF_HUB_OFFLINE="1",
        DVC_NO_ANALYTICS="1",
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@t",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@t",
    )
    return env


def _run(cwd: Path, *command: str) -> str:
    result = subprocess.run(command, cwd=cwd, env=_env(), capture_output=True, text=True, check=False)
    assert result.returncode == 0, f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout + result.stderr


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory, _shared_builds: None) -> Path:
    """A git repository holding exactly the project's tracked files, built with `dvc repro` once per test
    run; each module using it (this one, tests/test_dvc_s3.py) gets its own copy to push from."""
    built = once("dvc_repo", lambda folder: _repro_repo(folder / "repo"))
    return copy_tree(built / "repo", tmp_path_factory.mktemp("dvc") / "repo")


def _repro_repo(root: Path) -> Path:
    files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for name in filter(None, files.decode().split("\0")):
        if (REPO / name).is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, root / name)
    _run(root, "git", "init", "-q")
    _run(root, "git", "add", "-A")
    _run(root, "git", "commit", "-qm", "project")
    _run(root, "dvc", "repro")
    return root


def test_repro_reproduces_the_committed_lock_file(repo: Path) -> None:
    # dvc.lock holds the hash of every output: an unchanged lock means a byte-identical build.
    diff = subprocess.run(["git", "diff", "--stat", "dvc.lock"], cwd=repo, capture_output=True, text=True, check=True)
    assert diff.stdout == "", f"the build differs from the committed dvc.lock:\n{diff.stdout}"


def test_a_second_repro_does_nothing(repo: Path) -> None:
    output = _run(repo, "dvc", "repro")
    assert "Running stage" not in output
    assert "Data and pipelines are up to date." in output


def test_push_then_clone_and_pull_restores_byte_identical_data(repo: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote"
    _run(repo, "dvc", "remote", "add", "-d", "local", str(remote))
    _run(repo, "dvc", "push")
    _run(repo, "git", "add", ".dvc/config", "dvc.lock")
    _run(repo, "git", "commit", "-qm", "remote")
    clone = tmp_path / "clone"
    _run(tmp_path, "git", "clone", "-q", str(repo), str(clone))
    _run(clone, "dvc", "pull")
    assert digests(clone, TRACKED_OUTPUTS) == digests(repo, TRACKED_OUTPUTS)
    assert len(digests(clone, TRACKED_OUTPUTS)) > 40
    _run(clone, sys.executable, "-m", "groundbench.cli", "verify")
    status = _run(clone, "dvc", "status")
    assert "up to date" in status

    image = sorted((clone / "data/images").rglob("*.jpg"))[0]
    data = bytearray(image.read_bytes())
    data[100] ^= 0xFF
    image.write_bytes(bytes(data))
    assert "modified:" in _run(clone, "dvc", "status") and "data/images" in _run(clone, "dvc", "status")
