"""scoring/predictions.py joins a line top-down (issue 46's reshape of ``_join_line``): who the line is about
(``_identify``), whether it is new (``Joined.claim``), how it reads (``_read_line``: pure, the row, the format,
the gate, the answer) and what is recorded (``Joined.add``). On tests/scoring/test_scoring_hand.py's folder."""

from __future__ import annotations

import pytest

from groundbench.scoring.formats import parse_format
from groundbench.scoring.gate import folder_gate
from groundbench.scoring.predictions import (
    BadLine,
    Context,
    Joined,
    Key,
    Rows,
    _identify,
    _read_line,
    join,
    read_rows,
)
from tests.scoring.test_scoring_hand import _write_folder


@pytest.fixture(scope="module")
def context(tmp_path_factory: pytest.TempPathFactory) -> Context:
    folder = _write_folder(tmp_path_factory.mktemp("join"))
    rows: Rows = read_rows(folder)
    return Context(rows, folder_gate(folder), False, False, parse_format("groundbench"))


LINE = {"example_id": "ga/1", "condition": "gui", "model": "m", "response": '{"point": [500, 400]}'}


def test_reading_a_line_changes_nothing_and_gives_the_same_answer_twice(context: Context) -> None:
    key = _identify(LINE, context.rows)
    assert key == Key("m", "ga/1", "gui")
    first, second = _read_line("line 1", LINE, key, context), _read_line("line 1", LINE, key, context)
    assert first == second and first.answer is not None and first.answer.status == "strict"
    assert (first.config, first.fmt.spec, first.mismatches) == ("gui_text", "groundbench", [])


def test_a_key_is_claimed_once_and_an_excluded_row_is_recorded_not_scored(context: Context) -> None:
    joined = Joined()
    key = joined.claim(_identify(LINE, context.rows))
    with pytest.raises(BadLine, match="a second prediction for"):
        joined.claim(key)
    joined.add(_read_line("line 1", LINE, key, context))
    assert len(joined.items) == len(joined.kept) == 1 and joined.formats["m"].spec == "groundbench"
    excluded = {"example_id": "cf/D/knob", "condition": "counterfactual", "model": "m", "response": "{}"}
    read = _read_line("line 2", excluded, _identify(excluded, context.rows), context)
    assert read.answer is None
    joined.add(read)
    assert len(joined.items) == 1 and joined.excluded == [
        {"model": "m", "config": "hand_counterfactual", "condition": "counterfactual", "example_id": "cf/D/knob"}
    ]


def test_join_is_the_steps_in_order(context: Context) -> None:
    lines = [("line 1", LINE), ("line 2", {**LINE, "model": "n", "answer_format": "qwen2.5-vl"})]
    joined = join(lines, context.rows, context.gate)
    assert joined.lines == 2 and [s.model for s in joined.items] == ["m", "n"]
    assert {model: fmt.spec for model, fmt in joined.formats.items()} == {"m": "groundbench", "n": "qwen2.5-vl"}
    assert joined.seen == {("m", "ga/1", "gui"), ("n", "ga/1", "gui")}
