"""The synthetic notice, one rule for every command that reads a sample build or scores on one
(scoring/notice.py): one line, once per command, on stderr; the standard output holds the result alone, the
same bytes a real build's would have around it (it pipes cleanly).

Each command run for real in a subprocess, its output piped as in a log, on a UMD sample build (both of
its configs synthetic) and the mock model's eval run folder of it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from groundbench.cards.notice import synthetic_line
from tests.cli.test_cli_user import groundbench
from tests.conftest import build_all, sample_umd_project

LINE = "⚠ " + synthetic_line(["bulk_umd", "curated_umd"])  # the scored (and built) configs, both samples
Run = tuple[Path, subprocess.CompletedProcess[str]]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory, umd_sample: Path) -> Path:
    root = sample_umd_project(tmp_path_factory.mktemp("notice") / "project", umd_sample)
    build_all(root)
    return root / "data" / "groundbench"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, folder: Path) -> Run:
    """``groundbench eval`` of both configs with the offline mock model."""
    where = tmp_path_factory.mktemp("notice_eval")
    command = ("eval", "curated_umd", "bulk_umd", "--condition", "part_named", "--model", "mockllm/model")
    result = groundbench(where, *command, "--data", str(folder), "--out", str(where / "run"))
    assert result.returncode == 0, result.stderr
    return where / "run", result


def commands(folder: Path, out: Path, tmp: Path) -> dict[str, tuple[str, ...]]:
    predictions, data = str(out / "predictions.jsonl"), ("--data", str(folder))
    logs = sorted(str(log) for log in (out / "logs").glob("*.eval"))  # one per config
    return {
        "summary": ("--root", str(folder.parent.parent), "summary"),
        "score": ("score", predictions, *data),
        "compare": ("compare", predictions, predictions, "--resamples", "50", *data),
        "eval-log": ("eval-log", *logs, "--out", str(tmp / "from-log"), *data),
        "table": ("table", str(out), *data),
        "table --format csv": ("table", str(out), "--format", "csv", *data),
        "results export": (
            "results", "export", str(out), "--model-repo", "mockllm/model", "--dataset", "org/groundbench",
            "--allow-synthetic", "--out", str(tmp / "hub"), *data,
        ),
    }  # fmt: skip


def _notice_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if "SYNTHETIC" in line]


def check(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 0, result.stderr
    assert _notice_lines(result.stderr) == [LINE], result.stderr  # one line, once, whole
    assert _notice_lines(result.stdout) == [], result.stdout  # never on the standard output


def test_eval_says_it_once_on_stderr(run: Run) -> None:
    check(run[1])


@pytest.mark.parametrize(
    "name", ["summary", "score", "compare", "eval-log", "table", "table --format csv", "results export"]
)
def test_every_command_says_it_once_on_stderr(name: str, folder: Path, run: Run, tmp_path: Path) -> None:
    out, _ = run
    check(groundbench(tmp_path, *commands(folder, out, tmp_path)[name]))


def test_the_csv_on_stdout_is_the_table_alone(folder: Path, run: Run, tmp_path: Path) -> None:
    result = groundbench(tmp_path, *commands(folder, run[0], tmp_path)["table --format csv"])
    assert result.stdout.startswith("model,run,config,stratum,condition,metric,"), result.stdout
