"""The published tables' layouts: scored GUI rows in, the official table's rows x columns of cells out.

Pure: :class:`~groundbench.scoring.metrics.Scored` items (after ``expand``: every expected row, a missing or
malformed answer a failure, as the official scripts count ``wrong_format`` and absent rows) in, a
:class:`LayoutTable` per (layout, config) out. A cell is ``k`` correct of ``n`` rows (a rate), or the unweighted
mean of several such rates where the published table averages cells; each has its value in percent and a 95%
bootstrap interval resampled by screenshot (``scoring.bootstrap``). Beside each model's rows the same layout
holds the centre-click baseline (``scoring.gui_rules.centre_click_hit``: a click at the frame's centre scored by
the row's own rule) and, where prediction lines carried the framework's own verdict (``imported.verdict``, see
``scoring.predictions``), that framework's count per cell ("theirs"): ``correct`` is a hit, ``wrong`` and
``wrong_format`` are misses, a row without a verdict is not counted in theirs.

Every rule below is restated from the official code (the sources are named on each layout; docs/scoring.md
has the details). :data:`LAYOUTS` is the registry: ScreenSpot-Pro, ScreenSpot, PointerBench, OSWorld-G and
UI-Vision.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from groundbench.schemas.request_conditions import GUI, base_condition
from groundbench.scoring.bootstrap import cluster_of, mean_of_rates_interval, rate_interval
from groundbench.scoring.gui import target_type
from groundbench.scoring.gui_rules import centre_click_hit
from groundbench.scoring.metrics import Scored, gui_success
from groundbench.scoring.osworld_g import CAPABILITIES, REGION_KINDS, UNCLASSIFIED, box_type, capability_groups

Row = Mapping[str, Any]
Key = tuple[str, str, str]  # (model, example_id, condition): how a prediction line names its row
BASELINE = "centre-click"  # the label of the baseline's block of rows
THEIR_VERDICTS = {"correct": True, "wrong": False, "wrong_format": False}  # imported.verdict -> hit


@dataclass(frozen=True)
class Item:
    """One scored row as a layout sees it: where it belongs, and whether it was a hit (ours, theirs)."""

    config: str
    row: Row
    hit: bool
    theirs: bool | None = None  # the framework's own verdict; None: it gave none for this row


Select = Callable[[Item], bool]


@dataclass(frozen=True)
class CellRule:
    """One published cell: the rate over the rows ``parts[0]`` selects, or (several parts) the unweighted mean
    of each part's rate, as the published table averages cells."""

    column: str
    parts: tuple[Select, ...]


@dataclass(frozen=True)
class RowRule:
    label: str
    cells: tuple[CellRule, ...]


@dataclass(frozen=True)
class Layout:
    name: str
    title: str
    configs: tuple[str, ...]  # the configs whose rows it reads
    columns: tuple[str, ...]  # the published columns, in order
    decimals: int  # the published rounding (percent with this many decimals)
    rows: Callable[[Sequence[Item]], list[RowRule]]  # the table's rows for the rows at hand
    sources: tuple[str, ...]  # where each rule comes from (repository@commit:path, or the paper's table)
    per_config: bool = True  # one table per config (ScreenSpot v1 and v2 apart); False: one over all its configs


# --- the cells ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Count:
    """The framework's own count of a cell ("theirs"): k hits of the n rows it gave a verdict on."""

    k: int | None
    n: int
    value: float | None  # percent

    def to_dict(self) -> dict[str, Any]:
        return {"k": self.k, "n": self.n, "value": self.value}


@dataclass(frozen=True)
class Cell:
    column: str
    k: int | None  # hits; None for a mean of rates
    n: int  # rows counted (for a mean of rates: over all its parts)
    value: float | None  # percent; None when a part has no row (the official scripts would print 0 there)
    ci_low: float | None
    ci_high: float | None
    parts: int = 1  # how many rates the value averages
    theirs: Count | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "k": self.k,
            "n": self.n,
            "value": self.value,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
        }
        if self.parts != 1:
            out["parts"] = self.parts
        if self.theirs is not None:
            out["theirs"] = self.theirs.to_dict()
        return out

    @classmethod
    def from_dict(cls, column: str, data: Mapping[str, Any]) -> Cell:
        theirs = data.get("theirs")
        return cls(
            column,
            data.get("k"),
            int(data["n"]),
            data.get("value"),
            data.get("ci_low"),
            data.get("ci_high"),
            int(data.get("parts", 1)),
            None if theirs is None else Count(theirs.get("k"), int(theirs["n"]), theirs.get("value")),
        )


@dataclass(frozen=True)
class TableRow:
    label: str
    cells: dict[str, Cell]  # column -> cell; a column the row has no cell in is absent

    def to_dict(self) -> dict[str, Any]:
        return {"row": self.label, "cells": {c: cell.to_dict() for c, cell in self.cells.items()}}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TableRow:
        cells = data["cells"]
        return cls(str(data["row"]), {str(c): Cell.from_dict(str(c), v) for c, v in cells.items()})


@dataclass(frozen=True)
class LayoutTable:
    """One layout over one config (or over all its configs): each model's rows and the baseline's."""

    layout: str
    configs: tuple[str, ...]
    models: dict[str, list[TableRow]]
    baseline: list[TableRow]
    theirs: bool = False  # does any model's cell carry the framework's own count?

    def to_dict(self) -> dict[str, Any]:
        return {
            "layout": self.layout,
            "configs": list(self.configs),
            "models": {m: [r.to_dict() for r in rows] for m, rows in self.models.items()},
            "baseline": [r.to_dict() for r in self.baseline],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LayoutTable:
        models = {str(m): [TableRow.from_dict(r) for r in rows] for m, rows in data["models"].items()}
        theirs = any(c.theirs is not None for rows in models.values() for r in rows for c in r.cells.values())
        baseline = [TableRow.from_dict(r) for r in data["baseline"]]
        return cls(str(data["layout"]), tuple(data["configs"]), models, baseline, theirs)


def _percent(value: float | None) -> float | None:
    return None if value is None else 100.0 * value


def _rate(hits: Sequence[bool]) -> float | None:
    return sum(hits) / len(hits) if hits else None


def _theirs(parts: Sequence[Sequence[Item]]) -> Count | None:
    """The framework's count over the same parts, from the rows it gave a verdict on; None when it gave none."""
    judged = [[i.theirs for i in part if i.theirs is not None] for part in parts]
    if not any(judged):
        return None
    if len(parts) == 1:
        return Count(sum(judged[0]), len(judged[0]), _percent(_rate(judged[0])))
    rates = [_rate(j) for j in judged]
    value = None if any(r is None for r in rates) else sum(r for r in rates if r is not None) / len(rates)
    return Count(None, sum(len(j) for j in judged), _percent(value))


def cell(rule: CellRule, items: Sequence[Item], seed: int, resamples: int) -> Cell:
    parts = [[i for i in items if keep(i)] for keep in rule.parts]
    n = sum(len(p) for p in parts)
    theirs = _theirs(parts)
    if len(parts) == 1:
        (members,) = parts
        low, high = rate_interval(((cluster_of(i.row), float(i.hit)) for i in members), seed, resamples)
        k = sum(i.hit for i in members)
        return Cell(
            rule.column, k, n, _percent(_rate([i.hit for i in members])), _percent(low), _percent(high), 1, theirs
        )
    rates = [_rate([i.hit for i in p]) for p in parts]
    if any(r is None for r in rates):
        return Cell(rule.column, None, n, None, None, None, len(parts), theirs)
    outcomes = ((cluster_of(i.row), index, float(i.hit)) for index, p in enumerate(parts) for i in p)
    low, high = mean_of_rates_interval(outcomes, len(parts), seed, resamples)
    value = sum(r for r in rates if r is not None) / len(rates)
    return Cell(rule.column, None, n, _percent(value), _percent(low), _percent(high), len(parts), theirs)


def table_rows(layout: Layout, items: Sequence[Item], seed: int, resamples: int) -> list[TableRow]:
    return [
        TableRow(rule.label, {c.column: cell(c, items, seed, resamples) for c in rule.cells})
        for rule in layout.rows(items)
    ]


# --- from scored rows ---------------------------------------------------------------------------------------


def their_verdict(line: Any) -> tuple[Key, bool | None] | None:
    """(the row a prediction line names, the framework's verdict on it) when the line carries ``imported``."""
    if type(line) is dict and line.get("imported") is None:
        return None  # most lines: no verdict of their own (the general checks below give the same)
    if not isinstance(line, Mapping) or not isinstance(line.get("imported"), Mapping):
        return None
    key = (str(line.get("model")), str(line.get("example_id")), str(line.get("condition")))
    return key, THEIR_VERDICTS.get(str(line["imported"].get("verdict")))


def layout_tables(
    layout: Layout,
    scored: Iterable[Scored],
    theirs: Mapping[Key, bool | None] | None = None,
    seed: int = 0,
    resamples: int = 1000,
) -> list[LayoutTable]:
    """The layout's tables over the scored GUI rows of its configs (none when none was scored)."""
    tables = LayoutTables(layout, theirs, seed, resamples)
    by_model: dict[str, list[Scored]] = defaultdict(list)
    for s in scored:
        by_model[s.model].append(s)
    for model, items in sorted(by_model.items()):
        tables.add(model, items)
    return tables.tables()


class LayoutTables:
    """:func:`layout_tables`, fed one model's scored items at a time (each model once, in sorted order): a model's
    rows are made into its table rows when given and let go; the baseline's rows are kept, once each."""

    def __init__(
        self, layout: Layout, theirs: Mapping[Key, bool | None] | None = None, seed: int = 0, resamples: int = 1000
    ) -> None:
        self.layout, self.theirs, self.seed, self.resamples = layout, theirs or {}, seed, resamples
        self._groups = [(c,) for c in layout.configs] if layout.per_config else [layout.configs]
        self._models: list[dict[str, list[TableRow]]] = [{} for _ in self._groups]
        self._baseline: list[dict[str, Item]] = [{} for _ in self._groups]  # example id -> the first model's item
        self._judged = [False for _ in self._groups]  # did any model's item carry the framework's verdict?

    def add(self, model: str, scored: Iterable[Scored]) -> None:
        found = []
        for s in scored:
            if s.config in self.layout.configs and base_condition(s.condition) == GUI:
                verdict = self.theirs.get((s.model, str(s.row["example_id"]), s.condition))
                found.append(Item(s.config, s.row, gui_success(s.answer, s.row), verdict))
        for at, configs in enumerate(self._groups):
            items = [i for i in found if i.config in configs]
            if not items:
                continue
            self._models[at][model] = table_rows(self.layout, items, self.seed, self.resamples)
            for i in items:
                self._baseline[at].setdefault(str(i.row["example_id"]), i)
            self._judged[at] = self._judged[at] or any(i.theirs is not None for i in items)

    def tables(self) -> list[LayoutTable]:
        out = []
        for configs, models, seen, judged in zip(self._groups, self._models, self._baseline, self._judged, strict=True):
            if not models:
                continue
            rows = [seen[k] for k in sorted(seen)]
            baseline = [Item(i.config, i.row, centre_click_hit(i.row)) for i in rows]
            scored_configs = tuple(c for c in configs if any(i.config == c for i in rows))
            baseline_rows = table_rows(self.layout, baseline, self.seed, self.resamples)
            out.append(LayoutTable(self.layout.name, scored_configs, models, baseline_rows, judged))
        return out


# --- the layouts --------------------------------------------------------------------------------------------


def _gui(item: Item, name: str) -> str | None:
    value = ((item.row.get("extras") or {}).get("gui") or {}).get(name)
    return None if value is None else str(value)


def _ui_type(item: Item) -> str | None:
    """ScreenSpot-Pro's ``ui_type``; the ScreenSpot v1/v2 originals call it ``data_type``."""
    return _gui(item, "ui_type") or _gui(item, "data_type")


def _all(_: Item) -> bool:
    return True


def _both(a: Select, b: Select) -> Select:
    return lambda i: a(i) and b(i)


def _field_is(read: Callable[[Item], str | None], value: str) -> Select:
    return lambda i: read(i) == value


TEXT: Select = _field_is(_ui_type, "text")
ICON: Select = _field_is(_ui_type, "icon")


def _text_icon_avg(keep: Select) -> tuple[CellRule, ...]:
    """ScreenSpot-Pro's ``calc_metric_for_result_list``: ``text_acc`` over the rows with ``ui_type == "text"``,
    ``icon_acc`` over those with ``ui_type == "icon"``, ``action_acc`` over every row (a wrong_format row counts
    in each denominator as a miss)."""
    return (
        CellRule("Text", (_both(keep, TEXT),)),
        CellRule("Icon", (_both(keep, ICON),)),
        CellRule("Avg", (keep,)),
    )


# The official leaderboard's order (leaderboard_submission.ipynb: group_names), each group Text / Icon / Avg.
PRO_GROUPS = ("Dev", "Creative", "CAD", "Scientific", "Office", "OS")


def _pro_groups(items: Sequence[Item]) -> list[RowRule]:
    found = {_gui(i, "group") for i in items} - {None}
    groups = [*PRO_GROUPS, *sorted(g for g in found if g is not None and g not in PRO_GROUPS)]
    rows = [RowRule(g, _text_icon_avg(_field_is(lambda i: _gui(i, "group"), g))) for g in groups]
    return [*rows, RowRule("Overall", _text_icon_avg(_all))]


def _pro_applications(items: Sequence[Item]) -> list[RowRule]:
    apps = sorted({a for a in (_gui(i, "application") for i in items) if a is not None})
    rows = [RowRule(a, _text_icon_avg(_field_is(lambda i: _gui(i, "application"), a))) for a in apps]
    return [*rows, RowRule("Overall", _text_icon_avg(_all))]


SPLITS = (("Mobile", "mobile"), ("Desktop", "desktop"), ("Web", "web"))


def _split(item: Item) -> str | None:
    return _gui(item, "split")


def _is_text(item: Item) -> bool:
    return _ui_type(item) == "text"


def _not_text(item: Item) -> bool:
    return _ui_type(item) != "text"  # SeeClick's screenspot_test.py: every non-text row is an icon/widget row


def _screenspot_rows(_: Sequence[Item]) -> list[RowRule]:
    rows = []
    six: list[Select] = []
    for label, split in SPLITS:
        in_split = _field_is(_split, split)
        text, icon = _both(in_split, _is_text), _both(in_split, _not_text)
        six += [text, icon]
        rows.append(
            RowRule(label, (CellRule("Text", (text,)), CellRule("Icon", (icon,)), CellRule("Avg", (in_split,))))
        )
    overall = (
        CellRule("Text", (_is_text,)),
        CellRule("Icon", (_not_text,)),
        CellRule("Avg", (_all,)),
        CellRule("Mean of 6", tuple(six)),
    )
    return [*rows, RowRule("Overall", overall)]


SUITES = (("PointerBench-Sheets", "gui_sheets"), ("PointerBench-Text", "gui_text"), ("PointerBench-Pro", "gui_pro"))


def _pointerbench_rows(items: Sequence[Item]) -> list[RowRule]:
    rows = []
    suites: list[Select] = []
    for label, config in SUITES:
        members = [i for i in items if i.config == config]
        if not members:
            continue
        in_suite = _field_is(lambda i: i.config, config)
        suites.append(in_suite)
        rows.append(RowRule(label, (CellRule("Accuracy", (in_suite,)),)))
        for kind in sorted({target_type(i.row) for i in members}):  # eval.py: sorted(by[axis].items())
            keep = _both(in_suite, _field_is(lambda i: target_type(i.row), kind))
            rows.append(RowRule(f"{label} / {kind}", (CellRule("Accuracy", (keep,)),)))
    if suites:
        rows.append(RowRule("Mean of suites", (CellRule("Accuracy", tuple(suites)),)))
    return rows


# OSWorld-G: the Jedi paper's table (one row per model: the five capabilities, then overall), then the same
# columns over each box_type's rows; a capability counts every row its group lists (a row in two groups counts in
# both), so the capability columns need not add up to overall, as in the release's tally.
CAPABILITY_COLUMNS = (
    "Text Matching",
    "Element Recognition",
    "Layout Understanding",
    "Fine-grained Manipulation",
    "Refusal",
)
OSWORLD_G_CONFIG = "gui_osworld_g"
OSWORLD_G_REFINED_CONFIG = "gui_osworld_g_refined"  # the same rows asked with the refined instructions


def _in_group(group: str) -> Select:
    return lambda i: group in capability_groups(i.row)


def _osworld_g_cells(keep: Select, items: Sequence[Item], every: bool = False) -> tuple[CellRule, ...]:
    """Each capability over the rows ``keep`` selects (``every``: all five, as published; else only the groups
    with such rows), then Overall."""
    cells = [
        CellRule(column, (_both(keep, _in_group(group)),))
        for column, group in zip(CAPABILITY_COLUMNS, CAPABILITIES, strict=True)
        if every or any(keep(i) and group in capability_groups(i.row) for i in items)
    ]
    return (*cells, CellRule("Overall", (keep,)))


def _osworld_g_rows(items: Sequence[Item]) -> list[RowRule]:
    rows = [RowRule("All", _osworld_g_cells(_all, items, every=True))]
    for kind in REGION_KINDS:  # bbox, polygon, refusal: the release's box_type
        keep = _field_is(lambda i: box_type(i.row), kind)
        if any(keep(i) for i in items):
            rows.append(RowRule(f"box_type {kind}", _osworld_g_cells(keep, items)))
    unlisted = _field_is(lambda i: capability_groups(i.row)[0], UNCLASSIFIED)
    if any(unlisted(i) for i in items):  # in no group: counted in Overall only, as the published table has them
        rows.append(RowRule("in no group", (CellRule("Overall", (unlisted,)),)))
    return rows


# UI-Vision element grounding: its README's table (Basic, Functional, Spatial overall, Final Avg = their unweighted
# mean), each kind also per category (the paper's columns, here rows, so a release's categories need no fixed list).
UI_VISION_KINDS = (("Basic", "basic"), ("Functional", "functional"), ("Spatial", "spatial"))
UI_VISION_CONFIG = "gui_ui_vision"


def _ui_vision_rows(items: Sequence[Item]) -> list[RowRule]:
    kinds = {label: _field_is(lambda i: _gui(i, "subset"), subset) for label, subset in UI_VISION_KINDS}
    rows = []
    for category in sorted({c for c in (_gui(i, "category") for i in items) if c is not None}):
        in_category = _field_is(lambda i: _gui(i, "category"), category)
        rows.append(RowRule(category, tuple(CellRule(k, (_both(keep, in_category),)) for k, keep in kinds.items())))
    overall = tuple(CellRule(k, (keep,)) for k, keep in kinds.items())
    return [*rows, RowRule("Overall", (*overall, CellRule("Final Avg", tuple(kinds.values()))))]


SCREENSPOT_PRO_SOURCE = "likaixin2000/ScreenSpot-Pro-GUI-Grounding@bd8bbbb:eval_screenspot_pro.py"
LAYOUTS: dict[str, Layout] = {
    "screenspot-pro": Layout(
        name="screenspot-pro",
        title="ScreenSpot-Pro (leaderboard_simple_style and overall)",
        configs=("gui_screenspot_pro",),
        columns=("Text", "Icon", "Avg"),
        decimals=1,
        rows=_pro_groups,
        sources=(
            f"{SCREENSPOT_PRO_SOURCE}: evaluate_leaderboard_simple_style (per group), evaluate_overall, "
            "calc_metric_for_result_list (text_acc, icon_acc, action_acc: micro rates, wrong_format a miss)",
            "likaixin2000/ScreenSpot-Pro-GUI-Grounding@bd8bbbb:leaderboard_submission.ipynb: the leaderboard's groups "
            "Dev, Creative, CAD, Scientific, Office, OS, each text / icon / avg, and overall; percent with one decimal "
            "as the ScreenSpot-Pro paper prints it",
        ),
    ),
    "screenspot-pro-apps": Layout(
        name="screenspot-pro-apps",
        title="ScreenSpot-Pro per application (leaderboard_detailed_style and overall)",
        configs=("gui_screenspot_pro",),
        columns=("Text", "Icon", "Avg"),
        decimals=1,
        rows=_pro_applications,
        sources=(
            f"{SCREENSPOT_PRO_SOURCE}: evaluate_leaderboard_detailed_style (per application), evaluate_overall; "
            "leaderboard_submission.ipynb: each application text / icon / avg; percent with one decimal",
        ),
    ),
    "screenspot": Layout(
        name="screenspot",
        title="ScreenSpot (v1 / v2)",
        configs=("gui_screenspot", "gui_screenspot_v2"),
        columns=("Text", "Icon", "Avg", "Mean of 6"),
        decimals=1,
        rows=_screenspot_rows,
        sources=(
            "njucckevin/SeeClick@0ef37ac:pretrain/screenspot_test.py: per split (mobile, desktop, web) Text Acc and "
            "Icon Acc (every non-text row an icon/widget row) and Action Acc (micro), wrong format a miss",
            f"{SCREENSPOT_PRO_SOURCE}: evaluate_overall's action_acc, the micro rate over every row (Avg of Overall)",
            "SeeClick paper table (njucckevin/SeeClick@0ef37ac:assets/screenspot_result.png) and "
            "OSU-NLP-Group/UGround@3a9b9f2:offline_evaluation/ScreenSpot/eval.py: Average = the unweighted mean of "
            "the six split x type cells (Mean of 6); percent with one decimal",
        ),
    ),
    "pointerbench": Layout(
        name="pointerbench",
        title="PointerBench (per suite, per data type, mean of suites)",
        configs=tuple(config for _, config in SUITES),
        columns=("Accuracy",),
        decimals=2,
        rows=_pointerbench_rows,
        sources=(
            "warmwindOS/pointerbench@2a112ed:pointerbench-{sheets,text,pro}/eval.py: accuracy = hits / n over every "
            "row (a missing or unreadable prediction a miss), by_data_type (Pro: by_element_type, 'By target type'), "
            "printed as percent with two decimals",
            "Mean of suites: GroundBench's gui_success_mean_of_suites (scoring/metrics.py), the unweighted mean of "
            "the suites' accuracies",
        ),
        per_config=False,
    ),
    "osworld-g": Layout(
        name="osworld-g",
        title="OSWorld-G (by capability; the same by box_type)",
        configs=(OSWORLD_G_CONFIG, OSWORLD_G_REFINED_CONFIG),  # one table each (OSWorld-G, OSWorld-G-refined)
        columns=(*CAPABILITY_COLUMNS, "Overall"),
        decimals=1,
        rows=_osworld_g_rows,
        sources=(
            "xlang-ai/OSWorld-G: evaluation/eval.py GroundingEval._eval (as its scripts call it; restated in "
            "scoring/osworld_g.py): bbox edges in, polygon half-open ray casting, a refusal row right only on a click "
            "below 0 on both axes (or a declared format's refusal), an unreadable answer a miss",
            "xlang-ai/OSWorld-G: classification_result.json's groups (text_matching, element_recognition, "
            "layout_understanding, fine_grained_manipulation, refusal), a row counted in every group listing it; "
            "the Jedi paper's OSWorld-G table (those five and Overall, percent with one decimal)",
        ),
    ),
    "ui-vision": Layout(
        name="ui-vision",
        title="UI-Vision element grounding (per instruction kind and category; Final Avg)",
        configs=(UI_VISION_CONFIG,),
        columns=(*(label for label, _ in UI_VISION_KINDS), "Final Avg"),
        decimals=2,
        rows=_ui_vision_rows,
        sources=(
            "uivision/UI-Vision: eval/grounding/eval_uivision.py eval_sample_positive_gt (the click in the box, "
            "reversed corners swapped, edges in), accuracy over every row of each element_grounding_{basic,"
            "functional,spatial}.json",
            "uivision/UI-Vision README's element grounding table: Basic, Functional, Spatial overall and Final Avg "
            "(their unweighted mean), percent with two decimals; the paper's categories from "
            "mapdict_cat2platform.json (a row whose application no category lists is in its kind's overall only)",
        ),
    ),
}
