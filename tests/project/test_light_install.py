"""A light install (``pip install groundbench``, no extra) loads, asks and scores, without the build stack.

requirements.lock (the light runtime) is installed into a fresh venv, offline: from the wheels ``make env`` keeps
in ``.venv/wheelhouse`` (``pip download`` of the same lock), then GroundBench itself from a copy of its sources.
The venv then holds none of the build or eval extras' packages, and as a user runs them: ``score`` gives the
very report the development venv gives, ``requests``, ``compare`` and ``table`` run, and a command of a missing
extra (``convert``, ``plot``, ``eval``) ends in one line naming it. Slow: the install takes about a minute.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.scoring.test_scoring_hand import _write_folder

pytestmark = pytest.mark.slow

WHEELHOUSE = REPO / ".venv" / "wheelhouse"
SOURCES = ("groundbench", "converters", "schemas", "loaders", "cards", "scoring", "pyproject.toml", "setup.py")
# Distributions of the build and eval extras a light install must not hold (pip's normalised names).
NOT_LIGHT = {
    "dvc", "opencv-python-headless", "trimesh", "embreex", "dask", "distributed", "matplotlib", "scipy", "pandera",
    "polars", "mlcroissant", "ruamel.yaml", "inspect_ai", "openai",
}  # fmt: skip
LINES = [
    {"example_id": "a/r1", "condition": "part_named", "model": "m", "response": '{"part": "door", "action": "pull"}'},
    {"example_id": "a/r2", "condition": "part_named", "model": "m", "response": '{"point": [90, 120]}'},
    {"example_id": "ga/1", "condition": "gui", "model": "m", "response": '{"point": [500, 400]}'},
    {"example_id": "gb/1", "condition": "gui", "model": "m", "response": "no answer"},
]


def _run(command: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "HF_HUB_OFFLINE": "1", "PIP_NO_INDEX": "1", "COLUMNS": "200", **env}
    environment.pop("VIRTUAL_ENV", None)
    return subprocess.run(command, cwd=cwd, env=environment, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def light(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin folder of a fresh venv holding requirements.lock and GroundBench, installed offline."""
    if not any(WHEELHOUSE.glob("*.whl")):
        pytest.fail(f"{WHEELHOUSE} holds no wheels: run `make env` (it keeps the light set's wheels there)")
    root = tmp_path_factory.mktemp("light")
    source = root / "source"
    for name in SOURCES:
        path = REPO / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(path, source / name)
    (source / "README.md").write_text("GroundBench\n")  # pyproject's readme; its text is not under test
    venv = root / "venv"
    assert _run([sys.executable, "-m", "venv", str(venv)], root).returncode == 0
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-index", "--no-compile"]
    lock = str(REPO / "requirements.lock")
    done = _run([*pip, "--find-links", str(WHEELHOUSE), "-r", lock], root)
    assert done.returncode == 0, done.stderr
    # requirements.lock pins setuptools (>= 77, what pyproject's build needs): built in the venv, no download
    done = _run([*pip, "--no-deps", "--no-build-isolation", str(source)], root)
    assert done.returncode == 0, done.stderr
    return venv / "bin"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write_folder(tmp_path_factory.mktemp("hand"))


def test_the_light_venv_holds_no_build_or_eval_package(light: Path) -> None:
    listed = _run([str(light / "python"), "-m", "pip", "list", "--format", "json"], light)
    names = {entry["name"].lower().replace("_", "-") for entry in json.loads(listed.stdout)}
    assert {"groundbench", "datasets", "pyarrow", "rich"} <= names
    assert names & {n.lower().replace("_", "-") for n in NOT_LIGHT} == set()


def test_a_light_install_scores_as_the_full_one(light: Path, folder: Path, tmp_path: Path) -> None:
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("".join(json.dumps(line) + "\n" for line in LINES))
    reports = {}
    for name, groundbench in (("light", light / "groundbench"), ("full", REPO / ".venv" / "bin" / "groundbench")):
        out = tmp_path / f"{name}.json"
        done = _run([str(groundbench), "score", str(predictions), "--data", str(folder), "--json", str(out)], tmp_path)
        assert done.returncode == 0, done.stderr
        assert "gui_success" in done.stdout
        reports[name] = json.loads(out.read_text())
    assert reports["light"] == reports["full"]
    table = _run([str(light / "groundbench"), "table", str(tmp_path / "light.json"), "--format", "csv"], tmp_path)
    assert table.returncode == 0 and "hand_curated" in table.stdout, table.stderr
    compare = _run([str(light / "groundbench"), "compare", str(predictions), str(predictions), "--data", str(folder)],
                   tmp_path)  # fmt: skip
    assert compare.returncode == 0 and "paired difference" in compare.stdout, compare.stderr


def test_a_light_install_writes_requests_and_imports_the_scorer(light: Path, folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "requests.jsonl"
    done = _run([str(light / "groundbench"), "requests", "gui_text", "--condition", "gui", "--data", str(folder),
                 "--out", str(out), "--profile", "qwen2.5-vl"], tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert {json.loads(line)["answer_format"] for line in out.read_text().splitlines()} == {"qwen2.5-vl"}
    code = (
        "import sys, groundbench.scoring as s, groundbench.loaders, groundbench.results.table, "
        "groundbench.scoring.requests; from pathlib import Path; "
        f"r = s.score([{{'example_id': 'ga/1', 'condition': 'gui', 'model': 'm', 'response': '[1, 2]'}}], "
        f"folder=Path({str(folder)!r}), resamples=5); print(r.hint)"
    )
    done = _run([str(light / "python"), "-c", code], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("SYNTAX? m: 1 of 1 answers are malformed read as groundbench")


@pytest.mark.parametrize(
    ("command", "extra"),
    [
        (["convert", "umd"], "build"),
        (["bake", "--help"], "build"),
        (["plot", "scores.json"], "plots"),
        (["eval", "gui_text", "--condition", "gui", "--model", "mockllm/model"], "eval"),
    ],
)
def test_a_command_of_a_missing_extra_says_which_in_one_line(
    light: Path, tmp_path: Path, command: list[str], extra: str
) -> None:
    for name in ("params.yaml", "dvc.yaml"):  # a project root of its own: a stage takes its locks there
        shutil.copy2(REPO / name, tmp_path / name)
    done = _run([str(light / "groundbench"), *command], tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        f"error: `groundbench {command[0]}` needs the {extra} extra: pip install 'groundbench[{extra}]'\n"
    )


def test_the_light_help_lists_every_command(light: Path) -> None:
    done = _run([str(light / "groundbench"), "--help"], light)
    assert done.returncode == 0, done.stderr
    assert "`groundbench bake` needs the build extra" in done.stdout.replace("\n", " ").replace("  ", " ")
    assert all(f"  {name} " in done.stdout for name in ("score", "requests", "table", "convert", "assemble"))
