"""The frozen contrast pool: a human-reviewed, git-tracked list of the pairs ``contrast_gapartnet`` scores.

``data/audits/contrast_pool.yaml`` lists every pair of the evaluation pool with the reviewer's
reason. The miner still searches every object, but what it finds is only compared with the file:
any pair mined into the pool (a row not excluded) that the file lacks, or listed in the file but
not mined, stops the build with the difference, until the file is updated on purpose. So a
converter change cannot move an object in or out of the pool unnoticed, and bulk objects enter it
only through the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from groundbench.core.errors import GroundBenchError
from groundbench.core.params import ContrastPoolFile, load_file


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
    """The frozen pool, after checking that the mined pool equals it; else one error with the diff."""
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
    return frozen
