"""dvc.yaml cannot let a stage go stale: every module a stage's command can import, and the package data
those modules ship, is in the stage's code fingerprint (data/code/<stage>.sha256, written by the `code` stage
from the roots dvc.yaml lists), and nothing else is; params are declared by exact key and never name a knob
that changes no output byte. Static (AST + DVC's own reading of dvc.yaml) but for the edits made under real
DVC at the end (`dvc repro code`, then `dvc status`)."""

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

from groundbench.core.closure import Closure, imported_names, load_layout
from groundbench.errors import GroundBenchError
from groundbench.schemas.folders import listed
from groundbench.stages.code import fingerprint_dep, fingerprints
from groundbench.tools import dvcstages
from groundbench.tools.dvcdeps import (
    check,
    command_entry,
    command_folders,
    command_modules,
    matrix,
    prune_lock,
    stage_code,
    stale_lock_entries,
    write,
)
from tests.support.dvcrepo import dvc_env, git_project

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


def fingerprinted(root: Path) -> dict[str, set[PurePosixPath]]:
    """Per stage: the files its fingerprint lists, as the `code` stage writes it from dvc.yaml."""
    return {
        name: {PurePosixPath(line.split("  ", 1)[1]) for line in text.decode().splitlines()}
        for name, text in fingerprints(root).items()
    }


def unfingerprinted_code(root: Path) -> dict[str, list[str]]:
    """Per stage: files its command can import that its fingerprint does not list, or lists but it cannot."""
    layout = load_layout(root)
    closure = Closure(root, layout)
    written = fingerprinted(root)
    wrong = {}
    for stage in dvc_stages(root):
        if stage.name == "code":
            continue
        needed = closure.files(command_modules(closure, stage.cmd))
        gaps = sorted(str(f) for f in needed ^ written.get(stage.name, set()))
        if gaps:
            wrong[stage.name] = gaps
    return wrong


def test_every_stage_fingerprints_exactly_the_code_its_command_imports() -> None:
    stages = dvc_stages(REPO)
    names = {s.name for s in stages}
    assert {"code", "bake_umd", "bake_contrast_gapartnet", "convert_gui", "sample_umd"} <= names
    assert not [name for name in names if "@" in name]  # no foreach: each stage has its own fingerprint
    assert unfingerprinted_code(REPO) == {}
    by_name = {s.name: {Path(d.def_path).as_posix() for d in s.deps} for s in stages}
    for name in names - {"code"}:
        assert fingerprint_dep(name) in by_name[name], name
    # The code stage writes every fingerprint and re-runs on any file of a package folder.
    code = next(s for s in stages if s.name == "code")
    assert {Path(o.def_path).as_posix() for o in code.outs} == {fingerprint_dep(n) for n in names - {"code"}}
    assert {Path(d.def_path).as_posix() for d in code.deps} == {*PACKAGE_FOLDERS, "pyproject.toml"}


def test_a_stage_lists_its_roots_a_reader_expects() -> None:
    """A stage's code deps are its module, the plug-ins and card facts it loads, the specs of its folders."""
    by_name = {s.name: [Path(d.def_path).as_posix() for d in s.deps] for s in dvc_stages(REPO)}
    code = {name: [d for d in deps if d.startswith(PACKAGE_FOLDERS)] for name, deps in by_name.items()}
    assert code["convert_umd"] == [
        "converters/umd/convert.py",
        "converters/umd/spec.py",
        "groundbench/stages/convert.py",
    ]
    assert code["bake_umd"] == ["groundbench/stages/bake.py"]  # names its interim folders: loads no spec
    assert code["sample_gapartnet"] == [
        "converters/gapartnet/sample.py",
        "converters/gapartnet/spec.py",
        "groundbench/stages/sample.py",
    ]
    assert "converters/umd/facts.py" in code["assemble"] and "groundbench/stages/assemble.py" in code["assemble"]


def test_the_known_former_misses_are_covered() -> None:
    """The deps the hand-written dvc.yaml missed (issue 14) are fingerprinted now."""
    by_name = fingerprinted(REPO)
    expected = {
        # scoring/conditions.py is schemas/request_conditions.py now
        "bake_umd": [
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
            assert PurePosixPath(file) in by_name[stage], (stage, file)


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
    gui = command_modules(closure, "groundbench convert screenspot screenspot_pro --folder gui --quiet")
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
    packages = closure.listed().values()
    specs = closure.of({"groundbench.converters", *(f"{p}.{m}" for p in packages for m in ("spec", "columns"))})
    assert specs and all(m.rsplit(".", 1)[-1] not in ("convert", "sample", "records") for m in specs)
    return specs


@functools.cache
def _needed() -> dict[str, frozenset[PurePosixPath]]:
    """Each stage's fingerprinted files, computed once per run: the checkout does not change while the tests run,
    and each stage's import closure takes seconds (every edit case reads it)."""
    return {s.name: s.needed for s in stage_code(REPO)}


def _invalidated(path: str) -> set[str]:
    """The dvc.yaml stages whose fingerprint lists ``path``: what editing it re-runs."""
    return {name for name, needed in _needed().items() if PurePosixPath(path) in needed}


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
    # What follows convert_umd (bake_umd, ...) re-runs through its data dep, not a code dep.
    assert _invalidated("converters/umd/convert.py") == {"convert_umd"}
    assert _invalidated("converters/umd/sample.py") == {"sample_umd"}
    assert _invalidated("converters/gui/convert.py") == {"convert_gui"}
    assert _invalidated("converters/gapartnet/convert.py") == {"convert_gapartnet"}


# The stages that serve every source: they load every folder's spec (a source's spec edit re-runs them).
EVERY_SOURCE = {"store", "assemble", "report"}


def _stages_of(folder: str) -> set[str]:
    """The dvc.yaml stages of one source folder: its samples' and its sources' stages (its bakes load no spec)."""
    from groundbench.core.registry import limited, view

    with limited([folder]):
        spec = view().folders[0]
    return {dvcstages.sample_stage_name(s) for s in spec.samples} | {
        dvcstages.convert_stage_name(s) for s in spec.sources
    }


@pytest.mark.parametrize("folder", list(listed()))
def test_a_sources_edit_re_runs_only_its_own_stages(folder: str) -> None:
    """Its spec, params, vocabularies and converter code re-run its own stages (and those serving every source)
    and no stage of another source, no bake either; only its columns reach further: every config's shards share
    the record schema they are part of."""
    own = _stages_of(folder)
    per_source = set(_needed()) - EVERY_SOURCE
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
    """(stage, command) of every stage of one source, and of one bake, as dvc.yaml runs them."""
    return sorted(
        (name, stage.cmd)
        for name, stage in dvcstages.actual(yaml.safe_load((REPO / "dvc.yaml").read_text())).items()
        if name not in {*EVERY_SOURCE, "code"} and (not name.startswith("bake_") or name == "bake_umd")
    )


@pytest.mark.parametrize(("stage", "command"), _stage_commands())
def test_a_stage_process_loads_the_folders_its_deps_name(stage: str, command: str, tmp_path: Path) -> None:
    """What a stage runs matches what dvc-deps makes it depend on: run as dvc.yaml runs it (every source null,
    so it only marks its outputs absent), the process imports no spec or params of a folder it does not serve."""
    raw = yaml.safe_load((REPO / "params.yaml").read_text())
    raw["sources"] = {"umd": None, "gui": dict.fromkeys(raw["sources"]["gui"]), "gapartnet": None}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(raw))
    for config in ("curated_umd", "bulk_umd"):
        (tmp_path / f"data/interim/umd/{config}").mkdir(parents=True)
        (tmp_path / f"data/interim/umd/{config}/ABSENT").write_text("left out\n")
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
    (convert and derive: rows leave the writer baked), bake (which recomputes them to check) and assemble
    (which computes the `baselines` config); never the samples, the store or the gallery."""
    baking = {"convert_umd", "convert_gui", "convert_gapartnet", "counterfactual_gapartnet", "contrast_gapartnet"}
    bakes = {name for name in _needed() if name.startswith("bake_")}
    assert len(bakes) == 5
    assert _invalidated("scoring/baselines.py") == baking | bakes | {"assemble"}


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


def test_an_import_added_without_any_rewrite_is_followed(tmp_path: Path) -> None:
    """The fingerprint follows imports at run time: a stage module starting to import the evaluation harness
    (in no stage's closure) brings it into that stage's fingerprint, and no other's, while dvc.yaml stays
    current (its roots are unchanged); so a later edit of the harness re-runs that stage."""
    root = _copy_project(tmp_path)
    before = fingerprinted(root)  # the checkout's, whose fingerprints and roots are checked above
    assert not any(PurePosixPath("groundbench/evaluate/run.py") in files for files in before.values())
    built = root / "groundbench" / "stages" / "built.py"  # store's, assemble's and report's
    built.write_text(built.read_text() + "\n\ndef _late() -> None:\n    from groundbench.evaluate import run  # noqa\n")
    after = fingerprinted(root)
    grew = {name for name in after if after[name] != before[name]}
    assert grew == {"store", "assemble", "report"}
    assert all(PurePosixPath("groundbench/evaluate/run.py") in after[name] for name in grew)
    assert check(root) == []  # dvc.yaml needs no rewrite
    texts = fingerprints(root)
    (root / "groundbench" / "evaluate" / "run.py").write_text("# edited\n")
    assert {name for name, text in fingerprints(root).items() if text != texts[name]} == grew


def test_a_root_missing_from_dvc_yaml_fails_and_write_repairs_it(tmp_path: Path) -> None:
    """What a stage loads by name is recorded in dvc.yaml: a converter dropped from its stage's deps is found,
    and --write puts it back (data deps and comments kept)."""
    root = _copy_project(tmp_path)
    dvc_yaml = root / "dvc.yaml"
    text = dvc_yaml.read_text()
    dvc_yaml.write_text(text.replace("      - converters/umd/convert.py\n", "", 1))
    assert PurePosixPath("converters/umd/records.py") not in fingerprinted(root)["convert_umd"]
    assert any(line.startswith("convert_umd: code deps differ") for line in check(root))
    assert write(root) == ["convert_umd"]
    assert check(root) == [] and dvc_yaml.read_text() == text
    assert "- data/sources/umd              # the fetched tree" in text


def test_a_lock_entry_of_a_stage_that_is_gone_is_found_and_dropped(tmp_path: Path) -> None:
    """DVC never drops the dvc.lock entry of a renamed or removed stage (the per-config bakes of an earlier
    dvc.yaml stayed there): --check names it, --write removes it and leaves every other byte."""
    root = _copy_project(tmp_path)
    lock = (REPO / "dvc.lock").read_text()
    assert stale_lock_entries(REPO) == [] and lock.startswith("schema: '2.0'\nstages:\n  code:\n")
    old = "  bake@curated_umd:\n    cmd: bin/groundbench bake curated_umd --interim umd\n    deps:\n    - path: x\n"
    (root / "dvc.lock").write_text(lock.replace("\n  sample_umd:\n", "\n" + old + "  sample_umd:\n", 1))
    assert "dvc.lock: entries of stages dvc.yaml no longer has: bake@curated_umd (DVC keeps them)" in check(root)
    assert prune_lock(root) == ["bake@curated_umd"]
    assert (root / "dvc.lock").read_text() == lock and check(root) == []


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
    [("convert_umd", "umd.min_region_pixels"), ("convert_gui", "sources.gui.screenspot")],
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


def _code_changed(root: Path) -> set[str]:
    """`dvc repro code`, then the stages `dvc status` finds with a changed fingerprint (what `dvc repro` re-runs
    for code; their data deps are not built here)."""
    for command in (["dvc", "repro", "code"], ["dvc", "status", "--json"]):
        done = subprocess.run(command, cwd=root, env=dvc_env(), capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
    status = json.loads(done.stdout)
    return {
        name
        for name, changes in status.items()
        for change in changes
        if isinstance(change, dict) and fingerprint_dep(name) in change.get("changed deps", {})
    }


# One file of each kind (every file of every source folder is checked statically above): a source's spec, params
# and converter, a module every record stage runs, the user side (no stage); then an added import.
EDITS = [
    "converters/umd/spec.py",
    "converters/gui/params.py",
    "converters/gapartnet/contrast.py",
    "groundbench/core/shards.py",
    "scoring/api.py",
]


@pytest.mark.slow  # real DVC: `dvc repro code` and `dvc status` after each edit
def test_under_dvc_an_edit_re_runs_exactly_the_stages_that_run_the_file(tmp_path: Path) -> None:
    root = git_project(tmp_path / "repo")
    # The committed dvc.lock holds every stage's current fingerprint: nothing to re-run for code.
    assert _code_changed(root) == set()
    for path in EDITS:
        original = (root / path).read_bytes()
        (root / path).write_bytes(original + b"\n# an edit\n")
        assert _code_changed(root) == _invalidated(path), path
        (root / path).write_bytes(original)
    # An import added to a module run by the serving stages, with no rewrite of dvc.yaml: it re-runs them, and
    # the imported module's next edit does too.
    built = root / "groundbench/stages/built.py"
    built.write_text(built.read_text() + "\n\ndef _late() -> None:\n    from groundbench.evaluate import run  # noqa\n")
    assert _code_changed(root) == {"store", "assemble", "report"}
    assert _invalidated("groundbench/evaluate/run.py") == set()
