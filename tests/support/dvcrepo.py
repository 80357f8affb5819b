"""The default build made the way a user makes it: the project's tracked files in a new git repository,
built with `dvc repro`. Made once per test run (tests/support/builds.py) and shared by every test that only
reads a default build (tests/pipeline/test_dvc.py, tests/pipeline/test_dvc_s3.py,
tests/scoring/test_scoring_built.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO
from tests.support.builds import once

# What `dvc push` / `dvc pull` move: every output the pipeline tracks.
TRACKED_OUTPUTS = (
    "data/sources/sample/umd",
    "data/interim/umd",
    "data/shards",
    "data/manifests",
    "data/images",
    "data/groundbench",
)


def dvc_env() -> dict[str, str]:
    """The environment for `dvc`, `git` and the CLI in a subprocess: this venv first, offline, a git identity."""
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


def run_ok(cwd: Path, *command: str) -> str:
    """Run ``command`` in ``cwd``; its stdout and stderr (a failure shows both)."""
    result = subprocess.run(command, cwd=cwd, env=dvc_env(), capture_output=True, text=True, check=False)
    assert result.returncode == 0, f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout + result.stderr


def default_repo() -> Path:
    """The run's one `dvc repro` of the project (read only: copy it with ``copy_tree`` before changing it)."""
    return once("dvc_repo", lambda folder: _repro_repo(folder / "repo")) / "repo"


def git_project(root: Path) -> Path:
    """A git repository of the project's tracked files (dvc.lock included, data/ not built)."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for name in filter(None, files.decode().split("\0")):
        if (REPO / name).is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, root / name)
    run_ok(root, "git", "init", "-q")
    run_ok(root, "git", "add", "-A")
    run_ok(root, "git", "commit", "-qm", "project")
    return root


def _repro_repo(root: Path) -> None:
    run_ok(git_project(root), "dvc", "repro")
