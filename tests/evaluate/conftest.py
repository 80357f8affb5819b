"""Fixtures every eval test shares: inspect's state in the test's folder, one UMD sample build per module."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import build_all, umd_project


@pytest.fixture(autouse=True)
def _inspect_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """inspect keeps traces and sample buffers under XDG_DATA_HOME: keep them in the test's folder."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, umd_sample: Path) -> Path:
    """The embedded UMD sample, built once for each module that asks for it."""
    root = umd_project(tmp_path_factory.mktemp("eval_build") / "project", umd_sample)
    build_all(root)
    return root
