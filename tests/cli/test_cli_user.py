"""The CLI as a new user meets it, each command run for real in a subprocess, outside the checkout.

Where ``--data`` is looked for (one rule for every command and for ``load_config``), a model name inspect
does not know, progress bars in a log, and result tables as wide as ``COLUMNS`` says (misspelt names and the
project rule: tests/cli/test_cli_project.py). The published folder is a UMD sample build made once per run
(tests/support/builds.py).
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import shutil
import struct
import subprocess
import sys
import termios
import threading
from pathlib import Path

import pytest

from tests.conftest import build_all, umd_project

REPO = Path(__file__).resolve().parents[2]
CHECKOUT_DATA = REPO / "data" / "groundbench"
HELP = "(default: $GROUNDBENCH_DATA, else data/groundbench of the project you are in, else of the checkout)"
# Variables that would decide for the command what these tests check.
UNSET = (
    "GROUNDBENCH_DATA",
    "COLUMNS",
    "TQDM_DISABLE",
    "HF_DATASETS_DISABLE_PROGRESS_BARS",
    "HF_HUB_DISABLE_PROGRESS_BARS",
)
Run = tuple[Path, subprocess.CompletedProcess[str]]  # an eval run folder and how the command ended
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
DATA_COMMANDS = (  # every command that takes --data, with the arguments it needs to reach the folder
    ("requests", "curated_umd", "--condition", "part_named"),
    ("score", "--sanity", "curated_umd"),
    ("preview", "curated_umd", "--quiet"),
    ("sheet", "curated_umd", "--quiet"),
    ("eval", "curated_umd", "--condition", "part_named", "--model", "mockllm/model"),
)


def environment(tmp: Path, **extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in UNSET}
    env["XDG_DATA_HOME"] = str(tmp / "xdg")  # inspect's traces and buffers: in the test's folder
    env.update(extra)
    return env


def groundbench(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``groundbench ARGS`` run in ``cwd`` with stdout and stderr piped (a log, not a terminal)."""
    command = [sys.executable, "-m", "groundbench.cli", *args]
    return subprocess.run(command, cwd=cwd, env=environment(cwd, **env), capture_output=True, text=True, check=False)


def one_error(result: subprocess.CompletedProcess[str]) -> str:
    """The failure's only stderr line (no stack)."""
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


def on_a_terminal(cwd: Path, command: list[str], columns: int, stream: str, **env: str) -> tuple[str, str]:
    """Run ``command`` with ``stream`` (stdout or stderr) on a pseudo-terminal ``columns`` wide, the other
    piped; returns (what the terminal showed, what the pipe got)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    other = "stderr" if stream == "stdout" else "stdout"
    streams = {stream: slave, other: subprocess.PIPE}
    child = subprocess.Popen(command, cwd=cwd, env=environment(cwd, **env), **streams)  # type: ignore[call-overload]
    os.close(slave)
    shown: list[bytes] = []

    def read() -> None:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                return
            if not chunk:
                return
            shown.append(chunk)

    reader = threading.Thread(target=read)
    reader.start()
    piped = getattr(child, other).read()
    assert child.wait(timeout=300) == 0, piped
    reader.join()
    os.close(master)
    return b"".join(shown).decode(errors="replace"), piped.decode(errors="replace")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory, umd_sample: Path) -> Path:
    """A published folder (curated_umd, bulk_umd) on its own, away from any project root."""
    root = umd_project(tmp_path_factory.mktemp("user_build") / "project", umd_sample)
    build_all(root)
    return root / "data" / "groundbench"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, folder: Path) -> Run:
    """``groundbench eval`` with the offline mock model, its output piped as in a log."""
    where = tmp_path_factory.mktemp("user_eval")
    command = ("eval", "curated_umd", "bulk_umd", "--condition", "part_named", "--model", "mockllm/model")
    result = groundbench(where, *command, "--data", str(folder), "--out", str(where / "run"))
    assert result.returncode == 0, result.stderr
    return where / "run", result


# ---------------------------------------------------------------- 1. where --data is looked for


def test_without_data_the_checkout_is_read_never_the_working_directory(folder: Path, tmp_path: Path) -> None:
    decoy = tmp_path / "data" / "groundbench"  # what a relative default used to find (or take for a Hub id)
    decoy.mkdir(parents=True)
    args = ("requests", "curated_umd", "--condition", "part_named")
    result = groundbench(tmp_path, *args)
    assert str(decoy) not in result.stderr and "Hub" not in result.stderr
    if (CHECKOUT_DATA / "README.md").is_file():  # a built checkout: the same as naming its folder
        named = groundbench(tmp_path, *args, "--data", str(CHECKOUT_DATA))
        assert (result.returncode, result.stdout) == (named.returncode, named.stdout), result.stderr
    else:
        line = one_error(result)
        assert line.startswith(f"error: {CHECKOUT_DATA}: folder: no published folder here: build it (`make build`)")
        assert "pass --data FOLDER or ORG/NAME, or set GROUNDBENCH_DATA" in line


def test_inside_a_project_its_own_folder_is_read_not_the_checkouts(folder: Path, tmp_path: Path) -> None:
    """A second clone (or any folder holding params.yaml and dvc.yaml) reads its own build from anywhere in it,
    though the installed package came from another checkout; unbuilt, the error names its folder."""
    project = tmp_path / "clone"
    (project / "sub").mkdir(parents=True)
    for name in ("params.yaml", "dvc.yaml"):
        shutil.copy(REPO / name, project / name)
    args = ("requests", "curated_umd", "--condition", "part_named")
    line = one_error(groundbench(project / "sub", *args))
    assert line.startswith(f"error: {project / 'data' / 'groundbench'}: folder: no published folder here"), line
    shutil.copytree(folder, project / "data" / "groundbench")
    inside = groundbench(project / "sub", *args)
    named = groundbench(tmp_path, *args, "--data", str(folder))
    assert (inside.returncode, inside.stdout) == (0, named.stdout), inside.stderr


def test_root_then_the_variable_then_the_option(folder: Path, tmp_path: Path) -> None:
    project = folder.parent.parent
    args = ("requests", "curated_umd", "--condition", "part_named", "--out")
    # --root given: its data/groundbench
    assert groundbench(tmp_path, "--root", str(project), *args, str(tmp_path / "a.jsonl")).returncode == 0
    # $GROUNDBENCH_DATA: wins over --root's folder, and names a folder anywhere
    copy = shutil.copytree(folder, tmp_path / "copy")
    assert groundbench(tmp_path, *args, str(tmp_path / "b.jsonl"), GROUNDBENCH_DATA=str(copy)).returncode == 0
    missing = tmp_path / "no_such_folder"
    line = one_error(groundbench(tmp_path, "--root", str(project), *args, "x.jsonl", GROUNDBENCH_DATA=str(missing)))
    assert line.startswith(f"error: {missing}: folder: no such folder (expected a published GroundBench folder")
    # --data: wins over both
    result = groundbench(
        tmp_path, "--root", str(missing), *args, str(tmp_path / "c.jsonl"), "--data", str(copy), GROUNDBENCH_DATA="x/y"
    )
    assert result.returncode == 0, result.stderr
    texts = {(tmp_path / name).read_text() for name in ("a.jsonl", "b.jsonl", "c.jsonl")}
    assert len(texts) == 1 and len(texts.pop().splitlines()) == 5


@pytest.mark.parametrize("command", DATA_COMMANDS, ids=[c[0] for c in DATA_COMMANDS])
def test_every_data_command_resolves_the_folder_one_way(command: tuple[str, ...], tmp_path: Path) -> None:
    help_text = " ".join(groundbench(tmp_path, command[0], "--help").stdout.split())
    assert f"--data DATA published folder or Hub repo id ORG/NAME {HELP}" in help_text
    missing = tmp_path / "no_such_folder"
    line = one_error(groundbench(tmp_path, *command, GROUNDBENCH_DATA=str(missing)))
    assert line.startswith(f"error: {missing}: folder: no such folder (expected a published GroundBench folder"), line


@pytest.mark.parametrize("command", ["compare", "eval-log", "table", "plot"])
def test_the_other_data_commands_say_the_same_default(command: str, tmp_path: Path) -> None:
    help_text = " ".join(groundbench(tmp_path, command, "--help").stdout.split())
    assert HELP in help_text


def test_load_config_follows_the_same_rule(folder: Path, tmp_path: Path) -> None:
    code = "from groundbench.loaders import load_config; print(load_config('curated_umd', cache_dir='cache').num_rows)"
    command = [sys.executable, "-c", code]
    read = subprocess.run(
        command, cwd=tmp_path, env=environment(tmp_path, GROUNDBENCH_DATA=str(folder)), capture_output=True, text=True
    )
    assert read.returncode == 0 and read.stdout.strip() == "5", read.stderr
    (tmp_path / "data" / "groundbench").mkdir(parents=True)  # never the working directory's
    alone = subprocess.run(command, cwd=tmp_path, env=environment(tmp_path), capture_output=True, text=True)
    if (CHECKOUT_DATA / "README.md").is_file():
        assert alone.returncode == 0, alone.stderr
    else:
        assert f"{CHECKOUT_DATA}: folder: no published folder here" in alone.stderr, alone.stderr


# ---------------------------------------------------------------- 2. a model inspect does not know


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("nosuchprovider/model", "'nosuchprovider/model': inspect knows no provider 'nosuchprovider' (providers: "),
        (
            "mockllm",
            "expected inspect's PROVIDER/MODEL, e.g. openai/gpt-4o or mockllm/model (offline), found 'mockllm'",
        ),
    ],
)
def test_an_unknown_model_is_one_error_line(model: str, expected: str, folder: Path, tmp_path: Path) -> None:
    command = ("eval", "curated_umd", "--condition", "part_named", "--model", model, "--out", "run")
    line = one_error(groundbench(tmp_path, *command, "--data", str(folder)))
    assert line.startswith(f"error: command line: --model: {expected}"), line
    if "providers: " in expected:
        assert "openai" in line.split("providers: ")[1].split(", ")
    assert not (tmp_path / "run").exists()  # refused before anything is written


# ---------------------------------------------------------------- 3. progress bars only on a terminal


def test_no_progress_bar_in_a_log(run: Run, folder: Path, tmp_path: Path) -> None:
    _, evaluated = run
    previews = groundbench(tmp_path, "preview", "curated_umd", "--data", str(folder), "--out", "p")  # no --quiet
    assert previews.returncode == 0, previews.stderr
    code = f"from groundbench.loaders import load_config; load_config('curated_umd', {str(folder)!r}, cache_dir='c')"
    loaded = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=environment(tmp_path), capture_output=True, text=True
    )
    assert loaded.returncode == 0, loaded.stderr
    for result in (evaluated, previews, loaded):
        assert "\r" not in result.stderr and "%|" not in result.stderr and "it/s" not in result.stderr, result.stderr


def test_progress_bars_still_draw_on_a_terminal(folder: Path, tmp_path: Path) -> None:
    code = f"from groundbench.loaders import load_config; load_config('curated_umd', {str(folder)!r}, cache_dir='c')"
    shown, _ = on_a_terminal(tmp_path, [sys.executable, "-c", code], 120, "stderr")
    assert "Generating test split" in shown and "\r" in shown


# ---------------------------------------------------------------- 4. result tables as wide as asked


def widest(text: str) -> int:
    return max(len(ANSI.sub("", line)) for line in text.splitlines())


def test_result_tables_follow_columns(run: Run, folder: Path) -> None:
    folder_run, _ = run
    score = ("score", str(folder_run / "predictions.jsonl"), "--data", str(folder), "--resamples", "20", "--verbose")
    widths = {}
    for columns in ("100", "240"):
        result = groundbench(folder_run.parent, *score, COLUMNS=columns)
        assert result.returncode == 0, result.stderr
        widths[columns] = widest(result.stdout)
    piped = groundbench(folder_run.parent, *score)
    assert widths["100"] <= 100 < widths["240"] <= 240
    assert 100 < widest(piped.stdout) <= 160  # piped, COLUMNS unset: a fixed wide table, not rich's 80
    shown, _ = on_a_terminal(folder_run.parent, [sys.executable, "-m", "groundbench.cli", *score], 200, "stdout")
    assert 160 < widest(shown) <= 200  # a terminal: its width
