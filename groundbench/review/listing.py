"""``groundbench list``: what there is to ask, as sections of rows (a title, column names, rows of text).

Each section is one entry of :data:`SECTIONS`; a new kind of name (answer formats, profiles, ...) is one more
entry there, and ``groundbench list`` shows it, by itself (``groundbench list NAME``) or with the others.
A section reads the published folder only when it needs it (``folder`` is called then), so ``groundbench list
conditions`` works without data. Pure but for that read: sections in, rows out; the command renders them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from groundbench.loaders.published import published_configs, read_config
from groundbench.schemas.baselines_features import BASELINES_CONFIG
from groundbench.schemas.conditions import CONDITIONS
from groundbench.schemas.request_conditions import (
    BASE_CONDITIONS,
    COUNTERFACTUAL,
    FREE_FORM,
    GUI,
    TEXT_ONLY_SUFFIX,
    conditions_of,
)

Folder = Callable[[], Path]  # the published folder, resolved when a section first needs it
ROW_COLUMNS = ("stratum", "excluded", "conditions", "original_target_part_id")
# What the three request kinds beyond the six design conditions ask (schemas/request_conditions.py).
EXTRA_MEANING = {
    COUNTERFACTUAL: "a re-ask: the requested (not the original) target named, as part_named names it",
    FREE_FORM: "part_named, answered in prose; scored by keywords (scoring/keywords.yaml)",
    GUI: "a GUI suite row: its instruction, answered with a point or a box",
}


@dataclass(frozen=True)
class Section:
    name: str
    title: str
    columns: tuple[str, ...]
    rows: Callable[[Folder], list[tuple[str, ...]]]


def config_rows(folder: Folder) -> list[tuple[str, ...]]:
    """One row per record config of the folder: stratum, rows, excluded rows, the conditions some
    included row is valid under (each with how many rows)."""
    root = folder()
    out: list[tuple[str, ...]] = []
    for name in published_configs(root):
        if name == BASELINES_CONFIG:
            continue
        rows = read_config(root, name, list(ROW_COLUMNS)).to_pylist()
        valid = Counter(condition for row in rows for condition in conditions_of(row))
        strata = sorted({str(row["stratum"]) for row in rows})
        conditions = ", ".join(f"{c} ({valid[c]})" for c in BASE_CONDITIONS if valid[c])
        excluded = sum(bool(row["excluded"]) for row in rows)
        out.append((name, "/".join(strata), str(len(rows)), str(excluded), conditions or "none"))
    return out


def condition_rows(folder: Folder) -> list[tuple[str, ...]]:
    """Every condition a request can name, what its prompt supplies besides the image, and its text-only form."""
    out: list[tuple[str, ...]] = []
    for name in BASE_CONDITIONS:
        if name in CONDITIONS:
            supplied = ", ".join(sorted(CONDITIONS[name])) or "nothing but the image"
        else:
            supplied = EXTRA_MEANING[name]
        out.append((name, supplied, "—" if name == GUI else f"{name}{TEXT_ONLY_SUFFIX}"))
    return out


SECTIONS: tuple[Section, ...] = (
    Section(
        "configs",
        "configs of the published folder (rows valid per condition in brackets; strata are never pooled)",
        ("config", "stratum", "rows", "excluded", "conditions"),
        config_rows,
    ),
    Section(
        "conditions",
        "conditions (--condition): what the prompt supplies besides the image; the text-only control",
        ("condition", "supplies", "text-only control"),
        condition_rows,
    ),
)
NAMES: tuple[str, ...] = tuple(section.name for section in SECTIONS)


def chosen(names: Sequence[str]) -> list[Section]:
    """The sections named (every section when none is), in :data:`SECTIONS` order."""
    return [s for s in SECTIONS if not names or s.name in names]
