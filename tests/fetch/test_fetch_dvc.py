"""From zero to a real-source build and back: a maintainer fetches (loopback HTTP and Hub), builds with
`groundbench sources real` + `dvc repro`, pushes to a local DVC remote; a fresh clone `dvc pull`s
byte-identical sources and artifacts with both servers stopped. Small sources, small sample knobs."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO, digests
from tests.support.dvcrepo import TRACKED_OUTPUTS, dvc_env
from tests.support.fetch_sources import (
    PB_COMMIT,
    POINTERBENCH,
    SCREENSPOT_V2,
    UMD_PATH,
    V2_COMMIT,
    pointerbench_files,
    screenspot_v2_files,
    umd_tarball,
)
from tests.support.hubstub import hub_env
from tests.support.loopback import FileServer, HubRepos

pytestmark = pytest.mark.slow  # end to end: fetch from loopback servers, `dvc repro` on real-format sources

FETCHED = ("data/sources/umd", "data/sources/pointerbench", "data/sources/screenspot_v2")
BUILT = {"curated_umd", "bulk_umd", "gui_sheets", "gui_text", "gui_pro", "gui_screenspot_v2"}


def _run(cwd: Path, *command: str, env: dict[str, str] | None = None, ok: bool = True) -> str:
    result = subprocess.run(command, cwd=cwd, env=env or dvc_env(), capture_output=True, text=True, check=False)
    if ok:
        assert result.returncode == 0, f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout + result.stderr


def _small(params: dict) -> dict:
    params["sample"]["umd"]["frames_per_tool"] = 1
    params["sample"]["gui"].update(examples_per_suite=2, frames=["1024x768"], screenspot_rows=2, workers=1)
    for key in ("umd", "gui", "gapartnet"):
        params[key]["workers"] = 1
    return params


@pytest.fixture(scope="module")
def maintainer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's tracked files in a new git repo, real sources fetched from loopback servers, built."""
    base = tmp_path_factory.mktemp("real")
    root = base / "repo"
    files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for name in filter(None, files.decode().split("\0")):
        if (REPO / name).is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, root / name)
    params = _small(yaml.safe_load((root / "params.yaml").read_text()))
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    _run(root, "git", "init", "-q")
    _run(root, "git", "add", "-A")
    _run(root, "git", "commit", "-qm", "project")

    cli = [sys.executable, "-m", "groundbench.cli", "fetch", "--quiet"]
    hub = HubRepos()
    hub.add(POINTERBENCH, PB_COMMIT, pointerbench_files())
    hub.add(SCREENSPOT_V2, V2_COMMIT, screenspot_v2_files())
    release = umd_tarball(base / "release")  # a small stand-in: --sha256 vouches for it (not the catalogue's archive)
    with FileServer({UMD_PATH: release}, drop_first=True) as server, hub:
        _run(root, *cli, "umd", "--url", server.url + UMD_PATH, "--sha256", hashlib.sha256(release).hexdigest())
        _run(root, *cli, "pointerbench", "screenspot_v2", env=hub_env(hub.url, base / "hf_home"))
    _run(root, sys.executable, "-m", "groundbench.cli", "sources", "real")
    _run(root, "dvc", "repro")
    _run(root, "git", "add", "-A")  # params.yaml, dvc.lock, each source's tree.dvc and provenance.json
    _run(root, "git", "commit", "-qm", "real sources, built")
    return root


def test_the_real_build_reads_the_fetched_sources_and_dvc_lock_pins_them(maintainer: Path) -> None:
    built = {p.name for p in (maintainer / "data/shards").iterdir() if p.is_dir() and not (p / "ABSENT").exists()}
    assert built == BUILT
    for config in ("gui_screenspot", "gui_screenspot_pro", "curated_gapartnet", "contrast_gapartnet"):
        reason = (maintainer / "data/shards" / config / "ABSENT").read_text()
        assert "is null in params.yaml; not fetched (run `groundbench fetch" in reason, (config, reason)
    # rows come from the fetched trees, not from the samples
    summary = _run(maintainer, sys.executable, "-m", "groundbench.cli", "summary")
    assert "gui_pro" in summary and "gui_screenspot_v2" in summary
    lock = yaml.safe_load((maintainer / "dvc.lock").read_text())
    deps = {d["path"]: d for d in lock["stages"]["convert_umd"]["deps"]}
    assert deps["data/sources/umd"]["nfiles"] > 10  # the tree's bytes are hashed into the lock
    tracked = yaml.safe_load((maintainer / "data/sources/umd/tree.dvc").read_text())
    assert tracked["outs"][0]["path"] == "tree" and tracked["outs"][0]["md5"].endswith(".dir")
    card = (maintainer / "data/groundbench/README.md").read_text()
    for source in ("umd", "pointerbench", "screenspot_v2"):
        record = json.loads((maintainer / "data/sources" / source / "provenance.json").read_text())
        checksum = record["archive"]["sha256"] if record["archive"] else record["tree"]["sha256"]
        row = next(line for line in card.splitlines() if line.startswith(f"| {record['title']} | {record['origin']} |"))
        assert record["revision"] in row and checksum in row and record["tree"]["sha256"] in row
    assert f"`{PB_COMMIT}`" in card and f"`{V2_COMMIT}`" in card
    assert "up to date" in _run(maintainer, "dvc", "status")


def test_pull_without_a_remote_says_so_in_one_line(maintainer: Path, tmp_path: Path) -> None:
    clone = tmp_path / "no_remote"
    _run(tmp_path, "git", "clone", "-q", str(maintainer), str(clone))
    result = subprocess.run(
        [sys.executable, "-m", "groundbench.cli", "pull", "curated_umd"],
        cwd=clone,
        env=dvc_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    lines = [line for line in (result.stdout + result.stderr).splitlines() if line.strip()]
    assert len(lines) == 1 and "no DVC remote is configured" in lines[0], result.stdout + result.stderr


def test_a_clone_pulls_byte_identical_sources_and_artifacts(maintainer: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote"
    _run(maintainer, "dvc", "remote", "add", "-d", "local", str(remote))
    _run(maintainer, "dvc", "push")
    _run(maintainer, "git", "add", ".dvc/config")
    _run(maintainer, "git", "commit", "-qm", "DVC remote")
    clone = tmp_path / "clone"
    _run(tmp_path, "git", "clone", "-q", str(maintainer), str(clone))
    assert not (clone / "data/sources/umd/tree").exists()
    _run(clone, "dvc", "pull")  # both servers are stopped: nothing is fetched again
    folders = (*FETCHED, *TRACKED_OUTPUTS)
    pulled = digests(clone, folders)
    assert pulled == digests(maintainer, folders)
    assert sum(1 for path in pulled if path.startswith("data/sources/umd/tree/")) > 10
    _run(clone, sys.executable, "-m", "groundbench.cli", "verify")
    assert "up to date" in _run(clone, "dvc", "status")

    # a source file that changes after the fetch is detected: the stages reading it are out of date
    label = sorted((clone / "data/sources/umd/tree").rglob("*_label.mat"))[0]
    label.write_bytes(label.read_bytes() + b"\0")
    status = _run(clone, "dvc", "status")
    assert "convert_umd" in status and "data/sources/umd" in status
