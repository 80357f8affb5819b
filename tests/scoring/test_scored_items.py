"""The join's scored items kept by group in a temporary file (``scoring/scored_items.py``, issue 43 target 5):
read back as they were given, whenever they were written out, and a whole report the same bytes either way."""

from __future__ import annotations

import json
import math
import tempfile
from decimal import Decimal
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from groundbench.scoring import scored_items
from groundbench.scoring.api import score_file
from groundbench.scoring.metrics import Scored
from groundbench.scoring.parse import FREE_TEXT, MALFORMED, MISSING, STRICT, Answer
from groundbench.scoring.run import ScoreOutputs, write_outputs
from groundbench.scoring.scored_items import ScoredItems
from tests.scoring.test_scoring_hand import PREDICTIONS, _write_folder

ROWS = [{"example_id": f"r{i}", "stratum": "s"} for i in range(4)]
SHARED = Answer(status=STRICT, part="door", action="pull", point=(1.5, -0.0), record={"point": [1.5, -0.0]})
ANSWERS = [
    SHARED,
    Answer(status=STRICT, box=(1.0, 2.0, 3.0, 4.0), record={"box": [1, 2, 3, 4], "nested": {"n": math.nan}}),
    Answer(status=STRICT, point=(3.0, 4.0), shapes=((3.0, 4.0), (5.0, 6.0, 7.0, 8.0)), from_strings=True),
    Answer(status=FREE_TEXT, text="pull the door \ud800"),
    Answer(status=MALFORMED, action_raw="yank", unreadable=True),
    Answer(status=MISSING),
    SHARED,
]


def _items() -> list[Scored]:
    """Items of three groups, interleaved, the shared answer in two of them and one row in several."""
    out = []
    for i, answer in enumerate(ANSWERS):
        model, condition = ("b", "part_named") if i % 3 == 0 else ("a", "image_only" if i % 2 else "part_named")
        out.append(Scored(model, "c", condition, ROWS[i % len(ROWS)], answer))
    return out


def _same(read: Scored, given: Scored) -> bool:
    """Equal, the answer's record included (``record`` takes no part in an Answer's equality), the row itself."""
    return read == given and read.row is given.row and _plain(read.answer.record) == _plain(given.answer.record)


def _plain(value: Any) -> str:
    return json.dumps(value, sort_keys=True)  # NaN as NaN: equal texts for equal records


@pytest.mark.parametrize("pending", [1, 2, 3, 1000])
def test_items_read_back_group_by_group_as_given(pending: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scored_items, "PENDING", pending)
    items = ScoredItems()
    given = _items()
    for item in given:
        items.append(item)
    keys = sorted({(s.model, s.config, s.condition) for s in given})
    assert items.group_keys() == keys and len(items) == len(given)
    for key in keys:
        expected = [s for s in given if (s.model, s.config, s.condition) == key]
        read = items.group(key)
        assert len(read) == len(expected) and all(_same(r, g) for r, g in zip(read, expected, strict=True))
        assert items.counts[key] == len(expected)
    assert [s.model for s in items] == [s.model for key in keys for s in items.group(key)]
    assert items.malformed == {"a": 1} or items.malformed == {"b": 1}
    assert sum(items.malformed.values()) == 1
    items.close()


def test_an_answer_marshal_cannot_write_is_kept_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Python caller's own values in an answer (a Decimal, a read-only mapping) stay in memory, the rest is
    written out beside them."""
    monkeypatch.setattr(scored_items, "PENDING", 2)
    odd = Answer(status=STRICT, point=(1.0, 2.0), record=MappingProxyType({"point": [Decimal("1.0"), 2]}))
    given = [Scored("m", "c", "gui", ROWS[0], odd), Scored("m", "c", "gui", ROWS[1], SHARED)]
    items = ScoredItems()
    for item in given:
        items.append(item)
    read = items.group(("m", "c", "gui"))
    assert read[0].answer is odd and _same(read[1], given[1])


def test_nothing_is_left_in_the_temporary_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scored_items, "PENDING", 1)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    items = ScoredItems()
    for item in _items():
        items.append(item)
    assert items.group(("a", "c", "image_only")) and list(tmp_path.iterdir()) == []


def _report(folder: Path, predictions: Path, out: Path, layouts: tuple[str, ...] = ()) -> bytes:
    report = score_file(predictions, folder=folder, resamples=20, layouts=layouts)
    write_outputs(report, ScoreOutputs(json=out))
    return out.read_bytes()


def test_a_report_is_the_same_bytes_whether_items_are_written_out_or_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three models' lines (strict, fenced, prose, free form, parsed fields, GUI, missing rows), shuffled: the
    ``--json`` with every item written out at once is the one with none written out."""
    folder = _write_folder(tmp_path)
    lines = [{**p, "model": m} for m in ("m1", "m2", "m3") for i, p in enumerate(PREDICTIONS) if m != "m2" or i % 3]
    lines = lines[1::2] + lines[::2]
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("".join(json.dumps(line) + "\n" for line in lines))
    held = _report(folder, predictions, tmp_path / "held.json")
    monkeypatch.setattr(scored_items, "PENDING", 1)
    written = _report(folder, predictions, tmp_path / "written.json")
    assert written == held
    assert json.loads(written)["missing"]  # rows without a prediction are in it, read after each group's items
