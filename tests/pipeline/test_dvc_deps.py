"""dvc.yaml cannot let a stage go stale: every module a stage's command can import, and the package data
those modules ship, is covered by the stage's deps; params are declared by exact key and never name a knob
that changes no output byte. Static (AST + DVC's own reading of dvc.yaml): no build needed."""

from __future__ import annotations

import ast
import functools
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path, PurePosixPath

import pytest
import yaml
from dvc.repo import Repo

from groundbench.errors import GroundBenchError
from groundbench.schemas.folders import listed
from groundbench.tools import dvcstages
from groundbench.tools.dvcdeps import (
    Closure,
    check,
    command_entry,
    command_folders,
    command_modules,
    compact,
    covered,
    imported_names,
    listed_modules,
    load_layout,
    matrix,
    stage_code,
    write,
)

REPO = Path(__file__).resolve().parents[2]
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
        "sample_umd": ["converters/umd/vocab.py"],
        "sample_gapartnet": ["converters/gapartnet/urdf.py", "converters/gapartnet/annotations.py"],
        "assemble": ["groundbench/core/registry.py", "groundbench/core/shards.py"],
    }
    for stage, files in expected.items():
        for file in files:
            assert covered(PurePosixPath(file), by_name[stage]), (stage, file)


def test_dvc_yaml_code_deps_are_the_generated_ones() -> None:
    assert check(REPO) == []


def test_the_command_maps_to_the_stage_module_that_runs_it() -> None:
    assert command_entry("bin/groundbench sample umd --folder umd")[0] == "groundbench.stages.sample"
    assert command_entry("groundbench convert screenspot_v2 --quiet")[0] == "groundbench.stages.convert"
    assert command_entry("groundbench bake curated_umd")[0] == "groundbench.stages.bake"
    assert command_entry("groundbench --root . report --quiet")[0] == "groundbench.stages.report"
    with pytest.raises(GroundBenchError, match="not a stage command"):
        command_entry("groundbench verify")


def test_only_the_sub_commands_own_lazy_imports_count() -> None:
    """`report` lazily imports the gallery builder; `store` does not, so its closure has no gallery."""
    layout = load_layout(REPO)
    closure = Closure(REPO, layout)
    assert "groundbench.review.report.build" in command_modules(closure, "groundbench report --quiet")
    assert "groundbench.review.report.build" not in command_modules(closure, "groundbench store")
    # No stage loads the whole command line (entry.py imports it by name, for other commands only).
    store = command_modules(closure, "groundbench store")
    assert {m for m in store if m.startswith("groundbench.commands")} == {
        "groundbench.commands",
        "groundbench.commands.protocol",
    }
    # Package data (prompt templates, card templates) comes with the package that ships it.
    files = closure.files(command_modules(closure, "groundbench assemble"))
    assert PurePosixPath("cards/body.md") in files
    assert PurePosixPath("loaders/prompts/templates/part_named.txt") in files


def test_each_stage_instance_follows_exactly_the_plugins_it_declares() -> None:
    """The registry names each converter and sample writer as a "module:function" string that a stage loads
    with importlib (core/plugins.py); a stage instance runs its own source's plug-in and no other's."""
    closure = Closure(REPO, load_layout(REPO))
    umd = command_modules(closure, "groundbench convert umd --folder umd --quiet")
    assert "groundbench.converters.umd.convert" in umd
    assert "groundbench.converters.umd.records" in umd  # and what the plug-in's module imports
    # Of the other folders, only the record schema's: their package and columns module (no spec, no params).
    others = {m for m in umd if m.startswith(("groundbench.converters.gui", "groundbench.converters.gapartnet"))}
    assert others == {f"groundbench.converters.{f}{m}" for f in ("gui", "gapartnet") for m in ("", ".columns")}
    # Without --folder a command may load every folder's spec (a user's `groundbench convert umd`).
    assert "groundbench.converters.gui.spec" in command_modules(closure, "groundbench convert umd --quiet")
    gui = command_modules(closure, "groundbench convert screenspot --folder gui --quiet")
    assert "groundbench.converters.gui.convert" in gui and "groundbench.converters.umd.convert" not in gui
    derived = command_modules(closure, "groundbench derive contrast --quiet")
    assert "groundbench.converters.gapartnet.contrast" in derived
    assert "groundbench.converters.gapartnet.counterfactual" not in derived
    sample = command_modules(closure, "groundbench sample umd")
    assert "groundbench.converters.umd.sample" in sample and "groundbench.converters.gapartnet.sample" not in sample


def spec_modules() -> set[str]:
    """What a stage serving every source loads of the folders by name: each one's package, spec, params and
    columns (the registry's and the record schema's), never a converter."""
    closure = Closure(REPO, load_layout(REPO))
    specs = closure.of({*listed_modules("spec"), *listed_modules("columns")})
    assert specs and all(m.rsplit(".", 1)[-1] not in ("convert", "sample", "records") for m in specs)
    return specs


@functools.cache
def _generated_deps() -> tuple[tuple[str, list[str]], ...]:
    """Each dvc.yaml stage (foreach merged) with its generated code deps, computed once per run: the checkout does
    not change while the tests run, and each stage's import closure takes seconds (every edit case reads it)."""
    layout = load_layout(REPO)
    return tuple((s.name, compact(set(s.needed), layout)) for s in stage_code(REPO))


def _invalidated(path: str) -> set[str]:
    """The dvc.yaml stages (foreach merged) whose generated code deps cover ``path``: what editing it re-runs."""
    return {name for name, deps in _generated_deps() if covered(PurePosixPath(path), deps)}


@pytest.mark.parametrize(
    "path",
    [
        "groundbench/cli.py",
        "groundbench/commands/parser.py",
        "groundbench/commands/score.py",
        "groundbench/commands/options.py",
        "scoring/api.py",
        "scoring/report.py",
        "groundbench/evaluate/run.py",
    ],
)
def test_the_user_side_invalidates_no_stage(path: str) -> None:
    """The whole command line and its help, a user command, the scoring API, its report and the evaluation
    runner are run by no stage."""
    assert _invalidated(path) == set()


def test_one_sources_converter_invalidates_only_that_sources_stages() -> None:
    # What follows convert_umd (bake@curated_umd, ...) re-runs through its data dep, not a code dep.
    assert _invalidated("converters/umd/convert.py") == {"convert_umd"}
    assert _invalidated("converters/umd/sample.py") == {"sample_umd"}
    assert _invalidated("converters/gui/convert.py") == {"convert_gui"}
    assert _invalidated("converters/gapartnet/convert.py") == {"convert_gapartnet"}


# The stages that serve every source: they load every folder's spec (a source's spec edit re-runs them).
EVERY_SOURCE = {"baselines", "store", "assemble", "report"}


def _stages_of(folder: str) -> set[str]:
    """The dvc.yaml stages (foreach merged) of one source folder: its samples' and its sources' stages."""
    from groundbench.core.registry import limited, view

    with limited([folder]):
        spec = view().folders[0]
    return {dvcstages.sample_stage_name(s) for s in spec.samples} | {
        dvcstages.convert_stage_name(s).split("@")[0] for s in spec.sources
    }


@pytest.mark.parametrize("folder", list(listed()))
def test_a_sources_edit_re_runs_only_its_own_stages(folder: str) -> None:
    """Its spec, params, vocabularies and converter code re-run its own stages (and those serving every source)
    and no stage of another source, no bake either; only its columns reach further: every config's shards share
    the record schema they are part of."""
    own = _stages_of(folder)
    per_source = {name for name, _ in _generated_deps()} - EVERY_SOURCE
    assert own and own < per_source
    layout = load_layout(REPO)
    shared = {PurePosixPath(f"converters/{folder}/{name}") for name in ("__init__.py", "columns.py")}
    files = sorted(p for p in layout.modules.values() if p.parts[:2] == ("converters", folder) and p not in shared)
    assert PurePosixPath(f"converters/{folder}/spec.py") in files and len(files) > 3
    for path in files:
        assert not _invalidated(str(path)) & (per_source - own), path
    assert _invalidated(f"converters/{folder}/spec.py") == own | EVERY_SOURCE
    assert _invalidated(f"converters/{folder}/params.py") == own | EVERY_SOURCE
    # Its columns are the record schema's: every stage writing or reading records, but no sample.
    writes_records = {s for s in per_source if not s.startswith(("sample_", "generate_"))}
    assert _invalidated(f"converters/{folder}/columns.py") == writes_records | EVERY_SOURCE


# Runs a stage command in a fresh process, then reports which modules the process had imported.
AUDIT = (
    "import json, sys\nfrom groundbench.entry import main\nstatus = main(sys.argv[1:])\n"
    "print(json.dumps({'status': status, 'modules': sorted(sys.modules)}))\n"
)


def _stage_commands() -> list[tuple[str, str]]:
    """(stage instance, command) of every stage of one source, and of one bake, as dvc.yaml runs them."""
    return sorted(
        (name, stage.cmd)
        for name, stage in dvcstages.actual(yaml.safe_load((REPO / "dvc.yaml").read_text())).items()
        if name not in EVERY_SOURCE and (not name.startswith("bake@") or name == "bake@curated_umd")
    )


@pytest.mark.parametrize(("stage", "command"), _stage_commands())
def test_a_stage_process_loads_the_folders_its_deps_name(stage: str, command: str, tmp_path: Path) -> None:
    """What a stage runs matches what dvc-deps makes it depend on: run as dvc.yaml runs it (every source null,
    so it only marks its outputs absent), the process imports no spec or params of a folder it does not serve."""
    raw = yaml.safe_load((REPO / "params.yaml").read_text())
    raw["sources"] = {"umd": None, "gui": dict.fromkeys(raw["sources"]["gui"]), "gapartnet": None}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(raw))
    (tmp_path / "data/interim/umd/curated_umd").mkdir(parents=True)
    (tmp_path / "data/interim/umd/curated_umd/ABSENT").write_text("left out\n")
    argv = ["--root", str(tmp_path), *command.split()[1:]]
    done = subprocess.run([sys.executable, "-c", AUDIT, *argv], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["status"] == 0, done.stderr
    loaded = {m.split(".")[2] for m in report["modules"] if m.endswith((".spec", ".params")) and ".converters." in m}
    serves = command_folders(command)
    assert serves is not None and loaded == set(serves), (stage, loaded)


def test_the_baseline_code_invalidates_only_the_stages_that_bake_baselines() -> None:
    """scoring/baselines.py runs where baselines are baked: the per-row baselines in each converter's writer
    (convert and derive: rows leave the writer baked), bake (which recomputes them to check) and the
    `baselines` config; never the samples, the store, the folder or the gallery."""
    baking = {"convert_umd", "convert_gui", "convert_gapartnet", "counterfactual_gapartnet", "contrast_gapartnet"}
    assert _invalidated("scoring/baselines.py") == baking | {"bake", "baselines"}


def test_the_matrix_counts_every_module_file() -> None:
    lines, summary = matrix(REPO)
    layout = load_layout(REPO)
    assert len(lines) == len(set(layout.modules.values()))
    assert "scoring/api.py -> (no stage)" in lines
    assert "converters/umd/convert.py -> convert_umd" in lines
    none, every, some = (int(n) for n in re.findall(r"(\d+) (?:invalidate no stage|all \d+ stages|some)", summary))
    assert none + every + some == len(lines) and none > 0 and some > every


def test_type_checking_imports_never_run_and_are_not_counted() -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import groundbench.a\nelse:\n    import groundbench.b\n"
    )
    assert imported_names(tree, "groundbench.x", False) == {"typing", "typing.TYPE_CHECKING", "groundbench.b"}


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
    assert "bake@curated_umd" not in missing  # each stage runs its own module only
    assert any(line.startswith("store: code deps differ") for line in check(root))
    assert "store" in write(root)
    assert undeclared_code(root) == {} and check(root) == []
    # Data deps and comments are kept by the rewrite.
    text = (root / "dvc.yaml").read_text()
    assert "- data/sources/umd              # the fetched tree" in text
    assert "- groundbench/evaluate" in text


def test_compact_lists_a_folder_only_when_every_file_in_it_is_needed() -> None:
    layout = load_layout(REPO)
    prompts = {p for p in layout.modules.values() if p.parent == PurePosixPath("loaders/prompts")}
    prompts |= set(layout.package_data["groundbench.loaders.prompts"])
    needed = {
        PurePosixPath("groundbench/core/atomic.py"),
        PurePosixPath("groundbench/cli.py"),
        PurePosixPath("converters/umd/sample.py"),
        *prompts,
    }
    assert compact(needed, layout) == [
        "converters/umd/sample.py",
        "groundbench/cli.py",
        "groundbench/core/atomic.py",
        "loaders/prompts",
    ]
    # One template short of the whole folder: the files one by one.
    partial = needed - {PurePosixPath("loaders/prompts/templates/gui.txt")}
    assert "loaders/prompts" not in compact(partial, layout)
    assert "loaders/prompts/templates/part_named.txt" in compact(partial, layout)


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
            if not hasattr(dep, "params") or Path(dep.def_path).name != "params.yaml":
                continue  # pyproject.toml's keys (the card's maintainers) are no params.yaml knobs
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


def test_a_dep_that_names_nothing_is_reported(tmp_path: Path) -> None:
    """A module folder that moved is no code dep any more (no package maps it), so --write keeps it: the check
    names it instead of letting `dvc repro` fail on the missing path."""
    shutil.copytree(REPO, tmp_path / "repo", ignore=shutil.ignore_patterns(".venv", "data", ".git", ".dvc"))
    dvc_yaml = tmp_path / "repo" / "dvc.yaml"
    text = dvc_yaml.read_text()
    dvc_yaml.write_text(text.replace("    deps:\n", "    deps:\n      - samples/umd.py\n", 1))
    problems = check(tmp_path / "repo")
    assert any("dep samples/umd.py does not exist" in p for p in problems), problems
