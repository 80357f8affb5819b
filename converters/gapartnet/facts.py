"""What the GAPartNet folder adds to its configs' card facts (its spec's ``facts``): the annotated parts
each object leaves out of the bulk stratum (``extras.gapartnet.left_out``), and on the re-ask configs
(rows with ``extras.reask``) their rows, pairs and transitions per object and the frozen pool."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

MISSING = "(none)"  # printed for a null transition


@dataclass
class ReaskCard:
    """Re-ask facts of a counterfactual or contrast config (rows with ``extras.reask``)."""

    rows_per_object: dict[str, int] = field(default_factory=dict)  # object id -> rows (sorted by id)
    informative_per_object: dict[str, int] = field(default_factory=dict)
    excluded_per_object: dict[str, int] = field(default_factory=dict)
    informative: int = 0
    transitions: dict[str, int] = field(default_factory=dict)  # "orig→requested" -> rows
    pool_transitions: dict[str, int] = field(default_factory=dict)  # the same over non-excluded rows
    pool_objects: int = 0  # the frozen pool: objects and pairs (rows) not excluded
    pool_pairs: int = 0

    @property
    def rows(self) -> int:
        return sum(self.rows_per_object.values())

    @property
    def informative_share(self) -> float | None:
        return self.informative / self.rows if self.rows else None


def _count(counter: Counter[str]) -> dict[str, int]:
    """Largest count first, ties by name: a stable order for the tables."""
    return dict(sorted(counter.items(), key=lambda item: (-item[1], item[0])))


def reask_card(reasks: list[tuple[str, bool, dict]]) -> ReaskCard:
    """(object id, excluded, extras.reask) of every re-ask row -> its card facts."""
    card = ReaskCard()
    rows: Counter[str] = Counter()
    informative: Counter[str] = Counter()
    excluded: Counter[str] = Counter()
    transitions: Counter[str] = Counter()
    pool: Counter[str] = Counter()
    pool_objects: set[str] = set()
    for object_id, is_excluded, reask in reasks:
        rows[object_id] += 1
        informative[object_id] += bool(reask["informative"])
        excluded[object_id] += is_excluded
        transitions[reask["transition"] or MISSING] += 1
        if not is_excluded:
            pool[reask["transition"] or MISSING] += 1
            pool_objects.add(object_id)
    card.rows_per_object = dict(sorted(rows.items()))
    card.informative_per_object = {o: informative[o] for o in card.rows_per_object}
    card.excluded_per_object = {o: excluded[o] for o in card.rows_per_object}
    card.informative = sum(informative.values())
    card.transitions = _count(transitions)
    card.pool_transitions = _count(pool)
    card.pool_objects = len(pool_objects)
    card.pool_pairs = sum(pool.values())
    return card


class GapartnetFacts:
    """``left_out`` (object id -> reason -> the annotated GAParts without a bulk row) for every config of the
    folder; on re-ask configs also ``reask`` (a :class:`ReaskCard`) and ``row_kind``
    (``groundbench.core.spec.CardFacts``)."""

    columns = ("object_id", "excluded", "extras")

    def __init__(self) -> None:
        self.left_out: dict[str, dict[str, set[str]]] = {}
        self.reasks: list[tuple[str, bool, dict]] = []  # (object id, excluded, extras.reask)

    def add(self, batch: pa.RecordBatch) -> None:
        extras = batch.column("extras")
        objects = batch.column("object_id").to_pylist()
        left_out = extras.field("gapartnet").field("left_out").to_pylist()
        reasks = extras.field("reask").to_pylist()
        excluded = batch.column("excluded").to_pylist()
        for object_id, parts, reask, is_excluded in zip(objects, left_out, reasks, excluded, strict=True):
            for part in parts or []:
                self.left_out.setdefault(str(object_id), {}).setdefault(part["reason"], set()).add(part["part_id"])
            if reask is not None:
                self.reasks.append((str(object_id), bool(is_excluded), reask))

    def facts(self) -> dict[str, Any]:
        left_out = {
            o: {reason: sorted(parts) for reason, parts in sorted(reasons.items())}
            for o, reasons in sorted(self.left_out.items())
        }
        if not self.reasks:
            return {"left_out": left_out}
        return {"left_out": left_out, "reask": reask_card(self.reasks), "row_kind": "Re-ask"}
