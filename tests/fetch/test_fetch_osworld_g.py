"""`groundbench fetch osworld_g` against a loopback stand-in for raw.githubusercontent.com serving the code
repository's ``benchmark/`` folder at a commit: the fixed files and every screenshot the benchmark file names are
taken, each checked against the catalogue's pin (the pinned commit) or the sha256 recorded at the first fetch,
and the fetched tree converts to every row, refusal rows included."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from groundbench.converters.gui.spec import OSWORLD_G_COMMIT
from groundbench.core.params import load_params
from groundbench.fetch.provenance import read_record, tree_dir
from groundbench.stages.convert import run_convert
from tests.conftest import REPO, run_cli
from tests.support.loopback import FileServer
from tests.support.osworld_g_release import RELEASE, benchmark_files, raw_host_files

REPO_ID = "xlang-ai/OSWorld-G"
COMMIT = "0123456789abcdef0123456789abcdef01234567"  # a stand-in commit: the catalogue's pins are for its own


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(REPO / "params.yaml", project / "params.yaml")
    return project


def test_fetch_takes_the_benchmark_folder_and_converts_every_row(root: Path) -> None:
    files = benchmark_files()
    with FileServer(raw_host_files(REPO_ID, COMMIT, files)) as server:
        code = run_cli(root, "fetch", "osworld_g", "--url", server.url, "--revision", COMMIT, "--quiet")
        asked = sorted(path for method, path, _ in server.requests if method == "GET")
    assert code == 0
    assert asked == sorted(f"/{REPO_ID}/{COMMIT}/{p}" for p in files)  # the screenshots named, nothing else
    record = read_record(root, "osworld_g")
    assert record is not None and record["kind"] == "github" and record["revision"] == COMMIT
    assert record["files"] == {p: {"bytes": len(d), "sha256": hashlib.sha256(d).hexdigest()} for p, d in files.items()}
    assert sorted(
        str(p.relative_to(tree_dir(root, "osworld_g"))) for p in tree_dir(root, "osworld_g").rglob("*.*")
    ) == sorted(files)
    assert run_cli(root, "sources", "real") == 0
    converted = run_convert(root, load_params(root), "osworld_g", progress=False)
    assert converted == {"gui_osworld_g": len(RELEASE), "gui_osworld_g_refined": len(RELEASE)}


def test_the_pinned_commit_holds_the_benchmark_file_to_the_catalogue_sha256(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = benchmark_files()  # a stand-in's bytes, not the release's: the pin refuses them
    with FileServer(raw_host_files(REPO_ID, OSWORLD_G_COMMIT, files)) as server:
        result = run_cli(root, "fetch", "osworld_g", "--url", server.url, "--quiet")
        asked = [path for method, path, _ in server.requests if method == "GET"]
    assert result != 0
    assert asked == [f"/{REPO_ID}/{OSWORLD_G_COMMIT}/benchmark/OSWorld-G.json"]  # the default commit, refused first
    assert f"the catalogue's sha256 of benchmark/OSWorld-G.json at {OSWORLD_G_COMMIT[:12]}" in capsys.readouterr().err
    assert read_record(root, "osworld_g") is None and not tree_dir(root, "osworld_g").exists()


def test_a_refetch_of_the_same_commit_refuses_changed_bytes(root: Path) -> None:
    files = benchmark_files()
    with FileServer(raw_host_files(REPO_ID, COMMIT, files)) as server:
        assert run_cli(root, "fetch", "osworld_g", "--url", server.url, "--revision", COMMIT, "--quiet") == 0
    before = read_record(root, "osworld_g")
    changed = files | {"benchmark/classification_result.json": b'{"classified": {}}'}
    with FileServer(raw_host_files(REPO_ID, COMMIT, changed)) as server:
        assert run_cli(root, "fetch", "osworld_g", "--url", server.url, "--refresh", "--quiet") != 0
        assert (
            run_cli(
                root,
                "fetch",
                "osworld_g",
                "--url",
                server.url,
                "--refresh",
                "--update",
                "--revision",
                COMMIT,
                "--quiet",
            )
            == 0
        )
    after = read_record(root, "osworld_g")
    assert before is not None and after is not None
    assert after["files"]["benchmark/classification_result.json"]["bytes"] == len(b'{"classified": {}}')


def test_a_branch_name_is_refused_and_a_listed_name_may_not_climb_out(root: Path) -> None:
    assert run_cli(root, "fetch", "osworld_g", "--revision", "main", "--quiet") != 0
    files = benchmark_files()
    files["benchmark/OSWorld-G.json"] = b'[{"id": "x", "image_path": "../../evil.png"}]'
    with FileServer(raw_host_files(REPO_ID, COMMIT, files)) as server:
        assert run_cli(root, "fetch", "osworld_g", "--url", server.url, "--revision", COMMIT, "--quiet") != 0
        asked = [path for method, path, _ in server.requests if method == "GET"]
    assert not any("evil" in path for path in asked)
    assert read_record(root, "osworld_g") is None


def test_a_tree_fetched_from_the_hub_copy_is_fetched_again_from_github(root: Path) -> None:
    files = benchmark_files()
    with FileServer(raw_host_files(REPO_ID, COMMIT, files)) as server:
        assert run_cli(root, "fetch", "osworld_g", "--url", server.url, "--revision", COMMIT, "--quiet") == 0
    record = read_record(root, "osworld_g")
    assert record is not None
    record_path = root / "data" / "sources" / "osworld_g" / "provenance.json"
    record_path.write_text(json.dumps(record | {"kind": "hub", "repo": "MMInstruction/OSWorld-G"}), encoding="utf-8")
    with FileServer(raw_host_files(REPO_ID, OSWORLD_G_COMMIT, files)) as server:
        code = run_cli(root, "fetch", "osworld_g", "--url", server.url, "--quiet")
        asked = [path for method, path, _ in server.requests if method == "GET"]
    # not "up to date": the release is asked at the catalogue's commit (whose pin refuses the stand-in's bytes)
    assert code != 0 and asked == [f"/{REPO_ID}/{OSWORLD_G_COMMIT}/benchmark/OSWorld-G.json"]
