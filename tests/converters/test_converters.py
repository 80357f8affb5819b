"""One harness for every converter: each source's embedded sample (and the real-format fixtures the
repository ships) goes through the public commands, `groundbench convert SOURCE` / `derive CONSTRUCTION`
then `bake`, and every config it feeds must keep the same contract: rows that pass bake's validation,
example ids sorted and unique, a manifest entry for exactly the images the rows name, embedded bytes
that hash to those names. A source set to null gives each of its configs an empty, absent config.

Format details live in the per-source tests (test_umd_*, test_gapartnet_*, test_gui_*, test_reask).
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from groundbench.core.manifests import read_manifest
from groundbench.core.shards import read_table, shard_files
from tests.conftest import REPO, run_cli
from tests.converters.gui.test_gui_real import trimmed_pointerbench
from tests.support.builds import once, run_stages

AUDITS = ("curated_umd.yaml", "curated_gapartnet.yaml", "contrast_pool.yaml")
ROWS_PER_SUBSET = 12  # of the real PointerBench fixture: every record kind, quick to convert
SMALL_GUI = {"examples_per_suite": 5, "frames": ["1024x768", "1920x1080"], "screenspot_rows": 3, "workers": 1}


@dataclass(frozen=True)
class Case:
    sources: Callable[[dict[str, Path]], dict[str, Any]]  # the `sources:` entries, given the prepared inputs
    before: tuple[tuple[str, ...], ...]  # commands whose outputs the case reads (shared across the run)
    command: tuple[str, ...]  # the converter under test
    configs: tuple[str, ...]  # the configs it feeds


def _gui(source: str, folder: str) -> Callable[[dict[str, Path]], dict[str, Any]]:
    return lambda inputs: {"gui": {source: str(inputs[folder] / source)}}


def _gapartnet(inputs: dict[str, Path]) -> dict[str, Any]:
    rendered = inputs["gapartnet"]
    return {"gapartnet": {"assets": str(rendered / "assets"), "renders": str(rendered / "renders")}}


CASES: dict[str, Case] = {
    "umd/sample": Case(lambda i: {"umd": str(i["umd"])}, (), ("convert", "umd"), ("curated_umd", "bulk_umd")),
    "gapartnet/sample": Case(_gapartnet, (), ("convert", "gapartnet"), ("curated_gapartnet", "bulk_gapartnet")),
    "counterfactual/sample": Case(
        _gapartnet, (("convert", "gapartnet", "--quiet"),), ("derive", "counterfactual"), ("counterfactual_gapartnet",)
    ),
    "contrast/sample": Case(
        _gapartnet, (("convert", "gapartnet", "--quiet"),), ("derive", "contrast"), ("contrast_gapartnet",)
    ),
    "pointerbench/sample": Case(
        _gui("pointerbench", "gui"), (), ("convert", "pointerbench"), ("gui_sheets", "gui_text")
    ),
    "screenspot/sample": Case(_gui("screenspot", "gui"), (), ("convert", "screenspot"), ("gui_screenspot",)),
    "screenspot_v2/sample": Case(
        _gui("screenspot_v2", "gui"), (), ("convert", "screenspot_v2"), ("gui_screenspot_v2",)
    ),
    "screenspot_pro/sample": Case(
        _gui("screenspot_pro", "gui"), (), ("convert", "screenspot_pro"), ("gui_screenspot_pro",)
    ),
    "pointerbench/real-fixture": Case(
        _gui("pointerbench", "gui_real"), (), ("convert", "pointerbench"), ("gui_sheets", "gui_text", "gui_pro")
    ),
}


def _small_gui_sample(folder: Path) -> None:
    """The generated GUI suites, small: every GUI source's sample format."""
    root = folder / "project"
    root.mkdir()
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params["sample"]["gui"].update(SMALL_GUI)
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    assert run_cli(root, "generate-gui", "--quiet") == 0
    shutil.move(root / params["sample"]["root"] / "gui", folder / "gui")


def _pointerbench_fixture(folder: Path) -> None:
    """The real PointerBench metadata (tests/fixtures/gui), a few rows per subset, blank screenshots."""
    trimmed_pointerbench(folder / "pointerbench", ROWS_PER_SUBSET)


@pytest.fixture(scope="module")
def inputs(umd_sample: Path, gapartnet_rendered: Path) -> dict[str, Path]:
    return {
        "umd": umd_sample,
        "gapartnet": gapartnet_rendered,
        "gui": once("gui_sample_small", _small_gui_sample) / "gui",
        "gui_real": once("pointerbench_fixture_rows", _pointerbench_fixture),
    }


def _project(root: Path, sources: dict[str, Any]) -> Path:
    """A project root reading only ``sources`` (every other source null), one worker."""
    (root / "data" / "audits").mkdir(parents=True)
    for audit in AUDITS:
        shutil.copy(REPO / "data/audits" / audit, root / "data/audits" / audit)
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params["sources"] = {"umd": None, "gui": dict.fromkeys(params["sources"]["gui"]), "gapartnet": None}
    params["sources"]["gui"].update(sources.pop("gui", {}))
    params["sources"].update(sources)
    params["umd"]["workers"] = 1
    params["gapartnet"]["workers"] = 1
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    return root


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_converter_keeps_the_contract(case: str, inputs: dict[str, Path], tmp_path: Path) -> None:
    spec = CASES[case]
    root = _project(tmp_path / "project", spec.sources(inputs))
    if spec.before:
        run_stages(root, spec.before, lambda where, command: run_cli(where, *command))
    assert run_cli(root, *spec.command, "--quiet") == 0
    assert run_cli(root, "bake", *spec.configs) == 0  # bake validates every row (schema, rules, baselines)
    for config in spec.configs:
        table = read_table(root / "data/shards" / config)
        assert table.num_rows > 0, config
        ids = table.column("example_id").to_pylist()
        assert ids == sorted(ids) and len(set(ids)) == len(ids), config
        manifest = read_manifest(root / "data/manifests" / f"{config}.jsonl")
        names = table.column("image_sha256").to_pylist()
        assert set(names) == set(manifest), config
        for name, image in zip(names, table.column("image").to_pylist(), strict=True):
            assert hashlib.sha256(image["bytes"]).hexdigest() == name, config


@pytest.mark.parametrize("case", sorted(c for c in CASES if c.endswith("/sample")))
def test_a_null_source_gives_every_config_no_rows(case: str, tmp_path: Path) -> None:
    spec = CASES[case]
    root = _project(tmp_path / "project", {})
    for command in (*spec.before, spec.command):
        assert run_cli(root, *command[:2], "--quiet") == 0
    assert run_cli(root, "bake", *spec.configs) == 0
    for config in spec.configs:
        assert not shard_files(root / "data/shards" / config), config
