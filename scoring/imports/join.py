"""Join an imported file's rows to a config's published rows (pure), and account for every one of both.

The key: the image and the instruction. The image matches when the file's image reference and the row's
``extras.gui.file_name`` agree on their trailing path components (``/data/ScreenSpot-Pro/images/vscode_mac/a.png``
is ``vscode_mac/a.png``; a bare ``a.png`` is too); the instruction matches the row's ``instruction`` (or its
``extras.gui.instruction_cn``), spaces at the ends ignored. Where the file carries the source's own id
(ScreenSpot-Pro ``id``), it narrows the candidates to the row with that ``extras.gui.source_row_id`` when one has
it; a file without images (PointerBench predictions) joins on that id alone. Where several rows still share a
key, the target box the file scored against narrows them (within 1.5 pixels: VLMEvalKit draws ScreenSpot boxes
one pixel smaller).

Every row ends in exactly one place:

- matched: one file row, one config row;
- absent: a config row no file row joined: no prediction line is written, so ``score`` counts it a failure,
  as the official denominators do;
- extra: a file row no config row has (listed, with why);
- ambiguous: a key that several file rows or several config rows share. The rule, never a silent pick: when
  every candidate row has the same target (same box, same answer type: the real duplicates, e.g. ScreenSpot-v2's
  two ``open the menu`` rows on one web screenshot), the file rows are paired with the rows in file order and
  example-id order, which cannot change any score, and each pairing is listed; file rows beyond the rows are
  listed unpaired and get no line. When the candidates' targets differ, nothing is paired: the file rows are
  listed unresolved and the rows stay absent.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from groundbench.scoring.imports.source import SourceRow

Row = Mapping[str, Any]
BOX_TOLERANCE = 1.5  # pixels


@dataclass(frozen=True)
class Match:
    source: SourceRow
    row: Row
    paired: bool = False  # by the ambiguity rule (identical targets)


@dataclass
class Joined:
    matched: list[Match] = field(default_factory=list)
    absent: list[Row] = field(default_factory=list)
    extra: list[tuple[SourceRow, str]] = field(default_factory=list)
    ambiguous: list[tuple[SourceRow, list[str], str]] = field(default_factory=list)  # source, candidates, resolution


def gui(row: Row) -> Mapping[str, Any]:
    return (row.get("extras") or {}).get("gui") or {}


def _parts(path: str) -> list[str]:
    return [p for p in re.split(r"[\\/]+", path.strip()) if p not in ("", ".")]


def same_image(reference: str, file_name: str) -> bool:
    """Do the two names agree on their trailing path components (the shorter one being the longer's tail)?"""
    a, b = _parts(reference), _parts(file_name)
    n = min(len(a), len(b))
    return n > 0 and a[-n:] == b[-n:]


def _instructions(row: Row) -> set[str]:
    found = {str(row.get("instruction") or "").strip(), str(gui(row).get("instruction_cn") or "").strip()}
    return found - {""}


def _target(row: Row) -> tuple[Any, ...]:
    return (tuple(gui(row).get("eval_bbox") or ()), row.get("answer_type"))


def _box_close(source: SourceRow, row: Row) -> bool:
    if source.box is None:
        return False
    box = source.box.pixels(float(row["width"]), float(row["height"]))
    truth = gui(row).get("eval_bbox") or ()
    return len(truth) == 4 and all(abs(a - b) <= BOX_TOLERANCE for a, b in zip(box, truth, strict=True))


class Index:
    """The config's rows by image name and by source id."""

    def __init__(self, rows: Sequence[Row]) -> None:
        self.rows = list(rows)
        self.by_name: dict[str, list[Row]] = {}
        self.by_id: dict[str, list[Row]] = {}
        for row in self.rows:
            name = str(gui(row).get("file_name") or "")
            if name:
                self.by_name.setdefault(_parts(name)[-1], []).append(row)
            row_id = gui(row).get("source_row_id")
            if row_id:
                self.by_id.setdefault(str(row_id), []).append(row)

    def candidates(self, source: SourceRow) -> list[Row]:
        if source.image is None:
            return list(self.by_id.get(source.source_id or "", []))
        parts = _parts(source.image)
        prompt = (source.instruction or "").strip()
        found = [
            row
            for row in self.by_name.get(parts[-1] if parts else "", [])
            if same_image(source.image, str(gui(row).get("file_name"))) and prompt in _instructions(row)
        ]
        if source.source_id is not None:
            same = [row for row in found if gui(row).get("source_row_id") == source.source_id]
            found = same or found
        if len(found) > 1 and source.box is not None:
            close = [row for row in found if _box_close(source, row)]
            found = close or found
        return found


def _no_row(source: SourceRow) -> str:
    if source.image is None:
        return f"no row of the config has id {source.source_id!r}"
    return "no row of the config has this image and instruction"


def join(sources: Sequence[SourceRow], rows: Sequence[Row]) -> Joined:
    """Every file row and every config row accounted for (module docstring)."""
    index = Index(rows)
    out = Joined()
    groups: dict[tuple[str, ...], list[SourceRow]] = {}
    members: dict[tuple[str, ...], list[Row]] = {}
    for source in sources:
        if source.skip is not None:
            out.extra.append((source, source.skip))
            continue
        found = index.candidates(source)
        if not found:
            out.extra.append((source, _no_row(source)))
            continue
        key = tuple(sorted(str(row["example_id"]) for row in found))
        groups.setdefault(key, []).append(source)
        members[key] = sorted(found, key=lambda r: str(r["example_id"]))
    claimed: set[str] = set()
    for key, group in groups.items():
        free = [row for row in members[key] if str(row["example_id"]) not in claimed]
        if len(key) == 1 and len(group) == 1 and free:
            out.matched.append(Match(group[0], free[0]))
            claimed.add(key[0])
            continue
        identical = len({_target(row) for row in members[key]}) == 1
        for position, source in enumerate(group):
            if not identical:
                out.ambiguous.append((source, list(key), "unresolved: the candidate rows' targets differ; no line"))
            elif position < len(free):
                row = free[position]
                out.matched.append(Match(source, row, paired=True))
                claimed.add(str(row["example_id"]))
                out.ambiguous.append((source, list(key), f"paired with {row['example_id']} (identical targets)"))
            else:
                reason = "unpaired: more file rows than config rows share this key; no line"
                out.ambiguous.append((source, list(key), reason))
    out.absent = [row for row in rows if str(row["example_id"]) not in claimed]
    return out
