"""The answer cache read a line at a time: its keys, its gate fields and the predictions file written from it
are those of the whole file read at once (the first line of each key, sorted), and a bad line is named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from groundbench.errors import GroundBenchError
from groundbench.evaluate.cache import ANSWERS, check_gate, scan_answers, write_predictions
from groundbench.evaluate.predictions import json_line, jsonl, key

GATE = {"dataset_version": "1", "manifest_sha256": "m", "template_sha256": "t"}


def answer(example_id: str, condition: str = "part_named", response: str = "{}", **gate: str) -> dict[str, Any]:
    return {"config": "c", "condition": condition, "example_id": example_id, "response": response, **GATE, **gate}


def cache(tmp_path: Path, *lines: dict[str, Any], tail: str = "") -> Path:
    (tmp_path / ANSWERS).write_text("".join(json_line(line) for line in lines) + tail, encoding="utf-8")
    return tmp_path


def test_predictions_are_the_first_line_of_each_key_sorted_and_a_torn_tail_is_dropped(tmp_path: Path) -> None:
    lines = [
        answer("b/2", response="é ✓"),
        answer("a/1"),
        answer("b/2", response="a later answer", dataset_version="2"),  # a key answered already: ignored
        answer("a/1", condition="image_only"),
    ]
    out = cache(tmp_path, *lines, tail='\n  \n{"config": "c", "condit')  # a blank line, then a killed write
    written = write_predictions(out, tmp_path / "predictions.jsonl")
    first = [lines[0], lines[1], lines[3]]
    assert (tmp_path / "predictions.jsonl").read_text(encoding="utf-8") == jsonl(first)
    assert set(written) == {key(line) for line in first}
    scanned = scan_answers(out)
    assert scanned.keys == set(written)
    assert list(scanned.first_under.values()) == [lines[0], lines[3]]  # one per (config, condition, gate)


def test_no_cache_is_no_answer(tmp_path: Path) -> None:
    assert scan_answers(tmp_path).keys == set()
    assert not write_predictions(tmp_path, tmp_path / "predictions.jsonl")
    assert (tmp_path / "predictions.jsonl").read_bytes() == b""


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("{not json\n", "line 2: expected one JSON object"),
        ("[1, 2]\n", "line 2: expected one answer object, found list"),
        ('{"config": "c"}\n', "line 2: expected one answer object, found an object without config, condition"),
    ],
)
def test_a_bad_line_before_the_last_is_named(tmp_path: Path, text: str, said: str) -> None:
    out = cache(tmp_path, answer("a/1"), tail=text + json_line(answer("a/2")))
    with pytest.raises(GroundBenchError) as error:
        scan_answers(out)
    assert f"{tmp_path / ANSWERS}: {said}" in str(error.value)
    with pytest.raises(GroundBenchError):
        write_predictions(out, tmp_path / "predictions.jsonl")
    assert not (tmp_path / "predictions.jsonl").exists()  # nothing partial


def test_the_gate_names_the_first_line_asked_under_other_fields(tmp_path: Path) -> None:
    lines = [
        answer("a/1"),
        answer("a/2", template_sha256="old"),
        answer("a/3", condition="image_only", dataset_version="0"),
        answer("a/4", template_sha256="old"),
    ]
    scanned = scan_answers(cache(tmp_path, *lines))
    current = {("c", "part_named"): GATE, ("c", "image_only"): GATE}
    with pytest.raises(GroundBenchError) as error:
        check_gate(tmp_path, scanned.first_under.values(), current)
    assert "c / part_named / a/2 was answered under 'old'" in str(error.value)
    check_gate(tmp_path, scanned.first_under.values(), {("c", "image_only"): {**GATE, "dataset_version": "0"}})
    assert json.loads(json_line(lines[1])) == lines[1]
