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
import sys
from collections.abc import Iterable, Iterator, KeysView, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from groundbench.core.atomic import atomic_file
from groundbench.errors import GroundBenchError
from groundbench.evaluate.predictions import GATE_FIELDS, Line, json_line, key

ANSWERS = "answers.jsonl"


Key = tuple[str, str, str]  # (config, condition, example id)


def answer_lines(out: Path) -> Iterator[tuple[int, Line]]:
    """The cached lines in file order, each with its byte offset, read one at a time (a whole config's cache
    is hundreds of thousands of lines). A torn last line (the run was killed) is dropped."""
    path = out / ANSWERS
    try:
        handle = open(path, "rb")  # noqa: SIM115 (closed below; absent: nothing cached)
    except FileNotFoundError:
        return
    with handle:
        offset = 0
        for number, raw in enumerate(handle, start=1):
            start, offset = offset, offset + len(raw)
            try:
                text = raw.decode("utf-8")
                if not text.strip():
                    continue
                line = json.loads(text)
            except ValueError as exc:
                if not raw.endswith(b"\n"):  # the last line, not newline-terminated: a write cut short
                    return
                raise GroundBenchError(path, f"line {number}", f"expected one JSON object ({exc})") from exc
            if not isinstance(line, dict) or not all(name in line for name in KEY_FIELDS):
                found = "an object without " + ", ".join(KEY_FIELDS) if isinstance(line, dict) else type(line).__name__
                raise GroundBenchError(path, f"line {number}", f"expected one answer object, found {found}")
            yield start, line


KEY_FIELDS = ("config", "condition", "example_id")


def line_key(line: Line) -> Key:
    """The line's key, its config and condition shared between lines (a cache holds few distinct ones)."""
    config, condition, example_id = key(line)
    return sys.intern(config), sys.intern(condition), example_id


@dataclass
class CachedAnswers:
    """What a run needs of its cache without holding its lines: where each key's first line is, and, in file
    order, the first line asked under each distinct (config, condition, gate fields), counting only each key's
    first line."""

    first_at: dict[Key, int] = field(default_factory=dict)  # each key answered -> its first line's byte offset
    first_under: dict[tuple[str, ...], Line] = field(default_factory=dict)

    @property
    def keys(self) -> KeysView[Key]:
        return self.first_at.keys()


def scan_answers(out: Path) -> CachedAnswers:
    """The cache's keys and gate fields, one line at a time (a later line of a key already cached is ignored)."""
    found = CachedAnswers()
    for offset, line in answer_lines(out):
        answered = line_key(line)
        if answered in found.first_at:
            continue
        found.first_at[answered] = offset
        asked_under = (*answered[:2], *(repr(line.get(name)) for name in GATE_FIELDS))  # hashable, whatever JSON
        found.first_under.setdefault(asked_under, line)
    return found


def write_predictions(out: Path, target: Path, cached: CachedAnswers | None = None) -> KeysView[Key]:
    """``target``: the first cached line of each key, one canonical line each, sorted by key (what
    :func:`groundbench.evaluate.predictions.jsonl` writes), read back one line at a time; the keys written.
    ``cached``: the cache's scan when the caller has made it (the lines are not read twice)."""
    first = (cached or scan_answers(out)).first_at
    with atomic_file(target) as handle:
        if not first:  # no cache, or an empty one: an empty predictions file
            return first.keys()
        with open(out / ANSWERS, "rb") as cache:
            for answered in sorted(first):
                cache.seek(first[answered])
                handle.write(json_line(json.loads(cache.readline())).encode("utf-8"))
    return first.keys()


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
