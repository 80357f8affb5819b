"""Adding a source is its folder plus one line (docs/adding-a-source.md), proven on a copy of the repository:
the fixture tests/fixtures/tiny_source/ goes into converters/tiny/, its package is listed in
converters/__init__.py, and nothing else is edited by hand. Its stages are generated into dvc.yaml, `dvc repro`
samples, converts and bakes its config, and it shows up in the registry, the card's source table and the fetch
catalogue; its own extras column is in the one record schema, its vocabulary stays in its folder, its card
fact reaches the card, and its stages depend on no other source's code (nor theirs on its), bar the shared
record columns.

The copy runs its own code: its ``.venv/bin/groundbench`` (what ``bin/groundbench`` runs) loads the copy's
folders under the package names pyproject.toml maps them to, with this environment's interpreter."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests/fixtures/tiny_source"
COPIED = ("groundbench", "converters", "schemas", "loaders", "cards", "scoring", "bin", "data/audits")
LOCKS = ("requirements.lock", "requirements-build.lock")
FILES = ("pyproject.toml", "setup.py", "params.yaml", "dvc.yaml", *LOCKS, ".dvcignore")
LINE = '    "groundbench.converters.tiny",\n'

# The copy's code under the package names of its pyproject.toml (this environment imports the checkout's).
BOOT = """\
import importlib.util, sys, tomllib
from pathlib import Path

root = Path(__file__).resolve().parents[1]
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in type(f).__module__]
folders = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
for name, folder in sorted(folders.items(), key=lambda item: item[0].count(".")):
    spec = importlib.util.spec_from_file_location(
        name, root / folder / "__init__.py", submodule_search_locations=[str(root / folder)]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
if sys.argv[1:2] == ["-c"]:
    exec(sys.argv[2])
else:
    from groundbench.cli import main

    sys.exit(main(sys.argv[1:]))
"""


def _copy(project: Path) -> None:
    for folder in COPIED:
        shutil.copytree(REPO / folder, project / folder, ignore=shutil.ignore_patterns("__pycache__"))
    for name in FILES:
        shutil.copy(REPO / name, project / name)
    venv = project / ".venv/bin"
    venv.mkdir(parents=True)
    (project / ".venv/boot.py").write_text(BOOT)
    (venv / "groundbench").write_text(f'#!/bin/sh\nexec "{sys.executable}" "{project}/.venv/boot.py" "$@"\n')
    (venv / "groundbench").chmod(0o755)


def _add_the_source(project: Path) -> None:
    """The whole procedure of docs/adding-a-source.md: the folder, and one line in the listing."""
    shutil.copytree(FIXTURE, project / "converters/tiny", ignore=shutil.ignore_patterns("__pycache__"))
    listing = project / "converters/__init__.py"
    text = listing.read_text()
    assert text.count("\n)\n") == 1
    listing.write_text(text.replace("\n)\n", "\n" + LINE + ")\n"))


def _run(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(project / "bin/groundbench"), *args], cwd=project, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def _python(project: Path, code: str) -> str:
    return _run(project, "-c", code).stdout


SHOWN = """
import json
from pathlib import Path
from groundbench.core import registry
from groundbench.tools import dvcstages
from groundbench.cards.sources import SOURCES as CARD
from groundbench.cards.render import bibtex_entries
from groundbench.fetch.catalog import SOURCES as FETCH
from groundbench.schemas.rules import SOURCES as ROWS
from groundbench.schemas.features import FEATURES, description
from groundbench.core.params import load_params
params = load_params(Path("."))
print(json.dumps({
    "extras": list(FEATURES["extras"]),
    "tiny_columns": list(FEATURES["extras"]["tiny"]),
    "described": [description("extras"), description("extras.tiny"), description("extras.tiny.colour")],
    "source": registry.SOURCES["tiny"].sample,
    "configs": [c.name for c in registry.CONFIGS],
    "card": CARD["tiny"].title,
    "cited": [bibtex_entries()[key].splitlines()[0] for key in CARD["tiny"].citations],
    "fetch": [FETCH["tiny"].origin, list(FETCH["tiny"].makes)],
    "rows": list(ROWS),
    "defaults": [params.sources.tiny, params.sample.tiny.images, params.tiny.max_image_pixels],
    "check": dvcstages.check(Path(".")),
}))
"""


@pytest.mark.slow
def test_a_source_folder_and_one_line_build_its_config(tmp_path: Path) -> None:
    project = tmp_path / "project"
    _copy(project)
    params_before = (project / "params.yaml").read_bytes()
    _add_the_source(project)

    shown = json.loads(_python(project, SHOWN))
    assert shown["source"] == "groundbench.converters.tiny.sample:write"
    assert shown["configs"][-1] == "tiny_points"
    assert shown["card"] == "Tiny test source"
    assert shown["cited"] == ["@misc{tiny2026,"]  # its BibTeX entry comes with its spec
    assert shown["fetch"] == ["https://example.invalid/tiny.tar.gz", ["tiny_points"]]
    assert "tiny" in shown["rows"]
    assert shown["defaults"] == ["sample", 3, 1_000_000]  # params.yaml has no tiny entry: the model's defaults
    # Its columns join the one record schema after every other folder's (converters/tiny/columns.py).
    assert shown["extras"] == ["umd", "gui", "gapartnet", "reask", "tiny"]
    assert shown["tiny_columns"] == ["colour", "side"]
    assert shown["described"] == [
        "Source-specific facts; exactly one of umd, gui, gapartnet, tiny is set, plus reask on re-asks.",
        "The tiny source's facts of the picture.",
        "The square's colour (the source's colour vocabulary).",
    ]
    # dvc.yaml lacks the new source's stages until they are generated; then it agrees with the specs.
    assert {p.split(":")[0] for p in shown["check"]} == {"sample_tiny", "convert_tiny", "bake_tiny", "assemble"}
    written = _python(
        project, "from pathlib import Path; from groundbench.tools import dvcstages; print(dvcstages.write(Path('.')))"
    )
    assert "convert_tiny" in written and "sample_tiny" in written
    _run(project, "dvc-deps", "--write")
    _run(project, "dvc-deps", "--check")
    assert json.loads(_python(project, SHOWN))["check"] == []
    assert (project / "params.yaml").read_bytes() == params_before
    # Each source's stages run its own folder's code; of another folder only its package (a docstring) and
    # columns, which define the shared record schema (the samples not even those): their fingerprints say so.
    deps = _code_files(project)
    columns = {
        f"converters/{f}/{m}" for f in ("umd", "gui", "gapartnet", "tiny") for m in ("__init__.py", "columns.py")
    }
    for stage, own in (
        ("sample_tiny", "tiny"),
        ("convert_tiny", "tiny"),
        ("sample_umd", "umd"),
        ("convert_umd", "umd"),
        ("generate_gui", "gui"),
        ("convert_gapartnet", "gapartnet"),
    ):
        others = {d for d in deps[stage] if not d.startswith(f"converters/{own}/")}
        assert others <= {"converters/__init__.py", *columns}, (stage, others)
        if stage.startswith(("sample", "generate")):  # a sample writes source files, not records
            assert others == {"converters/__init__.py"}, (stage, others)
    assert "converters/tiny/columns.py" in deps["bake_umd"] and "converters/tiny/spec.py" not in deps["bake_umd"]
    assert {d for d in deps["bake_tiny"] if d.startswith("converters/tiny/")} == {
        "converters/tiny/__init__.py",
        "converters/tiny/columns.py",
    }

    # The stages run under DVC: the sample, its conversion, the config's bake.
    dvc = str(Path(sys.executable).parent / "dvc")
    subprocess.run([dvc, "init", "--no-scm", "-q"], cwd=project, check=True)
    repro = subprocess.run([dvc, "repro", "bake_tiny"], cwd=project, capture_output=True, text=True)
    assert repro.returncode == 0, repro.stdout + repro.stderr
    ran = [line for line in repro.stdout.splitlines() if line.startswith("Running stage")]
    stages = ["code", "sample_tiny", "convert_tiny", "bake_tiny"]
    assert ran == [f"Running stage '{stage}':" for stage in stages]
    manifest = (project / "data/manifests/tiny_points.jsonl").read_text()
    assert manifest.count('"sha256"') >= 3
    rows = _python(
        project,
        "from pathlib import Path; from groundbench.stages.built import config_rows; "
        "print(config_rows(Path('.'), 'tiny_points'))",
    )
    assert rows.strip() == "3"

    # Its card fact reaches the card, in the table of the facts no other section prints.
    card = json.loads(_python(project, CARD))
    assert card["facts"] == {"colours": {"red": 1, "green": 1, "blue": 1}}
    assert "| `tiny_points` | colours | red | 1 |\n| `tiny_points` | colours | green | 1 |" in card["card"]
    assert "\n\n## Source facts\n\n" in card["card"] and "\n\n## Curation and audit process" in card["card"]


CARD = """
import json
from pathlib import Path
from groundbench.core.registry import BY_NAME
from groundbench.stages.facts import FactsMeta, dataset_facts
from groundbench.stages.hffolder import card_text, publish_config
info = BY_NAME["tiny_points"]
publish_config(Path("data/shards/tiny_points"), Path("published/data/tiny_points"), info, "0.0.1", True)
meta = FactsMeta("0.0.1", "tiny_points", {"tiny": "sample"}, "0" * 64)
facts = dataset_facts(Path("published/data"), Path("data/manifests"), [info], meta)
print(json.dumps({"facts": facts.configs[0].facts, "card": card_text(facts)}))
"""


def _code_files(project: Path) -> dict[str, set[str]]:
    """Each dvc.yaml stage's files under converters/, as its fingerprint lists them (`groundbench code`)."""
    _run(project, "code")
    return {
        path.stem: {
            f for f in (line.split("  ", 1)[1] for line in path.read_text().splitlines()) if f.startswith("converters")
        }
        for path in (project / "data/code").glob("*.sha256")
    }


def test_the_wheel_carries_the_new_source(tmp_path: Path) -> None:
    """No package list to extend: the wheel built from the copy (setup.py finds the packages) holds the folder."""
    project = tmp_path / "project"
    _copy(project)
    _add_the_source(project)
    pip = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(tmp_path / "w")]
    built = subprocess.run([*pip, str(project)], capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = (tmp_path / "w").glob("groundbench-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for module in ("__init__", "spec", "columns", "vocab", "facts", "version", "convert", "sample", "params"):
        assert f"groundbench/converters/tiny/{module}.py" in names, module
    assert "groundbench/converters/umd/convert.py" in names and "groundbench/loaders/prompts/__init__.py" in names
