"""A source pointed at a real folder does not build its embedded sample: the sample stage writes only a
small marker (the same bytes every run), and `sample` again builds the sample in its place."""

from __future__ import annotations

from pathlib import Path

import yaml

from groundbench.cli import main
from groundbench.core.params import Params, validate
from groundbench.core.sample_marker import MARKER, unused_reason
from tests.conftest import REPO, digests

GUI_SOURCES = list(yaml.safe_load((REPO / "params.yaml").read_text())["sources"]["gui"])  # every GUI source


def _project(root: Path, sources: dict) -> Path:
    root.mkdir(parents=True)
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params["sources"] = sources
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    return root


def _real(tmp_path: Path) -> dict:
    folder = str(tmp_path / "real")  # never read by a sample stage: need not exist
    gui = dict.fromkeys(GUI_SOURCES, folder)
    return {"umd": folder, "gui": gui, "gapartnet": {"assets": folder, "renders": None}}


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_real_sources_write_only_the_marker(tmp_path: Path) -> None:
    root = _project(tmp_path / "project", _real(tmp_path))
    sample = root / "data" / "sources" / "sample"
    for command in (["sample", "umd"], ["generate-gui", "--quiet"], ["sample", "gapartnet"]):
        assert main(["--root", str(root), *command]) == 0
    assert sorted(p.name for p in sample.iterdir()) == ["gapartnet", "gui", "umd"]
    gui_parts = GUI_SOURCES
    for source in ("umd", "gui", "gapartnet"):
        # Each GUI source's convert stage depends on its own sample folder: a marker there too.
        parts = gui_parts if source == "gui" else []
        assert _files(sample / source) == sorted([MARKER, *parts, *(f"{part}/{MARKER}" for part in parts)])
        assert (sample / source / MARKER).stat().st_size < 300
        assert f"sources.{source}" in (sample / source / MARKER).read_text()
    first = digests(root, ("data/sources/sample",))
    assert main(["--root", str(root), "sample", "umd"]) == 0
    assert digests(root, ("data/sources/sample",)) == first  # deterministic


def test_back_to_sample_replaces_the_marker_with_the_sample(tmp_path: Path) -> None:
    root = _project(tmp_path / "project", _real(tmp_path))
    assert main(["--root", str(root), "sample", "umd"]) == 0
    params = yaml.safe_load((root / "params.yaml").read_text())
    params["sources"]["umd"] = "sample"
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    assert main(["--root", str(root), "sample", "umd"]) == 0
    files = _files(root / "data" / "sources" / "sample" / "umd")
    assert MARKER not in files
    assert sum(name.endswith("_rgb.jpg") for name in files) == 36


def test_force_builds_the_sample_anyway(tmp_path: Path) -> None:
    root = _project(tmp_path / "project", _real(tmp_path))
    assert main(["--root", str(root), "sample", "umd", "--force"]) == 0
    assert sum(p.name.endswith("_rgb.jpg") for p in (root / "data/sources/sample/umd").rglob("*")) == 36


def _params_with(sources: dict) -> Params:
    raw = yaml.safe_load((REPO / "params.yaml").read_text())
    raw["sources"] = sources
    return validate(Params, raw, "params.yaml")


def test_any_part_that_reads_the_sample_needs_it() -> None:
    gui = {"pointerbench": "/x", "screenspot": "sample", "screenspot_v2": "/x", "screenspot_pro": None}
    params = _params_with({"umd": "/x", "gui": gui, "gapartnet": {"assets": "/x", "renders": "/y"}})
    assert unused_reason(params, "gui") is None  # one GUI source still reads the generated suites
    assert unused_reason(params, "umd") is not None
    assert unused_reason(params, "gapartnet") is not None
    half = _params_with({"umd": None, "gui": gui, "gapartnet": {"assets": "/x", "renders": "sample"}})
    assert unused_reason(half, "gapartnet") is None
    assert unused_reason(half, "umd") is not None  # left out: nothing reads it
    assert unused_reason(_params_with({"umd": "sample", "gui": gui, "gapartnet": None}), "gapartnet") is not None
