"""`groundbench fetch` against loopback servers: HTTP with a dropped connection, hostile archives, a Hub stub.

Nothing leaves 127.0.0.1. The Hub fetches run in a child process: huggingface_hub reads HF_ENDPOINT
and HF_HUB_OFFLINE when it is imported, and this test session keeps HF_HUB_OFFLINE=1 for itself.
"""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from groundbench.core.params import load_params
from groundbench.errors import GroundBenchError
from groundbench.fetch.provenance import read_record, tree_digest
from groundbench.fetch.unpack import extract
from groundbench.stages.convert import run_convert
from tests.conftest import REPO, digests, run_cli
from tests.support.fetch_sources import (
    PB_COMMIT,
    POINTERBENCH,
    ROWS,
    SCREENSPOT_V2,
    UMD_PATH,
    V2_COMMIT,
    V2_RECORDS,
    pointerbench_files,
    screenspot_v2_files,
    umd_tarball,
)
from tests.support.hubstub import hub_env
from tests.support.loopback import FileServer, HubRepos


@pytest.fixture(scope="module")
def tarball(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    return umd_tarball(tmp_path_factory.mktemp("umd_release"))


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A project root with the repository's params.yaml (not a DVC project: fetch does not `dvc add`)."""
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(REPO / "params.yaml", project / "params.yaml")
    (project / "data" / "audits").mkdir(parents=True)
    shutil.copy(REPO / "data" / "audits" / "curated_umd.yaml", project / "data" / "audits")
    return project


def fetch_hub(root: Path, endpoint: str, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "groundbench.cli", "--root", str(root), "fetch", "--quiet", *args]
    env = hub_env(endpoint, root.parent / "hf_home")
    return subprocess.run(command, env=env, capture_output=True, text=True, check=False, timeout=300)


def vouched(archive: bytes) -> tuple[str, str]:
    """``--sha256`` of a stand-in release: a mirror is otherwise held to the catalogue's sha256 of the real one."""
    return "--sha256", hashlib.sha256(archive).hexdigest()


def test_http_fetch_resumes_after_a_dropped_connection_and_unpacks_the_release(
    root: Path, tarball: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FileServer({UMD_PATH: tarball}, drop_first=True) as server:
        assert run_cli(root, "fetch", "umd", "--url", server.url + UMD_PATH, *vouched(tarball), "--quiet") == 0
        gets = [r for r in server.requests if r[0] == "GET"]
    # the first GET was cut half-way; the second asked for the rest only, from where the bytes stopped
    assert len(gets) == 2 and gets[0][2] is None
    offset = int(gets[1][2].removeprefix("bytes=").rstrip("-"))
    assert 0 < offset < len(tarball)
    err = capsys.readouterr().err
    assert "licence: no licence stated" in err and err.index("licence:") < err.index("umd: fetched")
    record = read_record(root, "umd")
    assert record is not None
    assert record["archive"]["sha256"] == hashlib.sha256(tarball).hexdigest()
    assert record["archive"]["bytes"] == len(tarball)
    assert record["origin"] == server.url + UMD_PATH and "no licence stated" in record["licence"]
    tree = root / "data/sources/umd/tree"
    assert record["tree"] == tree_digest(tree)
    # byte for byte the files that went into the archive
    with tarfile.open(fileobj=io.BytesIO(tarball)) as tar:
        packed = {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}  # type: ignore[union-attr]
    unpacked = {p.relative_to(tree).as_posix(): p.read_bytes() for p in tree.rglob("*") if p.is_file()}
    assert unpacked == packed
    assert not (root / "data/sources/umd/.download").exists()

    # the build reads it once params.yaml points there; GUI and GAPartNet were not fetched
    assert run_cli(root, "sources", "real") == 0
    params = load_params(root)
    assert params.sources.umd == "data/sources/umd/tree"
    assert params.sources.gui.pointerbench is None
    assert params.sources.gapartnet is not None and params.sources.gapartnet.assets is None
    params = params.model_copy(update={"umd": params.umd.model_copy(update={"workers": 1})})
    counts = run_convert(root, params, "umd", progress=False)
    assert counts["bulk_umd"] > 0
    assert run_convert(root, params, "screenspot_pro", progress=False) == {}
    marker = (root / "data/interim/screenspot_pro/gui_screenspot_pro/ABSENT").read_text()
    assert "not fetched (run `groundbench fetch screenspot_pro`)" in marker


def test_a_partial_download_left_by_a_killed_run_is_resumed(root: Path, tarball: bytes) -> None:
    part = root / "data/sources/umd/.download/part-affordance-dataset-tools.tar.gz.part"
    part.parent.mkdir(parents=True)
    part.write_bytes(tarball[:1000])
    with FileServer({UMD_PATH: tarball}) as server:
        assert run_cli(root, "fetch", "umd", "--url", server.url + UMD_PATH, *vouched(tarball), "--quiet") == 0
    assert [r for r in server.requests if r[0] == "GET"] == [("GET", UMD_PATH, "bytes=1000-")]
    record = read_record(root, "umd")
    assert record is not None and record["archive"]["sha256"] == hashlib.sha256(tarball).hexdigest()


def test_a_changed_upstream_archive_is_refused_and_the_tree_kept(root: Path, tarball: bytes) -> None:
    with FileServer({UMD_PATH: tarball}) as server:
        assert run_cli(root, "fetch", "umd", "--url", server.url + UMD_PATH, *vouched(tarball), "--quiet") == 0
    before = digests(root, ("data/sources/umd",))
    changed = tarball[:-10] + bytes(10)
    with FileServer({UMD_PATH: changed}) as server:
        code = run_cli(root, "fetch", "umd", "--url", server.url + UMD_PATH, "--refresh", "--quiet")
    assert code == 2
    assert digests(root, ("data/sources/umd",)) == before  # the pinned tree and its record are untouched


def _tar(members: list[tuple[tarfile.TarInfo, bytes | None]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def _member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    return info


@pytest.mark.parametrize(
    ("members", "reason"),
    [
        ([(_member("part-affordance-dataset/README.txt"), b"ok"), (_member("../escaped.txt"), b"x")], "'..'"),
        ([(_member("/absolute.txt"), b"x")], "absolute path"),
        ([(_member("part-affordance-dataset/link", tarfile.SYMTYPE, "../../../etc/passwd"), None)], "outside"),
        ([(_member("part-affordance-dataset/hard", tarfile.LNKTYPE, "../outside"), None)], "outside"),
        ([(_member("part-affordance-dataset/dev", tarfile.CHRTYPE), None)], "special member"),
    ],
)
def test_an_archive_with_a_member_leaving_the_target_is_refused(
    root: Path, members: list, reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = _tar(members)
    with FileServer({UMD_PATH: archive}) as server:
        code = run_cli(root, "fetch", "umd", "--url", server.url + UMD_PATH, *vouched(archive), "--quiet")
    assert code == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and reason in lines[0], lines
    assert not (root / "data/sources/umd/tree").exists()  # nothing half-unpacked
    assert not (root / "data/sources/escaped.txt").exists() and not (root / "data/escaped.txt").exists()
    assert read_record(root, "umd") is None


def test_unpacking_bounds_size_and_refuses_zip_escapes(tmp_path: Path) -> None:
    big = tmp_path / "big.tar"
    with tarfile.open(big, "w") as tar:
        info = tarfile.TarInfo("a/zeros.bin")
        info.size = 4096
        tar.addfile(info, io.BytesIO(bytes(4096)))
    with pytest.raises(GroundBenchError, match="unpacked bytes"):
        extract(big, tmp_path / "out1", max_bytes=1000)
    escaping = tmp_path / "evil.zip"
    with zipfile.ZipFile(escaping, "w") as archive:
        archive.writestr("ok.txt", b"fine")
        archive.writestr("../../evil.txt", b"bad")
    with pytest.raises(GroundBenchError, match="leaves the target folder"):
        extract(escaping, tmp_path / "out2")
    assert not (tmp_path / "evil.txt").exists() and not (tmp_path.parent / "evil.txt").exists()
    assert not (tmp_path / "out2" / "ok.txt").exists()  # checked before anything is written


@pytest.fixture
def hub() -> HubRepos:
    stub = HubRepos()
    stub.add(POINTERBENCH, PB_COMMIT, pointerbench_files())
    stub.add(SCREENSPOT_V2, V2_COMMIT, screenspot_v2_files())
    return stub


def test_hub_fetch_pins_the_commit_and_the_gui_configs_convert(root: Path, hub: HubRepos) -> None:
    with hub:
        result = fetch_hub(root, hub.url, "pointerbench", "screenspot_v2")
    assert result.returncode == 0, result.stderr
    assert "licence: images and annotations CC BY 4.0" in result.stderr
    pb = read_record(root, "pointerbench")
    v2 = read_record(root, "screenspot_v2")
    assert pb is not None and v2 is not None
    assert pb["revision"] == PB_COMMIT and v2["revision"] == V2_COMMIT  # "main" resolved and recorded
    files = pointerbench_files()
    wanted = sorted(p for p in files if "/data/test/" in p)
    assert sorted(pb["files"]) == wanted  # README, eval.py and __pycache__ skipped
    assert {p: f["sha256"] for p, f in pb["files"].items()} == {p: hashlib.sha256(files[p]).hexdigest() for p in wanted}
    tree = root / "data/sources/screenspot_v2/tree"
    assert sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.is_file()) == [
        "screenspot_desktop_v2.json",
        "screenspot_mobile_v2.json",
        "screenspot_web_v2.json",
        "screenspotv2_image/mobile_a.png",
        "screenspotv2_image/pc_b.png",
        "screenspotv2_image/web_c.png",
    ]  # the zip unpacked in place (its sha256 is in the record), __MACOSX skipped
    zipped = screenspot_v2_files()["screenspotv2_image.zip"]
    assert v2["files"]["screenspotv2_image.zip"]["sha256"] == hashlib.sha256(zipped).hexdigest()

    assert run_cli(root, "sources", "real") == 0
    params = load_params(root)
    assert run_convert(root, params, "pointerbench", progress=False) == {
        "gui_sheets": ROWS,
        "gui_text": ROWS,
        "gui_pro": ROWS,
    }
    rows = sum(len(r) for r in V2_RECORDS.values())
    assert run_convert(root, params, "screenspot_v2", progress=False) == {"gui_screenspot_v2": rows}


@pytest.mark.parametrize(("relist", "reason"), [(True, "changed under the same revision"), (False, "oid")])
def test_a_changed_file_under_the_same_revision_is_refused(
    root: Path, hub: HubRepos, relist: bool, reason: str
) -> None:
    with hub:
        assert fetch_hub(root, hub.url, "pointerbench").returncode == 0
        before = digests(root, ("data/sources/pointerbench",))
        path = "pointerbench-text/data/test/metadata.jsonl"
        data = pointerbench_files()[path]
        edited = data.replace(b'"instruction": "', b'"instruction": "!', 1)[: len(data)]  # same size, new bytes
        hub.change(POINTERBENCH, path, edited, relist)
        result = fetch_hub(root, hub.url, "pointerbench", "--refresh")
    assert result.returncode == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and reason in errors[0] and "metadata.jsonl" in errors[0]
    assert digests(root, ("data/sources/pointerbench",)) == before
    assert json.loads((root / "data/sources/pointerbench/provenance.json").read_text())["revision"] == PB_COMMIT


def test_gapartnet_says_where_to_request_it(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(root, "fetch", "gapartnet") == 2
    err = capsys.readouterr().err
    assert "https://forms.gle/3qzv8z5vP2BT5ARN7" in err and "--from ARCHIVE_OR_FOLDER" in err


def _gapartnet_download(folder: Path, renders: bool) -> Path:
    objects = folder / "GAPartNet_PartNetMobility" / "partnet_mobility_part"
    for object_id in ("100", "101"):
        (objects / object_id).mkdir(parents=True)
        (objects / object_id / "link_annotation_gapartnet.json").write_text("[]")
    if renders:
        for kind in ("rgb", "segmentation", "metafile"):
            (folder / "renders" / kind).mkdir(parents=True)
    archive = folder.parent / f"{folder.name}.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for path in sorted(folder.rglob("*")):
            zipped.write(path, path.relative_to(folder).as_posix())
    return archive


def test_gapartnet_from_a_download_checks_its_layout(root: Path, tmp_path: Path) -> None:
    with_renders = _gapartnet_download(tmp_path / "with_renders", renders=True)
    assert run_cli(root, "fetch", "gapartnet", "--from", str(with_renders)) == 0
    record = read_record(root, "gapartnet")
    assert record is not None
    assert record["layout"] == {"assets": "GAPartNet_PartNetMobility/partnet_mobility_part", "renders": "renders"}
    assert record["archive"]["sha256"] == hashlib.sha256(with_renders.read_bytes()).hexdigest()
    assert run_cli(root, "sources", "real") == 0
    gapartnet = load_params(root).sources.model_dump()["gapartnet"]
    assert gapartnet == {
        "assets": "data/sources/gapartnet/tree/GAPartNet_PartNetMobility/partnet_mobility_part",
        "renders": "data/sources/gapartnet/tree/renders",
    }

    # the release itself ships no renders: fetched, but its configs stay out, saying why
    bare = _gapartnet_download(tmp_path / "bare", renders=False)
    assert run_cli(root, "fetch", "gapartnet", "--from", str(bare), "--update") == 0
    assert run_cli(root, "sources", "real") == 0
    assert load_params(root).sources.model_dump()["gapartnet"] == {"assets": None, "renders": None}
    assert run_convert(root, load_params(root), "gapartnet", progress=False) == {}
    marker = (root / "data/interim/gapartnet/curated_gapartnet/ABSENT").read_text()
    assert "no rendered views" in marker


def test_gapartnet_download_without_object_folders_is_refused(root: Path, tmp_path: Path) -> None:
    junk = tmp_path / "junk"
    (junk / "something").mkdir(parents=True)
    (junk / "something" / "readme.txt").write_text("not GAPartNet")
    assert run_cli(root, "fetch", "gapartnet", "--from", str(junk)) == 2
    assert read_record(root, "gapartnet") is None and not (root / "data/sources/gapartnet/tree").exists()
