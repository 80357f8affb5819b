"""The source folders' specs are the one description of each source: the registry, the fetch catalogue, the
card's source table, the schema's source list, params.yaml's model and dvc.yaml's per-source stages agree
with them (dvc.yaml checked the way ``groundbench dvc-deps --check`` checks code deps)."""

from __future__ import annotations

import inspect
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from groundbench.cards.sources import SOURCES as CARD_SOURCES
from groundbench.core.params import load_params, validate
from groundbench.core.registry import (
    BY_NAME,
    CONFIGS,
    DEFAULT_CONFIG,
    FOLDERS,
    SAMPLES,
    SOURCES,
    SPECS,
    load,
)
from groundbench.errors import GroundBenchError
from groundbench.fetch.catalog import AUTOMATIC
from groundbench.fetch.catalog import SOURCES as CATALOGUE
from groundbench.fetch.catalog import spec as fetch_spec
from groundbench.schemas.rules import SOURCES as ROW_SOURCES
from groundbench.tools import dvcstages

REPO = Path(__file__).resolve().parents[2]


def test_the_registry_is_the_specs() -> None:
    assert [s.name for s in SPECS] == list(SOURCES)
    assert [c.name for f in FOLDERS for s in f.sources for c in s.configs] == [c.name for c in CONFIGS]
    assert len(BY_NAME) == len(CONFIGS) == 16 and DEFAULT_CONFIG in BY_NAME
    assert {c.source for c in CONFIGS} <= set(SOURCES)
    assert [n for n, s in SOURCES.items() if s.derived] == ["counterfactual", "contrast"]
    assert SOURCES["counterfactual"].reads_from == "gapartnet"
    assert SOURCES["contrast"].interim_folder == "gapartnet_contrast"


def test_each_reference_names_real_code_with_the_uniform_signature() -> None:
    for info in SOURCES.values():
        assert callable(load(info.factory)), info.factory
        if info.derived:
            assert info.sample == ""  # made from other rows: no sample of its own
            continue
        writer = load(info.sample)
        assert list(inspect.signature(writer).parameters) == ["root", "params", "progress"], info.sample
    assert set(SAMPLES) == {"umd", "gui", "gapartnet"}
    assert SOURCES["screenspot_pro"].sample == SOURCES["pointerbench"].sample == SAMPLES["gui"].writer


def test_fetch_catalogue_card_and_schema_come_from_the_specs() -> None:
    fetched = [s.name for s in SPECS if s.fetch is not None]
    assert (
        list(CATALOGUE)
        == fetched
        == [
            "umd",
            "pointerbench",
            "screenspot",
            "screenspot_v2",
            "screenspot_pro",
            "osworld_g",
            "ui_vision",
            "gapartnet",
        ]
    )
    automatic = ("umd", "pointerbench", "screenspot", "screenspot_v2", "screenspot_pro", "osworld_g", "ui_vision")
    assert automatic == AUTOMATIC  # the Makefile's FETCH
    assert CATALOGUE["gapartnet"].makes == tuple(c.name for c in CONFIGS if c.source == "gapartnet")
    assert CATALOGUE["screenspot_v2"].params_key == "gui.screenspot_v2"
    with pytest.raises(GroundBenchError, match=r"unknown source 'nosuchsource' \(sources: gapartnet, "):
        fetch_spec("nosuchsource")
    for s in SPECS:
        if s.card is not None:
            assert CARD_SOURCES[s.name] == s.card
    assert {"partnet_mobility", "groundbench_gui", "groundbench_sample", "all"} <= set(CARD_SOURCES)
    assert set(ROW_SOURCES) == {s.name for s in SPECS if not s.derived} | {"groundbench_gui"}


def test_the_makefile_fetches_what_the_catalogue_calls_automatic() -> None:
    out = subprocess.run(
        ["make", "--no-print-directory", "-n", "fetch", f"BIN={Path(sys.executable).parent}"],
        cwd=REPO,
        # Run inside `make test`, the parent's MAKEFLAGS would add "Entering/Leaving directory" lines.
        env={k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.strip().splitlines()[-1].endswith("fetch " + " ".join(AUTOMATIC))


def test_the_cli_offers_the_registry_choices() -> None:
    from groundbench.commands.parser import build_parser

    parser = build_parser()
    for argv in (["sample", name] for name in SAMPLES):
        assert parser.parse_args(argv).source == argv[1]
    with pytest.raises(SystemExit):
        parser.parse_args(["sample", "nosuchsource"])
    for name, info in SOURCES.items():
        args = ["derive", name] if info.derived else ["convert", name]
        assert parser.parse_args(args)


def test_dvc_yaml_agrees_with_the_specs() -> None:
    assert dvcstages.check(REPO) == []


def _without_stage(text: str, name: str) -> str:
    start = text.index(f"\n  {name}:\n") + 1
    end = text.index("\n\n", start) + 2
    return text[:start] + text[end:]


def test_a_disagreement_is_found_and_write_repairs_it(tmp_path: Path) -> None:
    for name in ("dvc.yaml", "params.yaml"):
        shutil.copy(REPO / name, tmp_path / name)
    text = (tmp_path / "dvc.yaml").read_text()
    broken = text.replace(" ui_vision --folder gui", " --folder gui")
    broken = broken.replace("      - umd.min_region_pixels\n", "")
    broken = _without_stage(broken, "bake_contrast_gapartnet")
    # A stage no spec calls for (the per-config bakes of an earlier dvc.yaml): removed.
    broken = broken.replace(
        "\n  store:\n", "\n  bake_old:\n    cmd: bin/groundbench bake umd/curated_umd\n\n  store:\n"
    )
    assert broken != text
    (tmp_path / "dvc.yaml").write_text(broken)
    problems = dvcstages.check(tmp_path)
    assert [p.split(":")[0] for p in problems] == ["convert_umd", "convert_gui", "bake_contrast_gapartnet", "bake_old"]
    # The fetched sources' folders (convert stages depend on them) are made too: this copy has none.
    fetched = {f"data/sources/{name}" for name in CATALOGUE}
    written = {"convert_umd", "convert_gui", "bake_contrast_gapartnet", "bake_old", *fetched}
    assert set(dvcstages.write(tmp_path)) == written
    assert all((tmp_path / folder / ".gitignore").read_text() == "/tree\n/.download\n" for folder in fetched)
    assert dvcstages.check(tmp_path) == []
    # Every stage comes back as written; the re-added one without its code deps (dvc-deps --write adds them).
    repaired = (tmp_path / "dvc.yaml").read_text()
    code_deps = "      - groundbench/stages/bake.py\n      - data/code/bake_contrast_gapartnet.sha256\n"
    expected = text.replace(code_deps, "")
    assert repaired == expected


def test_a_section_with_defaults_may_be_left_out_of_params_yaml() -> None:
    import yaml

    raw = yaml.safe_load((REPO / "params.yaml").read_text())
    params = load_params(REPO)
    assert params.umd.window == raw["umd"]["window"]
    # umd: has required keys (no defaults): leaving it out is one error naming it.
    del raw["umd"]
    with pytest.raises(GroundBenchError) as error:
        validate(type(params), raw, "params.yaml")
    assert error.value.field == "umd"


def test_specs_are_cheap_to_import() -> None:
    """Every stage imports the specs: no array, table or dataset library comes with them."""
    code = (
        "import sys; import groundbench.core.registry, groundbench.core.params, groundbench.fetch.catalog; "
        "heavy = ('numpy', 'pyarrow', 'datasets', 'pandera', 'polars', 'PIL', 'cv2', 'scipy', 'trimesh'); "
        "print(sorted(m for m in heavy if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_one_converter_version_scheme() -> None:
    """Every folder's converter revision is a whole number (converters/<name>/version.py), bumped by one when
    its rows change; UMD's and GAPartNet's revision 1 keep the spelling their published rows carry."""
    import importlib
    import re

    from groundbench.schemas.folders import listed

    kept = {"umd": "1.0.0", "gapartnet": "1.0.0"}
    for name, package in listed().items():
        version = importlib.import_module(f"{package}.version")
        assert package == version.CONVERTER
        assert kept.get(name) == version.CONVERTER_VERSION or re.fullmatch(r"[1-9][0-9]*", version.CONVERTER_VERSION)


def test_each_folders_columns_carry_its_sources_row_values() -> None:
    """A folder's columns.py declares the `source` values its rows carry: every source it converts, and the
    generated GUI suites' own value."""
    from groundbench.schemas.folders import folder_columns, listed

    for (name, _), columns in zip(listed().items(), folder_columns(), strict=True):
        spec = load(f"groundbench.converters.{name}.spec:SPEC")
        assert {s.name for s in spec.sources if not s.derived} <= set(columns.sources), name
    assert ROW_SOURCES[-1] == "gapartnet" and "groundbench_gui" in ROW_SOURCES


def test_a_limited_registry_loads_and_validates_only_its_folders() -> None:
    """Within `limited`, the registry is those folders' (a stage of one source), and params.yaml is read for
    the shared sections and theirs only: another folder's section is passed over unread, its own is strict."""
    import yaml

    from groundbench.core import registry
    from groundbench.fetch import catalog

    raw = yaml.safe_load((REPO / "params.yaml").read_text())
    with registry.limited(["umd"]):
        assert [c.name for c in registry.CONFIGS] == ["curated_umd", "bulk_umd"]
        assert set(registry.SOURCES) == {"umd"} and set(catalog.SOURCES) == {"umd"}
        with pytest.raises(GroundBenchError, match="loads only the source folders"):
            registry.folder("gui")
        model = registry_params_model()
        assert not hasattr(validate(model, raw, "params.yaml"), "gui")
        assert validate(model, {**raw, "gui": {"no_such_knob": 1}}, "params.yaml").umd.window == raw["umd"]["window"]
        with pytest.raises(GroundBenchError) as error:
            validate(model, {**raw, "umd": {**raw["umd"], "no_such_knob": 1}}, "params.yaml")
        assert error.value.field == "umd.no_such_knob"
    assert len(registry.CONFIGS) == 16  # the limit ends with the block
    with pytest.raises(GroundBenchError) as error:
        validate(registry_params_model(), {**raw, "gui": {**raw["gui"], "no_such_knob": 1}}, "params.yaml")
    assert error.value.field == "gui.no_such_knob"


def registry_params_model() -> type:
    from groundbench.core import params

    return params.Params  # composed from the folders the registry loads now
