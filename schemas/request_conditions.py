"""The conditions a request or a prediction can name, and what each one supplies as text.

The six design conditions come from ``conditions.py`` (this package). Three more request kinds reuse them:

- ``counterfactual``: the re-ask of a counterfactual/contrast row; its prompt names the requested
  (non-canonical) target exactly like ``part_named`` does, so it supplies the same text;
- ``part_named_free_form``: ``part_named`` with a free-prose answer (paper section 3.5);
- ``gui``: a GUI suite row, prompted with its own instruction and success rule;

and any non-GUI condition can be suffixed ``/text_only``: the same prompt with the image withheld
(paper section 4.2), which supplies exactly the same text as its base condition.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from groundbench.errors import GroundBenchError, unknown_name
from groundbench.schemas.conditions import ALL_CONDITIONS, CONDITIONS

TEXT_ONLY_SUFFIX = "/text_only"
COUNTERFACTUAL = "counterfactual"
FREE_FORM = "part_named_free_form"
GUI = "gui"
EXTRA_CONDITIONS: tuple[str, ...] = (COUNTERFACTUAL, FREE_FORM, GUI)
BASE_CONDITIONS: tuple[str, ...] = (*ALL_CONDITIONS, *EXTRA_CONDITIONS)

# Scored as task-free discovery (paper 3.1): no goal and no target is supplied, so any annotated part
# whose action is defined is a valid selection and the action is checked against that part's own.
TASK_FREE: frozenset[str] = frozenset({"image_only", "object_named"})

# The categorical text fields a condition hands the model (the keys of the text-only blind bound).
# Never coordinates or axes: a lookup keyed on unique numbers would only memorise the data.
_IDENTITY = ("object_category", "target_part_id", "target_category")
SUPPLIED_TEXT_KEYS: dict[str, tuple[str, ...]] = {
    "image_only": (),
    "object_named": ("object_category",),
    "part_named": _IDENTITY,
    "localization_only": ("object_category",),  # the region is supplied, but only as coordinates
    "localization_shown": _IDENTITY,
    "mechanics_shown": (*_IDENTITY, "target_joint_type"),  # the motion axis is numbers: not a key
    COUNTERFACTUAL: _IDENTITY,
    FREE_FORM: _IDENTITY,
}


def base_condition(condition: str) -> str:
    return condition.removesuffix(TEXT_ONLY_SUFFIX)


def is_text_only(condition: str) -> bool:
    return condition.endswith(TEXT_ONLY_SUFFIX)


@lru_cache(maxsize=1024)  # asked for every prediction line score reads, of a few condition names
def is_known(condition: str) -> bool:
    base = base_condition(condition)
    return base in BASE_CONDITIONS and not (is_text_only(condition) and base == GUI)


# Said after the list of conditions in an unknown-condition error: the names the suffix makes.
TEXT_ONLY_NAMES = f"; and each but {GUI} + '{TEXT_ONLY_SUFFIX}'"


def unknown_condition(where: str, condition: str) -> GroundBenchError:
    """The unknown-name error of a condition, listing every condition (``where``: what named it)."""
    text_only = [f"{c}{TEXT_ONLY_SUFFIX}" for c in BASE_CONDITIONS if c != GUI]
    return unknown_name(where, "condition", condition, BASE_CONDITIONS, TEXT_ONLY_NAMES, close_to=text_only)


def check_condition(condition: str, where: str) -> str:
    """``condition`` when known, else :func:`unknown_condition`."""
    if not is_known(condition):
        raise unknown_condition(where, condition)
    return condition


def supplies_region(condition: str) -> bool:
    base = base_condition(condition)
    return base in CONDITIONS and "target_region" in CONDITIONS[base]


def supplies_identity(condition: str) -> bool:
    base = base_condition(condition)
    if base in (COUNTERFACTUAL, FREE_FORM):
        return True
    return base in CONDITIONS and "target_identity" in CONDITIONS[base]


def supplied_keys(condition: str) -> tuple[str, ...]:
    return SUPPLIED_TEXT_KEYS[base_condition(condition)]


def row_allows(row: Mapping[str, Any], condition: str) -> bool:
    """May this row be requested/scored under ``condition``? (Excluded rows never are.)"""
    if row.get("excluded"):
        return False
    base = base_condition(condition)
    suite = row.get("stratum") == "suite"
    if base == GUI:
        return suite and not is_text_only(condition)
    if suite:
        return False
    if base == COUNTERFACTUAL:
        return row.get("original_target_part_id") is not None
    if base == FREE_FORM:
        return "part_named" in (row.get("conditions") or [])
    return base in (row.get("conditions") or [])


def conditions_of(row: Mapping[str, Any]) -> list[str]:
    """Every base condition this row can be scored under (text-only variants not listed)."""
    return [c for c in BASE_CONDITIONS if row_allows(row, c)]


def no_valid_rows(config: str, condition: str, valid: Iterable[str]) -> GroundBenchError:
    """The error for a (config, condition) none of whose rows may be asked, naming the conditions the config's
    rows are valid under (``valid``: the :func:`conditions_of` its rows, as ``groundbench list`` shows them)."""
    found = [c for c in BASE_CONDITIONS if c in set(valid)]
    names = f"its rows are valid under {', '.join(found)}" if found else "none of its rows is valid under any"
    return GroundBenchError(
        config, "condition", f"no row of {config} is valid under {condition} ({names}; see groundbench list)"
    )
