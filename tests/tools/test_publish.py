"""``groundbench publish`` end to end against a loopback Hub (tests/support/hubstub.py); nothing leaves the machine."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from groundbench.cards.render import GALLERY_LINE, GALLERY_LINE_PUBLISHED
from tests.conftest import build_all, umd_project
from tests.support.hubstub import HubStub, cli_against, env_against

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, umd_sample: Path) -> Path:
    root = umd_project(tmp_path_factory.mktemp("publish") / "project", umd_sample, "requirements.lock")
    (root / ".gitignore").write_text("/data/*\n!/data/audits/\n")
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "project"]):
        subprocess.run([*GIT, *command], cwd=root, check=True)
    build_all(root)
    return root


def _publish(root: Path, endpoint: str, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return cli_against(endpoint, home, root, "publish", *args)


def _commit(root: Path) -> str:
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout.strip()


def test_dry_run_prints_the_exact_files_and_bytes_and_uploads_nothing(built: Path, tmp_path: Path) -> None:
    with HubStub() as hub:
        result = _publish(built, hub.endpoint, tmp_path, "--repo-id", "org/groundbench", "--dry-run")
    assert result.returncode == 0, result.stderr
    assert hub.requests == []
    folder = built / "data/groundbench"
    lines = [line.split() for line in result.stdout.splitlines() if line.strip()]
    listed = {path: int(size) for size, path in (line for line in lines if len(line) == 2)}
    # SHA256SUMS is the build's own record of the built bytes (the uploaded card differs): not uploaded.
    expected = {str(p.relative_to(folder)): p.stat().st_size for p in folder.rglob("*") if p.is_file()}
    del expected["SHA256SUMS"]
    card = (folder / "README.md").read_text()
    expected["README.md"] += len(f"Git commit: `{_commit(built)}`") - len(
        "Git commit: recorded when this version is published (in the Hub commit and tag messages)."
    )
    expected["README.md"] += len(GALLERY_LINE_PUBLISHED.encode()) - len(GALLERY_LINE.encode())
    assert listed == expected
    assert f"{sum(expected.values())} total, {len(expected)} files -> org/groundbench tag v0.1.0" in result.stdout
    assert "Git commit: recorded when" in card  # the built card itself never holds the commit


def test_publish_uploads_the_folder_and_tags_the_version(built: Path, tmp_path: Path) -> None:
    with HubStub() as hub:
        result = _publish(built, hub.endpoint, tmp_path, "--repo-id", "org/groundbench", "--revision", "v0.1.0-rc")
    assert result.returncode == 0, result.stdout + result.stderr
    assert hub.unknown == []
    assert hub.repos == {"org/groundbench"}
    folder = built / "data/groundbench"
    commit = _commit(built)
    expected = {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    del expected["SHA256SUMS"]  # the build's own record of the built bytes: not uploaded
    expected["README.md"] = (
        expected["README.md"]
        .replace(
            b"Git commit: recorded when this version is published (in the Hub commit and tag messages).",
            f"Git commit: `{commit}`".encode(),
        )
        .replace(GALLERY_LINE.encode(), GALLERY_LINE_PUBLISHED.encode())
    )
    assert b"../report/index.html" not in hub.files["README.md"]  # the local-only gallery link is not uploaded
    assert hub.files == expected
    assert hub.commits[-1]["header"]["summary"] == "GroundBench 0.1.0"
    assert commit in hub.commits[-1]["header"]["description"]
    assert set(hub.tags) == {"v0.1.0-rc"} and commit in hub.tags["v0.1.0-rc"]
    # the tag names the commit this run uploaded (not whatever main holds by then)
    assert hub.tagged["v0.1.0-rc"] == hub.commits[-1]["sha"] == hub.head
    assert f"POST /api/datasets/org/groundbench/tag/{hub.head}" in hub.requests
    assert result.stderr.splitlines()[-1].startswith("published: org/groundbench v0.1.0-rc: ")


def test_publish_refuses_when_verify_fails(built: Path, tmp_path: Path) -> None:
    image = sorted((built / "data/images").rglob("*.jpg"))[0]
    original = image.read_bytes()
    try:
        image.write_bytes(original[:-1] + bytes([original[-1] ^ 0xFF]))
        with HubStub() as hub:
            result = _publish(built, hub.endpoint, tmp_path, "--repo-id", "org/groundbench")
    finally:
        image.write_bytes(original)
    assert result.returncode == 1
    assert "REFUSED verify:" in result.stdout and hub.requests == []


def test_publish_refuses_a_hand_edited_card(built: Path, tmp_path: Path) -> None:
    readme = built / "data/groundbench/README.md"
    original = readme.read_text()
    try:
        readme.write_text(original.replace("| target action | grasp | 5 |", "| target action | grasp | 6 |"))
        with HubStub() as hub:
            result = _publish(built, hub.endpoint, tmp_path, "--repo-id", "org/groundbench")
    finally:
        readme.write_text(original)
    assert result.returncode == 1
    assert "REFUSED card:" in result.stdout and hub.requests == []


def _staging(data: Path) -> list[Path]:
    return sorted(p for p in data.iterdir() if p.name.startswith(".publish"))


def test_a_killed_publish_leaves_no_staging_folder_that_the_rerun_does_not_clean(built: Path, tmp_path: Path) -> None:
    """SIGKILL while the upload is under way (the Hub holds its requests): the staging folder stays behind;
    the next publish removes it and completes."""
    data = built / "data"
    command = [sys.executable, "-m", "groundbench.cli", "--root", str(built), "publish", "--repo-id", "org/killed"]
    with HubStub() as hub:
        release = hub.hold["preupload"] = threading.Event()
        process = subprocess.Popen(
            command, env=env_against(hub.endpoint, tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + 120
        while not hub.held["preupload"] and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert process.poll() is None, "publish ended before its upload"
        left = _staging(data)
        process.kill()
        process.communicate()
        release.set()
    assert len(left) == 1 and left[0].is_dir() and (left[0] / "README.md").is_file()  # what a kill leaves
    with HubStub() as hub:
        result = _publish(built, hub.endpoint, tmp_path, "--repo-id", "org/killed")
    assert result.returncode == 0, result.stdout + result.stderr
    assert _staging(data) == []
    assert hub.files and "README.md" in hub.files
