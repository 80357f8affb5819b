"""`.venv/bin/dvc repro` works without an activated venv: dvc.yaml runs its stages through bin/groundbench,
which takes the checkout's .venv first and else the `groundbench` on PATH (DVC adds nothing to PATH).
Real `dvc repro` of the cheapest stage, sample_umd (and the `code` stage before it, which writes its code
fingerprint), in a throw-away project."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

VENV_BIN = Path(sys.executable).parent
BARE_PATH = "/usr/bin:/bin"  # a shell's PATH without any venv


def _project(root: Path, with_venv: bool) -> Path:
    root.mkdir()
    for name in ("dvc.yaml", "params.yaml", ".dvcignore", "pyproject.toml"):  # pyproject: the package map
        shutil.copy(REPO / name, root / name)
    shutil.copytree(REPO / "bin", root / "bin")
    shutil.copytree(REPO / "data" / "audits", root / "data" / "audits")
    for folder in ("groundbench", "converters", "schemas", "scoring", "loaders", "cards"):  # code deps
        shutil.copytree(REPO / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__"))
    if with_venv:  # the checkout's .venv (here: links to the interpreter running the tests)
        (root / ".venv" / "bin").mkdir(parents=True)
        (root / ".venv" / "bin" / "groundbench").symlink_to(VENV_BIN / "groundbench")
    subprocess.run([str(VENV_BIN / "dvc"), "init", "--no-scm", "-q"], cwd=root, check=True, env=_env(BARE_PATH))
    return root


def _env(path: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env.update(PATH=path, HF_HUB_OFFLINE="1", DVC_NO_ANALYTICS="1")
    return env


def _repro(root: Path, path: str) -> subprocess.CompletedProcess[str]:
    command = [str(VENV_BIN / "dvc"), "repro", "sample_umd"]
    return subprocess.run(command, cwd=root, env=_env(path), capture_output=True, text=True, check=False)


def _frames(root: Path) -> int:
    return len(list((root / "data" / "sources" / "sample" / "umd").rglob("*_rgb.jpg")))


def test_bare_groundbench_is_not_on_the_bare_path() -> None:
    assert shutil.which("groundbench", path=BARE_PATH) is None  # else the tests below prove nothing


@pytest.mark.parametrize("with_venv", [True, False], ids=["checkout-venv", "groundbench-on-path"])
def test_venv_dvc_repro_runs_without_an_activated_venv(tmp_path: Path, with_venv: bool) -> None:
    root = _project(tmp_path / "project", with_venv)
    # With a .venv: a PATH that lacks it. Without: groundbench found on PATH (another environment, CI).
    result = _repro(root, BARE_PATH if with_venv else f"{VENV_BIN}{os.pathsep}{BARE_PATH}")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "command not found" not in result.stdout + result.stderr
    assert _frames(root) == 36


def test_without_any_groundbench_the_stage_fails_with_the_fix(tmp_path: Path) -> None:
    root = _project(tmp_path / "project", with_venv=False)
    result = _repro(root, BARE_PATH)
    assert result.returncode != 0
    assert "run `make env`" in result.stdout + result.stderr
