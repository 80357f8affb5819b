"""``groundbench list``: what there is to ask, as sections of rows (a title and one dict per row).

Each section is one entry of :data:`SECTIONS`; a new kind of name is one more entry there, e.g.
``Section("formats", "answer formats (--answer-format)", lambda _: formats.listing())`` for a module whose
``listing()`` gives one dict per name, and ``groundbench list`` shows it, by itself (``groundbench list
NAME``) or with the others.
A section reads the published folder only when it needs it (``folder`` is called then), so ``groundbench list
conditions`` works without data. Pure but for that read: sections in, rows out; the command renders them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
from groundbench.scoring import formats, profiles

Folder = Callable[[], Path]  # the published folder, resolved when a section first needs it
Rows = list[dict[str, Any]]  # one dict per row, the same keys in each (the columns, in order)
ROW_COLUMNS = ("stratum", "excluded", "conditions", "original_target_part_id")
# What the three request kinds beyond the six design conditions ask (schemas/request_conditions.py).
EXTRA_MEANING = {
    COUNTERFACTUAL: "a re-ask: the requested (not the original) target named, as part_named names it",
    FREE_FORM: "part_named, answered in prose; scored by keywords (scoring/keywords.yaml)",
    GUI: "a GUI suite row: its instruction, answered with a point or a box",
}


@dataclass(frozen=True)
class Section:
    """A kind of name: ``rows(folder)`` lists them (a module's ``listing()`` of dicts plugs in as it is)."""

    name: str
    title: str
    rows: Callable[[Folder], Rows]


def config_rows(folder: Folder) -> Rows:
    """One row per record config of the folder: stratum, rows, excluded rows, and the conditions some
    included row is valid under, each with how many rows."""
    root = folder()
    out = []
    for name in published_configs(root):
        if name == BASELINES_CONFIG:
            continue
        rows = read_config(root, name, list(ROW_COLUMNS)).to_pylist()
        valid = Counter(condition for row in rows for condition in conditions_of(row))
        out.append(
            {
                "config": name,
                "stratum": "/".join(sorted({str(row["stratum"]) for row in rows})),
                "rows": len(rows),
                "excluded": sum(bool(row["excluded"]) for row in rows),
                "conditions": {c: valid[c] for c in BASE_CONDITIONS if valid[c]},
            }
        )
    return out


def condition_rows(folder: Folder) -> Rows:
    """Every condition a request can name, what its prompt supplies besides the image, and its text-only form."""
    return [
        {
            "condition": name,
            "supplies": (", ".join(sorted(CONDITIONS[name])) or "nothing but the image")
            if name in CONDITIONS
            else EXTRA_MEANING[name],
            "text-only control": None if name == GUI else f"{name}{TEXT_ONLY_SUFFIX}",
        }
        for name in BASE_CONDITIONS
    ]


def profile_rows(_: Folder) -> Rows:
    """Each profile without its prompt text (``groundbench profiles`` prints the prompts)."""
    return [{k: v for k, v in entry.items() if k != "gui_prompt"} for entry in profiles.listing()]


SECTIONS: tuple[Section, ...] = (
    Section(
        "configs",
        "configs of rows of the published folder (rows valid per condition; strata are never pooled); its "
        f"{BASELINES_CONFIG} config holds their baseline answers, not rows to ask",
        config_rows,
    ),
    Section("conditions", "conditions (--condition): what the prompt supplies besides the image", condition_rows),
    Section("formats", "answer formats (score --answer-format; a line's answer_format)", lambda _: formats.listing()),
    Section("profiles", "model profiles (eval and requests --profile; prompts: groundbench profiles)", profile_rows),
)
NAMES: tuple[str, ...] = tuple(section.name for section in SECTIONS)


def chosen(names: Sequence[str]) -> list[Section]:
    """The sections named (every section when none is), in :data:`SECTIONS` order."""
    return [s for s in SECTIONS if not names or s.name in names]


def cell(value: Any) -> str:
    """A value as a table shows it: a mapping as ``key: value`` pairs, a list joined, none as a dash."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Mapping):
        return ", ".join(f"{k}: {cell(v)}" for k, v in value.items()) or "—"
    if isinstance(value, (list, tuple)):
        return ", ".join(cell(v) for v in value) or "—"
    return str(value)
