"""`groundbench sources real|sample` rewrites only the values under params.yaml's ``sources:``; a source
whose key params.yaml leaves to its model's default (a new source folder, docs/adding-a-source.md) gets its
line added in the right block, comments and every other line kept."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from groundbench.errors import GroundBenchError
from groundbench.fetch.catalog import SOURCES
from groundbench.fetch.select import rewrite_sources, sample_values

REPO = Path(__file__).resolve().parents[2]
PARAMS = (REPO / "params.yaml").read_text(encoding="utf-8")


def _changed(before: str, after: str) -> tuple[list[str], list[str]]:
    old, new = before.splitlines(), after.splitlines()
    return [line for line in old if line not in new], [line for line in new if line not in old]


def test_values_change_and_nothing_else() -> None:
    after = rewrite_sources(PARAMS, {"umd": "data/sources/umd/tree", "gapartnet.renders": None})
    removed, added = _changed(PARAMS, after)
    assert [line.split("#")[0].strip() for line in added] == ["umd: data/sources/umd/tree", "renders: null"]
    assert len(removed) == 2 and "# or any folder" in added[0]  # the comment stays
    parsed = yaml.safe_load(after)
    assert parsed["sources"]["gapartnet"] == {"assets": "sample", "renders": None}
    assert {k: v for k, v in parsed.items() if k != "sources"} == {
        k: v for k, v in yaml.safe_load(PARAMS).items() if k != "sources"
    }


def test_a_key_params_yaml_lacks_is_added_in_its_block() -> None:
    after = rewrite_sources(PARAMS, {"tiny": "sample", "gui.new_suite": "x", "deep.a.b": "z"})
    _, added = _changed(PARAMS, after)
    assert added == ["    new_suite: x", "  deep:", "    a:", "      b: z", "  tiny: sample"]  # added in key order
    sources = yaml.safe_load(after)["sources"]
    assert sources["tiny"] == "sample" and sources["gui"]["new_suite"] == "x" and sources["deep"] == {"a": {"b": "z"}}
    assert sources["gui"]["pointerbench"] == "sample" and list(sources)[:3] == ["umd", "gui", "gapartnet"]
    assert after.split("\nsample:", 1)[1] == PARAMS.split("\nsample:", 1)[1]


def test_a_parent_holding_a_value_is_refused() -> None:
    text = PARAMS.replace("  gapartnet:                  # null leaves GAPartNet out\n", "  gapartnet: null\n")
    text = text.replace("    assets: sample", "").replace("    renders: sample", "")
    with pytest.raises(GroundBenchError) as error:
        rewrite_sources(text, {"gapartnet.assets": "x"})
    assert error.value.field == "sources.gapartnet.assets" and "make it a mapping" in error.value.reason


def test_sample_values_cover_every_catalogued_source_from_its_spec() -> None:
    values = sample_values()
    for name, spec in SOURCES.items():
        keys = [f"{spec.params_key}.{k}" for k, _ in spec.tree_params] or [spec.params_key]
        assert all(values[key] == "sample" for key in keys), name
    assert {"gapartnet.assets", "gapartnet.renders", "umd", "gui.screenspot_pro"} <= set(values)
    assert "gapartnet" not in values
