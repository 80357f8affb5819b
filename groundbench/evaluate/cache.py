"""The run folder's answer cache: every answer is appended (and fsynced) the moment it arrives.

A run killed at any point therefore loses at most the requests that were in flight; the next run
reads the cache and asks only the rest, and a finished run asks nothing. The folder is bound to one
setting (:mod:`.runfolder`: model, resize, generation settings) and every cached line carries the
gate fields it was asked under, so a cache is never mixed with another model's answers or with rows
of a rebuilt dataset: such a run is refused with the field that differs.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from groundbench.errors import GroundBenchError
from groundbench.evaluate.predictions import GATE_FIELDS, Line, json_line, key

ANSWERS = "answers.jsonl"


def read_answers(out: Path) -> dict[tuple[str, str, str], Line]:
    """Cached lines by (config, condition, example id). A torn last line (the run was killed) is dropped."""
    path = out / ANSWERS
    if not path.is_file():
        return {}
    lines = path.read_text(encoding="utf-8").split("\n")
    answers: dict[tuple[str, str, str], Line] = {}
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            line = json.loads(text)
        except ValueError as exc:
            if number == len(lines):  # the last line, not newline-terminated: a write cut short
                break
            raise GroundBenchError(path, f"line {number}", f"expected one JSON object ({exc})") from exc
        answers.setdefault(key(line), line)
    return answers


def check_gate(out: Path, cached: Iterable[Line], current: Mapping[tuple[str, str], Mapping[str, str]]) -> None:
    """Refuse cached answers asked under other gate fields than the folder's now (the data was rebuilt)."""
    for line in cached:
        gate = current.get((line["config"], line["condition"]))
        if gate is None:
            continue
        for name in GATE_FIELDS:
            if line.get(name) != gate[name]:
                raise GroundBenchError(
                    out / ANSWERS,
                    name,
                    f"{line['config']} / {line['condition']} / {line['example_id']} was answered under "
                    f"{line.get(name)!r}; the folder now gives {gate[name]!r} (the dataset was rebuilt): "
                    "give another --out to evaluate this build",
                )


# The first error each run folder's answers could not be written with (a full disk, ...), by folder: inspect
# records it as the sample's error and goes on, so the command asks for it here to name it in its own line.
_WRITE_FAILURES: dict[Path, OSError] = {}


class AnswerLog:
    """Append-only writer used by the task's recording solver (one event loop: writes never interleave)."""

    def __init__(self, out: Path) -> None:
        self.path = out / ANSWERS
        drop_torn_tail(self.path)

    def append(self, line: Mapping[str, Any]) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as handle:
                handle.write(json_line(line))
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            _WRITE_FAILURES.setdefault(self.path.parent, exc)
            raise


def write_failure(out: Path) -> OSError | None:
    """The first error the answers of ``out`` could not be written with since the last call (then forgotten)."""
    return _WRITE_FAILURES.pop(out, None)


def drop_torn_tail(path: Path) -> None:
    """Cut a last line a killed run left without its newline, so appends start on a line of their own. Reads
    the file's tail only (a task is built per window of rows, and the answers grow with the run)."""
    try:
        handle = open(path, "r+b")  # noqa: SIM115 (closed below; absent: nothing to cut)
    except FileNotFoundError:
        return
    with handle:
        end = handle.seek(0, os.SEEK_END)
        if end == 0:
            return
        handle.seek(end - 1)
        if handle.read(1) == b"\n":
            return
        cut = end
        while cut > 0:  # back, a block at a time, to the last newline (the start of the torn line)
            start = max(0, cut - TAIL_BLOCK)
            handle.seek(start)
            found = handle.read(cut - start).rfind(b"\n")
            if found >= 0:
                handle.truncate(start + found + 1)
                return
            cut = start
        handle.truncate(0)


TAIL_BLOCK = 1 << 16
