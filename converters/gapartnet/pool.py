"""The frozen contrast pool: a human-reviewed, git-tracked list of the pairs ``contrast_gapartnet`` scores.

``data/audits/contrast_pool.yaml`` lists every pair of the evaluation pool with the reviewer's
reason. The miner still searches every object, but what it finds is only compared with the file:
any pair mined into the pool (a row not excluded) that the file lacks, or listed in the file but
not mined, stops the build with the difference, until the file is updated on purpose. So a
converter change cannot move an object in or out of the pool unnoticed, and bulk objects enter it
only through the file.

A pool for other sources starts from a draft: ``groundbench derive contrast --write-pool-draft FILE``
writes every mined pair in this file's format with an empty reason (and a comment saying what the
miner found). The build refuses a pool file in which any reason is empty, naming the pairs, so each
pair counts only once a maintainer has looked at it and written what they checked.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from groundbench.converters.gapartnet.params import ContrastPoolFile
from groundbench.core.atomic import write_text
from groundbench.core.params import load_file
from groundbench.errors import GroundBenchError


@dataclass(frozen=True)
class PoolEntry:
    pair: str  # "<object>/<original part>-><requested part>" (extras.reask.pair_id)
    reason: str


def read_pool(path: Path) -> dict[str, PoolEntry]:
    """The file's pairs by pair id (validated by ``ContrastPoolFile``: a pair and a reason each), none twice."""
    raw = load_file(ContrastPoolFile, path, "pool file")
    entries: dict[str, PoolEntry] = {}
    for number, item in enumerate(raw.pairs):
        if item.pair in entries:
            raise GroundBenchError(path, f"pairs[{number}].pair", f"{item.pair} listed twice")
        entries[item.pair] = PoolEntry(item.pair, item.reason)
    return entries


def pool_difference(mined: list[str], frozen: dict[str, PoolEntry]) -> tuple[list[str], list[str]]:
    """(pairs mined into the pool but not in the file, pairs in the file but not mined), each sorted."""
    found = set(mined)
    return sorted(found - set(frozen)), sorted(set(frozen) - found)


SHOWN = 20  # pairs named per direction in the error; the count says how many more


def _named(pairs: list[str], sign: str, why: str) -> list[str]:
    lines = [f"{sign} {p} ({why})" for p in pairs[:SHOWN]]
    return lines + ([f"{sign} ... and {len(pairs) - SHOWN} more"] if len(pairs) > SHOWN else [])


def check_pool(path: Path, mined: list[str]) -> dict[str, PoolEntry]:
    """The frozen pool, after checking that the mined pool equals it and that every pair has a reviewer's
    reason; else one error with the diff, or with the pairs still unreviewed."""
    frozen = read_pool(path)
    added, missing = pool_difference(mined, frozen)
    if added or missing:
        diff = _named(added, "+", "mined, not in the file") + _named(missing, "-", "in the file, not mined")
        raise GroundBenchError(
            path,
            "pairs",
            f"the mined contrast pool differs from the frozen pool ({len(added)} added, {len(missing)} missing): "
            + "; ".join(diff)
            + ". Review those pairs and update the file on purpose.",
        )
    unreviewed = sorted(pair for pair, entry in frozen.items() if not entry.reason)
    if unreviewed:
        raise GroundBenchError(
            path,
            "reason",
            f"{len(unreviewed)} of {len(frozen)} pairs have an empty reason (not reviewed yet): "
            + "; ".join(_named(unreviewed, "?", "no reason"))
            + ". Look at each pair (groundbench preview contrast_gapartnet <example id>) and write what you checked.",
        )
    return frozen


DRAFT_HEADER = """\
# contrast_gapartnet's evaluation pool: a DRAFT written by `groundbench derive contrast --write-pool-draft`.
# Every pair the miner keeps (rows not excluded) is listed with an EMPTY reason, and the build refuses a
# pool file with an empty reason. Review each pair before it counts: draw it (groundbench preview
# contrast_gapartnet <example id>, the id in the comment above the pair), check that the requested part is
# visible and its box sits on it, and write what you checked as the reason. Then point params.yaml
# contrast.pool at this file. The build compares the file with what it mines, so a pair that fails review
# cannot be dropped from this file alone: the miner's checks or the source have to change.
#   pair    <object>/<original part>-><requested part> (extras.reask.pair_id)
#   reason  what the reviewer checked
"""


def draft_text(pairs: Sequence[tuple[str, str]]) -> str:
    """The pool file's format for (pair id, what the miner found) pairs, each reason empty; sorted by pair."""
    lines = [DRAFT_HEADER + "pairs:"]
    for pair, note in sorted(pairs):
        lines += [f"  # {' '.join(note.split())}", f"  - pair: {json.dumps(pair)}", '    reason: ""']
    return "\n".join(lines) + ("\n" if pairs else " []\n")


def write_pool_draft(path: Path, pairs: Sequence[tuple[str, str]], pool: Path | None) -> None:
    """Write the draft (atomically); never over the configured pool file, whose reasons were reviewed."""
    if pool is not None and path.resolve() == pool.resolve():
        raise GroundBenchError(
            path, "--write-pool-draft", "is the reviewed pool file contrast.pool names: choose another file"
        )
    write_text(path, draft_text(pairs))
