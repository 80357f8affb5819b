"""The converter contract and its one runner: every source goes through it, the map options reach
``ordered_map`` in one place, and the output folder is all or nothing."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

from groundbench.converters.gui.convert import GuiSource, screenspot_source
from groundbench.converters.gui.release import ItemResult
from groundbench.core.parallel import ordered_map
from groundbench.core.params import load_params
from groundbench.core.registry import CONFIGS, SOURCES
from groundbench.core.runner import ABSENT_MARKER, MANIFEST, SUMMARY, Context, Emit, MapOptions, Output, Source, run
from groundbench.core.shards import read_table
from groundbench.errors import GroundBenchError
from tests.conftest import REPO
from tests.converters.gui.test_gui_real import _interleaved_root

PARAMS = load_params(REPO)


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_map_options_are_ordered_map_keywords() -> None:
    """One place plumbs the map: every option the runner has is a keyword ordered_map takes."""
    accepted = set(inspect.signature(ordered_map).parameters)
    options = MapOptions(workers=1, window=4).as_kwargs()
    assert set(options) <= accepted and {"workers", "window"} <= set(options)


def test_every_registered_source_has_a_factory_and_writes_its_configs() -> None:
    written: dict[str, str] = {}
    for info in SOURCES.values():
        module, _, function = info.factory.partition(":")
        assert callable(getattr(importlib.import_module(module), function)), info.factory
        for config in CONFIGS:
            if config.interim_folder == info.interim_folder:
                assert config.name not in written, f"{config.name}: {written.get(config.name)} and {info.name}"
                written[config.name] = info.name
    assert set(written) == {c.name for c in CONFIGS}  # every config is built by exactly one source


def test_the_same_bytes_whatever_the_workers(tmp_path: Path) -> None:
    root = _interleaved_root(tmp_path)
    outputs = {}
    for workers, window in ((1, 32), (2, 2)):
        knobs = PARAMS.gui.model_copy(update={"workers": workers, "window": window})
        out = tmp_path / f"out-{workers}"
        assert run(
            screenspot_source(root, "screenspot_v2", "gui_screenspot_v2", knobs), out, PARAMS.shards, progress=False
        ) == {"gui_screenspot_v2": 6}
        outputs[workers] = _files(out)
    assert outputs[1] == outputs[2]
    assert set(outputs[1]) >= {"gui_screenspot_v2/manifest.jsonl", "gui_screenspot_v2/test-00000-of-00001.arrow"}


class _Failing(GuiSource):
    """A source whose finalize step fails after rows were written."""

    def finalize(self, output: Output) -> None:
        assert output.rows("gui_screenspot_v2") == 6
        raise GroundBenchError("finalize", "rows", "planted failure")


class _WithAbsent(GuiSource):
    def absent(self) -> Mapping[str, str]:
        return {"gui_other": "gui_other: nothing configured"}


def _source(kind: type[GuiSource], root: Path) -> GuiSource:
    plain = screenspot_source(root, "screenspot_v2", "gui_screenspot_v2", PARAMS.gui)
    made = kind.__new__(kind)
    made.__dict__.update(plain.__dict__)
    return made


def test_a_failed_run_leaves_the_previous_output(tmp_path: Path) -> None:
    root = _interleaved_root(tmp_path)
    out = tmp_path / "out"
    run(_source(GuiSource, root), out, PARAMS.shards, progress=False)
    before = _files(out)
    with pytest.raises(GroundBenchError, match="planted failure"):
        run(_source(_Failing, root), out, PARAMS.shards, progress=False)
    assert _files(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["interleaved", "out"]  # no temporary left behind


def test_absent_configs_get_a_marker_beside_the_written_ones(tmp_path: Path) -> None:
    root = _interleaved_root(tmp_path)
    out = tmp_path / "out"
    assert run(_source(_WithAbsent, root), out, PARAMS.shards, progress=False) == {"gui_screenspot_v2": 6}
    assert (out / "gui_other" / ABSENT_MARKER).read_text(encoding="utf-8") == "gui_other: nothing configured\n"
    assert (out / "gui_screenspot_v2" / MANIFEST).is_file()
    assert read_table(out / "gui_screenspot_v2").num_rows == 6


class _Counting(Source[int, int]):
    """The smallest source: items are numbers, nothing is written but the (empty) declared config."""

    label, configs = "numbers", ("nothing",)

    def __init__(self) -> None:
        self.convert = abs
        self.seen: list[int] = []

    def items(self) -> list[int]:
        return [-3, 1, -2]

    def map_options(self, items: object) -> MapOptions:
        return MapOptions(workers=1, window=1)

    def accept(self, result: int) -> Iterable[Emit]:
        self.seen.append(result)
        return ()

    def finalize(self, output: Output) -> None:
        output.write_summary({"seen": self.seen, "transition": "grasp→pull", "count": len(self.seen)})


def test_results_reach_the_source_in_item_order_and_declared_configs_exist(tmp_path: Path) -> None:
    source = _Counting()
    assert run(source, tmp_path / "out", PARAMS.shards, progress=False) == {"nothing": 0}
    assert source.seen == [3, 1, 2]
    assert (tmp_path / "out" / "nothing" / MANIFEST).read_text(encoding="utf-8") == ""


def test_the_output_writes_every_summary_one_way(tmp_path: Path) -> None:
    """One serialiser for every source's summary.json: keys sorted, one-space indent, UTF-8 as it is."""
    run(_Counting(), tmp_path / "out", PARAMS.shards, progress=False)
    written = (tmp_path / "out" / SUMMARY).read_bytes()
    assert written == ('{\n "count": 3,\n "seen": [\n  3,\n  1,\n  2\n ],\n "transition": "grasp→pull"\n}\n'.encode())


def test_a_source_factory_builds_from_params(tmp_path: Path) -> None:
    """The registry's GUI factory reads the folder and knobs from params.yaml."""
    root = _interleaved_root(tmp_path)
    sources = PARAMS.sources.model_copy(
        update={"gui": PARAMS.sources.gui.model_copy(update={"screenspot_v2": str(root)})}
    )
    params = PARAMS.model_copy(update={"sources": sources})
    module, _, function = SOURCES["screenspot_v2"].factory.partition(":")
    made = getattr(importlib.import_module(module), function)(Context(tmp_path, params, tmp_path, "screenspot_v2"))
    assert made.configs == ("gui_screenspot_v2",) and len(made.items()) == 3
    result = made.convert(made.items()[0])
    assert isinstance(result, ItemResult)


def test_umd_summary_counts_every_row_written(umd_sample: Path, tmp_path: Path) -> None:
    """finalize sees the rows of every config, written and still buffered (the summary states them)."""
    import json

    from groundbench.converters.umd.convert import UmdSource

    knobs = PARAMS.umd.model_copy(update={"workers": 1})
    out = tmp_path / "out"
    counts = run(UmdSource(umd_sample, REPO / PARAMS.umd.audit, knobs), out, PARAMS.shards, progress=False)
    written = {config: read_table(out / config).num_rows for config in ("bulk_umd", "curated_umd")}
    assert counts == written and 0 < written["curated_umd"] < PARAMS.shards.rows_per_batch
    assert json.loads((out / "summary.json").read_text(encoding="utf-8"))["rows"] == written
