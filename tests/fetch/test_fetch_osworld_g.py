"""`groundbench fetch osworld_g` against a loopback Hub stub serving the release's layout (the benchmark file,
classification_result.json and images/, at the root or under benchmark/): the commit is pinned, every file
checked, the README left out, and the fetched tree converts to every row, refusal rows included."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from groundbench.core.params import load_params
from groundbench.fetch.provenance import read_record
from groundbench.stages.convert import run_convert
from tests.conftest import REPO, run_cli
from tests.fetch.test_fetch import fetch_hub
from tests.support.loopback import HubRepos
from tests.support.osworld_g_release import RELEASE, hub_files

REPO_ID = "MMInstruction/OSWorld-G"
COMMIT = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(REPO / "params.yaml", project / "params.yaml")
    return project


@pytest.mark.parametrize("prefix", ["", "benchmark/"])
def test_hub_fetch_of_the_release_converts_every_row(root: Path, prefix: str) -> None:
    files = hub_files(prefix)
    stub = HubRepos()
    stub.add(REPO_ID, COMMIT, files)
    with stub:
        result = fetch_hub(root, stub.url, "osworld_g")
    assert result.returncode == 0, result.stderr
    record = read_record(root, "osworld_g")
    assert record is not None and record["revision"] == COMMIT
    wanted = sorted(p for p in files if p != "README.md")
    assert sorted(record["files"]) == wanted
    assert {p: f["sha256"] for p, f in record["files"].items()} == {
        p: hashlib.sha256(files[p]).hexdigest() for p in wanted
    }
    assert run_cli(root, "sources", "real") == 0
    assert run_convert(root, load_params(root), "osworld_g", progress=False) == {"gui_osworld_g": len(RELEASE)}
