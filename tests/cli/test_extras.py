"""A command whose extra is not installed ends in one line naming the extra (groundbench/core/extras.py), and
``groundbench --help`` still lists every command. The extra's modules are made unimportable in a child process
(``sys.modules[name] = None``: import raises ModuleNotFoundError, as in a light install); the light install
itself is tests/project/test_light_install.py."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from groundbench.core.extras import EXTRA_MODULES, extra_of, missing_extra, needs_extra
from groundbench.errors import GroundBenchError
from tests.conftest import REPO, run_cli
from tests.scoring.test_scoring_hand import _write_folder


def _without(extras: str, cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """``groundbench ARGV`` in a child process where no module of ``extras`` (comma-separated) can be imported."""
    modules = [module for extra in extras.split(",") for module in EXTRA_MODULES[extra]]
    code = (
        "import sys\n"
        f"for name in {modules!r}:\n"
        "    sys.modules[name] = None\n"
        "from groundbench.entry import main\n"
        f"sys.exit(main({list(argv)!r}))\n"
    )
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    for name in ("params.yaml", "dvc.yaml"):  # a project root of its own: a stage takes its locks there
        shutil.copy2(REPO / name, tmp_path / name)
    return tmp_path


@pytest.mark.parametrize(
    ("argv", "extra"),
    [(("convert", "umd"), "build"), (("bake", "--help"), "build"), (("plot", "s.json"), "plots")],
)
def test_a_command_without_its_extra_says_which_in_one_line(root: Path, argv: tuple[str, ...], extra: str) -> None:
    done = _without(extra, root, *argv)
    assert (done.returncode, done.stdout) == (2, "")
    said = f"`groundbench {argv[0]}` needs the {extra} extra: pip install 'groundbench[{extra}]'"
    assert done.stderr == f"error: {said}\n"


def test_the_help_lists_a_command_whose_extra_is_missing(root: Path) -> None:
    done = _without("build", root, "--help")
    assert done.returncode == 0, done.stderr
    listing = " ".join(done.stdout.split())
    assert "bake `groundbench bake` needs the build extra: pip install 'groundbench[build]'" in listing
    assert "score Score a predictions JSONL" in listing


def test_table_and_score_need_no_extra(root: Path) -> None:
    folder = _write_folder(root / "hand")
    predictions = root / "p.jsonl"
    line = {"example_id": "ga/1", "condition": "gui", "model": "m", "response": '{"point": [500, 400]}'}
    predictions.write_text(json.dumps(line) + "\n")
    scores = root / "s.json"
    done = _without("build,plots,eval", root, "score", str(predictions), "--data", str(folder), "--json", str(scores))
    assert done.returncode == 0, done.stderr
    done = _without("build,plots,eval", root, "table", str(scores), "--format", "csv")
    assert done.returncode == 0 and "gui_text" in done.stdout, done.stderr


def test_only_an_extra_module_is_named_and_the_cause_is_followed() -> None:
    assert extra_of("cv2") == "build" and extra_of("matplotlib.pyplot") == "plots" and extra_of("yaml") is None
    missing = ModuleNotFoundError("No module named 'scipy'", name="scipy")
    wrapped = GroundBenchError("registry", "source", "cannot import it")
    wrapped.__cause__ = missing
    assert missing_extra(missing) == missing_extra(wrapped) == "build"
    assert missing_extra(ModuleNotFoundError("No module named 'yaml'", name="yaml")) is None
    assert missing_extra(ValueError("x")) is None
    assert needs_extra("convert", "build") == (
        "`groundbench convert` needs the build extra: pip install 'groundbench[build]'"
    )


def test_a_missing_module_of_no_extra_is_still_an_internal_error(tmp_path: Path) -> None:
    code = (
        "import sys\nfrom groundbench.entry import guarded\n"
        "def run():\n    raise ModuleNotFoundError(\"No module named 'nowhere'\", name='nowhere')\n"
        "sys.exit(guarded(run, False, 'score'))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "internal error (ModuleNotFoundError: No module named 'nowhere')" in done.stderr
    assert run_cli(tmp_path, "profiles") == 0  # in-process, with every extra: nothing changes
