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

import yaml

from groundbench.core.errors import GroundBenchError


@dataclass(frozen=True)
class PoolEntry:
    pair: str  # "<object>/<original part>-><requested part>" (extras.reask.pair_id)
    reason: str


def read_pool(path: Path) -> dict[str, PoolEntry]:
    """The file's pairs by pair id; each needs a pair and a reason, none twice."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise GroundBenchError(path, "file", f"expected a readable YAML pool file ({exc})") from exc
    if not isinstance(raw, dict) or not isinstance(raw.get("pairs"), list):
        raise GroundBenchError(path, "pairs", "expected a mapping with a 'pairs' list")
    entries: dict[str, PoolEntry] = {}
    for number, item in enumerate(raw["pairs"]):
        where = f"pairs[{number}]"
        if not isinstance(item, dict):
            raise GroundBenchError(path, where, "expected a mapping with pair and reason")
        pair, reason = item.get("pair"), item.get("reason")
        if not isinstance(pair, str) or "/" not in pair or "->" not in pair:
            raise GroundBenchError(path, f"{where}.pair", "expected '<object>/<original>-><requested>'")
        if not isinstance(reason, str) or not reason.strip():
            raise GroundBenchError(path, f"{where}.reason", "expected the reviewer's reason, as text")
        if pair in entries:
            raise GroundBenchError(path, f"{where}.pair", f"{pair} listed twice")
        entries[pair] = PoolEntry(pair, reason.strip())
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
