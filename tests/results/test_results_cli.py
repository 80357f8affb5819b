"""The results commands' arguments and bad input, without a build: help texts render, and a file that is not
what a command reads is refused with one line naming the file and the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from groundbench.cli import main


@pytest.mark.parametrize("command", [[], ["table"], ["plot"], ["results"], ["results", "export"]])
def test_help_renders(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main([*command, "--help"])
    assert stop.value.code == 0
    assert "usage: groundbench" in capsys.readouterr().out


def _error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def test_bad_inputs_are_refused_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nothing"
    assert _error(capsys, "table", str(missing)) == (
        f"error: {missing}: scores.json: expected a scores.json or a run folder of `groundbench eval` holding one"
    )
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    assert _error(capsys, "table", str(broken)).startswith(f"error: {broken}: json: expected the JSON of `groundbench")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"metrics": {}}))
    assert _error(capsys, "plot", str(other)) == (
        f"error: {other}: metrics: expected the JSON of `groundbench score --json` (a metrics list)"
    )
    compare = tmp_path / "compare.json"
    compare.write_text(json.dumps({"a": "x"}))
    assert _error(capsys, "plot", "--compare", str(compare), "--out", str(tmp_path / "p")) == (
        f"error: {compare}: differences: expected the JSON of `groundbench compare --json` (a differences list)"
    )
    assert not (tmp_path / "p").exists()  # nothing written
    no_gate = tmp_path / "no_gate.json"
    no_gate.write_text(json.dumps({"metrics": []}))
    assert _error(capsys, "table", str(no_gate)) == (
        f"error: {no_gate}: gate: expected the gate record `groundbench score --json` writes"
    )
