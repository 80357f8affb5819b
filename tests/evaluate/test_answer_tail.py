"""The answer cache's torn last line (a killed run's) is cut by reading the file's tail only, block by block."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundbench.evaluate import cache


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (b"", b""),
        (b'{"a": 1}\n', b'{"a": 1}\n'),
        (b'{"a": 1}\n{"b": 2}\n{"c": ', b'{"a": 1}\n{"b": 2}\n'),
        (b'{"a": 1}\n' + b"x" * 50, b'{"a": 1}\n'),  # the torn line spans several blocks
        (b'{"c": ', b""),  # no whole line at all
    ],
)
def test_the_torn_tail_is_cut_to_the_last_newline(
    before: bytes, after: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "TAIL_BLOCK", 8)  # several blocks for the lines above
    path = tmp_path / "answers.jsonl"
    path.write_bytes(before)
    cache.drop_torn_tail(path)
    assert path.read_bytes() == after


def test_no_file_is_left_absent(tmp_path: Path) -> None:
    cache.drop_torn_tail(tmp_path / "answers.jsonl")
    assert not (tmp_path / "answers.jsonl").exists()
