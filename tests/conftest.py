"""Shared fixtures: the embedded sample written once per session, and throw-away project roots."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest
import yaml

from groundbench.cli import main
from groundbench.samples.umd import write_sample

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
UMD_FIXTURES = SHARED / "fixtures" / "real" / "umd"

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("DVC_NO_ANALYTICS", "1")

needs_shared = pytest.mark.skipif(not UMD_FIXTURES.is_dir(), reason="../shared/fixtures is not beside the project")


@pytest.fixture(scope="session")
def umd_sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A pristine embedded UMD sample; copy it before changing anything (see ``umd_tree``)."""
    root = tmp_path_factory.mktemp("umd_sample") / "umd"
    write_sample(root)
    return root


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


def build_all(root: Path) -> None:
    """Run every stage the way dvc.yaml does, without DVC."""
    assert run_cli(root, "convert", "umd", "--quiet") == 0
    assert run_cli(root, "bake", "curated_umd", "bulk_umd") == 0
    assert run_cli(root, "baselines") == 0
    assert run_cli(root, "store") == 0
    assert run_cli(root, "assemble") == 0
