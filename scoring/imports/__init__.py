"""``groundbench import``: other frameworks' per-sample outputs as GroundBench prediction lines.

One module per framework (``--from KIND``) turns its parsed file into ``source.SourceRow`` items; ``join`` puts
them against a config's published rows (matched, absent, extra, ambiguous), ``lines`` writes the prediction
lines, ``theirs`` sets the framework's own verdicts beside GroundBench's. All pure; ``run`` is the I/O edge.
docs/importing.md describes each layout, the join key and the edge cases, with their sources.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from groundbench.scoring.imports import lmms_eval, pointerbench, screenspot_pro_eval, vlmevalkit
from groundbench.scoring.imports.source import SourceRow

READERS: dict[str, Callable[[Any, str], list[SourceRow]]] = {
    screenspot_pro_eval.KIND: screenspot_pro_eval.read,
    lmms_eval.KIND: lmms_eval.read,
    vlmevalkit.KIND: vlmevalkit.read,
    pointerbench.KIND: pointerbench.read,
}
KINDS = tuple(READERS)
