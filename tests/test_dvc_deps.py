"""dvc.yaml cannot let a stage go stale: every module a stage's command can import, and the package data
those modules ship, is covered by the stage's deps; params are declared by exact key and never name a knob
that changes no output byte. Static (AST + DVC's own reading of dvc.yaml): no build needed."""

from __future__ import annotations

import functools
import shutil
from pathlib import Path, PurePosixPath

import pytest
import yaml
from dvc.repo import Repo

from groundbench.stages.dvcdeps import (
    Closure,
    check,
    command_entry,
    command_modules,
    compact,
    covered,
    load_layout,
    write,
)

REPO = Path(__file__).resolve().parents[1]
PACKAGE_FOLDERS = ("groundbench", "converters", "schemas", "scoring", "loaders", "cards")
# Knobs that change no output byte: never a stage parameter (changing them must re-run nothing).
NO_OUTPUT_KNOBS = {"workers", "window", "frames_per_task", "max_held_bytes"}
NO_OUTPUT_SECTIONS = {"engine"}  # every knob under these (where the per-item map runs: the same bytes)
# params.yaml leaves that no stage reads (each with why); every other leaf must be some stage's param.
NOT_STAGE_PARAMS = {
    "sample.gui.workers": "processes only",
    "umd.workers": "processes only",
    "umd.window": "frames in flight only",
    "umd.frames_per_task": "batching of work only",
    "gui.workers": "processes only",
    "gui.window": "screenshots in flight only",
    "gui.max_held_bytes": "memory bound of the in-order writer only",
    "gapartnet.workers": "processes only",
    "gapartnet.window": "objects in flight only",
    "engine.name": "where the map runs only (local pool or Dask: the same bytes)",
    "engine.address": "which Dask scheduler only",
}


@functools.cache
def _stages(root: Path, dvc_yaml: str) -> tuple:
    with Repo(str(root)) as repo:
        return tuple(repo.index.stages)


def dvc_stages(root: Path) -> tuple:
    """Every stage as DVC reads it (each foreach instance on its own, templates resolved)."""
    return _stages(root, (root / "dvc.yaml").read_text())


def undeclared_code(root: Path) -> dict[str, list[str]]:
    """Per stage instance: files of its command's import closure that none of its deps covers."""
    layout = load_layout(root)
    closure = Closure(root, layout)
    missing = {}
    needed_by_cmd: dict[str, set[PurePosixPath]] = {}
    for stage in dvc_stages(root):
        deps = [str(PurePosixPath(Path(dep.def_path).as_posix())) for dep in stage.deps]
        if stage.cmd not in needed_by_cmd:
            needed_by_cmd[stage.cmd] = closure.files(command_modules(closure, stage.cmd))
        gaps = sorted(str(f) for f in needed_by_cmd[stage.cmd] if not covered(f, deps))
        if gaps:
            missing[stage.name] = gaps
    return missing


def test_every_stage_instance_declares_the_code_its_command_imports() -> None:
    stages = dvc_stages(REPO)
    # foreach stages are expanded: one instance per config / GUI source.
    assert {"bake@curated_umd", "bake@contrast_gapartnet", "convert_gui@screenspot_pro", "sample_umd"} <= {
        s.name for s in stages
    }
    assert undeclared_code(REPO) == {}


def test_the_known_former_misses_are_covered() -> None:
    """The deps the hand-written dvc.yaml missed (issue 14) are declared now."""
    by_name = {s.name: [d.def_path for d in s.deps] for s in dvc_stages(REPO)}
    expected = {
        # scoring/conditions.py is schemas/request_conditions.py now
        "bake@curated_umd": [
            "groundbench/core/shards.py",
            "groundbench/core/manifests.py",
            "schemas/request_conditions.py",
        ],
        "convert_umd": ["groundbench/core/manifests.py", "groundbench/core/parallel.py", "groundbench/core/atomic.py"],
        "sample_umd": ["schemas/vocab.py"],
        "sample_gapartnet": ["converters/gapartnet/urdf.py", "converters/gapartnet/annotations.py"],
        "assemble": ["groundbench/core/registry.py", "groundbench/core/shards.py"],
    }
    for stage, files in expected.items():
        for file in files:
            assert covered(PurePosixPath(file), by_name[stage]), (stage, file)


def test_dvc_yaml_code_deps_are_the_generated_ones() -> None:
    assert check(REPO) == []


def test_the_command_maps_to_the_cli_function_that_runs_it() -> None:
    assert command_entry("bin/groundbench sample umd")[0] == "cmd_sample"
    assert command_entry("groundbench convert screenspot_v2 --quiet")[0] == "cmd_convert"
    assert command_entry("groundbench bake curated_umd")[0] == "cmd_bake"
    assert command_entry("groundbench report --quiet")[0] == "cmd_report"


def test_only_the_sub_commands_own_lazy_imports_count() -> None:
    """`report` lazily imports the gallery builder; `store` does not, so its closure has no gallery."""
    layout = load_layout(REPO)
    closure = Closure(REPO, layout)
    assert "groundbench.review.report.build" in command_modules(closure, "groundbench report --quiet")
    assert "groundbench.review.report.build" not in command_modules(closure, "groundbench store")
    # Package data (prompt templates, card templates) comes with the package that ships it.
    files = closure.files(command_modules(closure, "groundbench assemble"))
    assert PurePosixPath("cards/body.md") in files
    assert PurePosixPath("loaders/prompts/templates/part_named.txt") in files


def test_the_registry_factories_imported_by_name_are_followed() -> None:
    """The registry names each converter as a "module:function" string that the pipeline imports with
    importlib; a convert stage runs that code, so its closure must hold it."""
    closure = Closure(REPO, load_layout(REPO))
    modules = command_modules(closure, "groundbench convert umd --quiet")
    assert "groundbench.converters.umd.convert" in modules
    assert "groundbench.converters.umd.records" in modules  # and what the factory's module imports
    derived = command_modules(closure, "groundbench derive contrast --quiet")
    assert "groundbench.converters.gapartnet.contrast" in derived


def _copy_project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    for name in ("pyproject.toml", "dvc.yaml", "params.yaml"):
        shutil.copy(REPO / name, root / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in PACKAGE_FOLDERS:
        shutil.copytree(REPO / folder, root / folder, ignore=ignore)
    (root / ".dvc").mkdir()
    (root / ".dvc" / "config").write_text("[core]\n    no_scm = true\n    analytics = false\n")
    return root


def test_an_import_added_without_its_dep_fails_and_write_repairs_it(tmp_path: Path) -> None:
    root = _copy_project(tmp_path)
    assert undeclared_code(root) == {} and check(root) == []
    # The evaluation harness is in no stage's closure; a stage module starting to import it must be caught.
    store = root / "groundbench" / "stages" / "store.py"
    store.write_text(store.read_text() + "\n\ndef _late() -> None:\n    from groundbench.evaluate import run  # noqa\n")
    missing = undeclared_code(root)
    assert "groundbench/evaluate/run.py" in missing["store"]
    assert "groundbench/evaluate/run.py" in missing["bake@curated_umd"]  # pipeline.py imports store.py
    assert any(line.startswith("store: code deps differ") for line in check(root))
    assert "store" in write(root)
    assert undeclared_code(root) == {} and check(root) == []
    # Data deps and comments are kept by the rewrite.
    text = (root / "dvc.yaml").read_text()
    assert "- data/sources/umd              # the fetched tree" in text
    assert "- groundbench/evaluate" in text


def test_compact_lists_leaf_packages_as_folders_and_the_rest_as_files() -> None:
    layout = load_layout(REPO)
    needed = {
        PurePosixPath("groundbench/core/atomic.py"),
        PurePosixPath("groundbench/cli.py"),
        PurePosixPath("loaders/prompts/templates/gui.txt"),
        PurePosixPath("converters/umd/sample.py"),
    }
    assert compact(needed, layout) == ["converters/umd", "groundbench/cli.py", "groundbench/core", "loaders/prompts"]


def _leaves(tree: object, prefix: str = "") -> set[str]:
    if isinstance(tree, dict):
        return {leaf for key, value in tree.items() for leaf in _leaves(value, f"{prefix}{key}.")}
    return {prefix.rstrip(".")}


def _changes_no_byte(leaf: str) -> bool:
    return leaf.rsplit(".", 1)[-1] in NO_OUTPUT_KNOBS or leaf.split(".", 1)[0] in NO_OUTPUT_SECTIONS


def test_params_are_exact_keys_and_no_knob_that_changes_no_byte() -> None:
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    leaves = _leaves(params)
    declared: set[str] = set()
    for stage in dvc_stages(REPO):
        for dep in stage.deps:
            if not hasattr(dep, "params"):
                continue
            for key in dep.params:
                declared.add(key)
                # The key exists, and is a leaf or a whole value the stage reads as one (e.g. `sources`).
                assert key in leaves or any(leaf.startswith(key + ".") for leaf in leaves), (stage.name, key)
                inside = {leaf for leaf in leaves if leaf == key or leaf.startswith(key + ".")}
                knobs = {leaf for leaf in inside if _changes_no_byte(leaf)}
                assert not knobs, f"{stage.name} declares {key}, which holds {sorted(knobs)}"
    # Every leaf is read by some stage, or is listed above as changing no output.
    unread = {leaf for leaf in leaves if not any(leaf == k or leaf.startswith(k + ".") for k in declared)}
    assert unread == set(NOT_STAGE_PARAMS)
    assert all(_changes_no_byte(leaf) for leaf in NOT_STAGE_PARAMS)


@pytest.mark.parametrize(
    ("stage", "key"),
    [("convert_umd", "umd.min_region_pixels"), ("convert_gui@screenspot", "sources.gui.screenspot")],
)
def test_params_are_declared_by_exact_key(stage: str, key: str) -> None:
    by_name = {s.name: s for s in dvc_stages(REPO)}
    keys = {k for dep in by_name[stage].deps if hasattr(dep, "params") for k in dep.params}
    assert key in keys
