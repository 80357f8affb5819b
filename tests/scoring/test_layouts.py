"""The official table layouts (scoring/layouts.py) on hand-made scored rows: every cell's k / n and value below is
derived by hand from the official rule named beside it, including how each published table averages.

Every row is a 1000 x 800 frame (centre (500, 400)). A hit answer clicks the centre of the row's box; a miss
clicks (1, 1), outside every box; ``missing`` and ``malformed`` answers are failures in the denominator (the
official scripts' absent rows and ``wrong_format``). A row whose box holds the frame's centre is a centre-click
hit: ``CENTRE_BOX``; every other row's box is ``CORNER_BOX`` (bottom right, away from both the centre and (1, 1)).
"""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest

from groundbench.commands.options import LAYOUT_NAMES
from groundbench.scoring.bootstrap import cluster_of, mean_of_rates_interval, rate_interval
from groundbench.scoring.layout_render import View, cell_text, latex, markdown, terminal, to_csv, views
from groundbench.scoring.layouts import LAYOUTS, LayoutTable, layout_tables
from groundbench.scoring.metrics import Scored
from groundbench.scoring.parse import MALFORMED, MISSING, STRICT, Answer

CENTRE_BOX = [450.0, 350.0, 550.0, 450.0]
CORNER_BOX = [800.0, 600.0, 900.0, 700.0]


def gui_row(eid: str, screenshot: str, centre: bool = False, answer_type: str = "point", **gui: Any) -> dict[str, Any]:
    box = CENTRE_BOX if centre else CORNER_BOX
    return {
        "example_id": eid,
        "object_id": screenshot,
        "width": 1000,
        "height": 800,
        "answer_type": answer_type,
        "target_part_id": "t",
        "parts": [{"part_id": "t", "bbox_xyxy": box, "point_xy": None, "category": "x", "action": None}],
        "success_rule": None,
        "extras": {"gui": {"eval_bbox": box, **gui}},
    }


def answer(row: dict[str, Any], outcome: str) -> Answer:
    if outcome == "missing":
        return Answer(status=MISSING)
    if outcome == "malformed":
        return Answer(status=MALFORMED)
    x0, y0, x1, y1 = row["extras"]["gui"]["eval_bbox"]
    if row["answer_type"] == "box":
        box = [x0, y0, x1, y1] if outcome == "hit" else [0.0, 0.0, 2.0, 2.0]
        return Answer(status=STRICT, record={"bbox": box})
    point = [(x0 + x1) / 2, (y0 + y1) / 2] if outcome == "hit" else [1.0, 1.0]
    return Answer(status=STRICT, record={"point": point})


def scored(config: str, specs: list[tuple[str, str, dict[str, Any]]], model: str = "m") -> list[Scored]:
    """(example id, outcome, row fields) -> scored rows of one model; two rows share each screenshot."""
    out = []
    for index, (eid, outcome, fields) in enumerate(specs):
        row = gui_row(f"{config}/{eid}", f"{config}/shot{index // 2}", **fields)
        out.append(Scored(model, config, "gui", row, answer(row, outcome)))
    return out


def cells(table: LayoutTable, model: str = "m") -> dict[tuple[str, str], tuple[int | None, int, float | None]]:
    rows = table.baseline if model == "centre-click" else table.models[model]
    return {(r.label, c): (cell.k, cell.n, cell.value) for r in rows for c, cell in r.cells.items()}


def test_the_cli_names_are_the_registry() -> None:
    assert tuple(LAYOUTS) == LAYOUT_NAMES
    assert {"screenspot-pro", "screenspot", "pointerbench"} <= set(LAYOUTS)  # interfaces.md


# ScreenSpot-Pro (eval_screenspot_pro.py): per group text_acc (ui_type text), icon_acc (ui_type icon) and
# action_acc over every row of the group, micro; overall the same over every row.
#   CAD text: hit, hit, miss            -> 2/3 = 66.7     CAD icon: missing, malformed -> 0/2 = 0.0
#   CAD avg: 2/5 = 40.0 (micro; the mean of text and icon would be 33.3)
#   Dev text: hit -> 1/1 = 100.0; Dev icon: hit, miss, miss -> 1/3 = 33.3; Dev avg 2/4 = 50.0
#   Overall text 3/4 = 75.0, icon 1/5 = 20.0, avg 4/9 = 44.4; Creative ... OS: no rows (n = 0, no value)
PRO = [
    ("cad1", "hit", {"group": "CAD", "ui_type": "text", "application": "autocad", "centre": True}),
    ("cad2", "hit", {"group": "CAD", "ui_type": "text", "application": "autocad"}),
    ("cad3", "miss", {"group": "CAD", "ui_type": "text", "application": "solidworks", "centre": True}),
    ("cad4", "missing", {"group": "CAD", "ui_type": "icon", "application": "solidworks"}),
    ("cad5", "malformed", {"group": "CAD", "ui_type": "icon", "application": "autocad"}),
    ("dev1", "hit", {"group": "Dev", "ui_type": "text", "application": "vscode"}),
    ("dev2", "hit", {"group": "Dev", "ui_type": "icon", "application": "vscode", "centre": True}),
    ("dev3", "miss", {"group": "Dev", "ui_type": "icon", "application": "vscode"}),
    ("dev4", "miss", {"group": "Dev", "ui_type": "icon", "application": "pycharm"}),
]


def test_screenspot_pro_groups_and_overall_as_the_official_script() -> None:
    (table,) = layout_tables(LAYOUTS["screenspot-pro"], scored("gui_screenspot_pro", PRO), resamples=20)
    got = cells(table)
    assert [r.label for r in table.models["m"]] == ["Dev", "Creative", "CAD", "Scientific", "Office", "OS", "Overall"]
    assert got[("CAD", "Text")] == (2, 3, pytest.approx(200 / 3))
    assert got[("CAD", "Icon")] == (0, 2, 0.0)
    assert got[("CAD", "Avg")] == (2, 5, 40.0)
    assert got[("Dev", "Text")] == (1, 1, 100.0)
    assert got[("Dev", "Icon")] == (1, 3, pytest.approx(100 / 3))
    assert got[("Dev", "Avg")] == (2, 4, 50.0)
    assert got[("Overall", "Text")] == (3, 4, 75.0)
    assert got[("Overall", "Icon")] == (1, 5, 20.0)
    assert got[("Overall", "Avg")] == (4, 9, pytest.approx(400 / 9))
    assert got[("Creative", "Avg")] == (0, 0, None)
    # centre click on the same rows: cad1, cad3, dev2 hold the centre
    base = cells(table, "centre-click")
    assert base[("CAD", "Text")] == (2, 3, pytest.approx(200 / 3))
    assert base[("Dev", "Icon")] == (1, 3, pytest.approx(100 / 3))
    assert base[("Overall", "Avg")] == (3, 9, pytest.approx(100 / 3))


def test_screenspot_pro_per_application() -> None:
    (table,) = layout_tables(LAYOUTS["screenspot-pro-apps"], scored("gui_screenspot_pro", PRO), resamples=20)
    got = cells(table)
    assert [r.label for r in table.models["m"]] == ["autocad", "pycharm", "solidworks", "vscode", "Overall"]
    # autocad: cad1 hit, cad2 hit (text), cad5 malformed (icon) -> text 2/2, icon 0/1, avg 2/3
    assert (got[("autocad", "Text")], got[("autocad", "Icon")]) == ((2, 2, 100.0), (0, 1, 0.0))
    assert got[("autocad", "Avg")] == (2, 3, pytest.approx(200 / 3))
    assert got[("vscode", "Avg")] == (2, 3, pytest.approx(200 / 3))  # dev1 hit, dev2 hit, dev3 miss
    assert got[("pycharm", "Text")] == (0, 0, None)


# ScreenSpot (SeeClick screenspot_test.py, UGround eval.py, the SeeClick paper's table):
#   mobile text: hit, miss, miss -> 1/3 = 33.3; mobile icon: hit -> 1/1 = 100.0; mobile avg 2/4 = 50.0
#   desktop text: miss -> 0/1 = 0.0; desktop icon (v2 ``ui_type`` spelling): hit, malformed -> 1/2 = 50.0; avg 1/3
#   web text: hit -> 100.0; web icon: missing -> 0.0; avg 1/2 = 50.0
#   overall text 2/5 = 40.0, icon 2/4 = 50.0, avg 4/9 = 44.4 (micro);
#   mean of 6 = (33.33 + 100 + 0 + 50 + 100 + 0) / 6 = 47.2 (the paper's Average: unweighted over the six cells)
SCREENSPOT = [
    ("m1", "hit", {"split": "mobile", "data_type": "text"}),
    ("m2", "miss", {"split": "mobile", "data_type": "text", "centre": True}),
    ("m3", "miss", {"split": "mobile", "data_type": "text"}),
    ("m4", "hit", {"split": "mobile", "data_type": "icon"}),
    ("d1", "miss", {"split": "desktop", "data_type": "text"}),
    ("d2", "hit", {"split": "desktop", "ui_type": "icon", "centre": True}),
    ("d3", "malformed", {"split": "desktop", "ui_type": "icon"}),
    ("w1", "hit", {"split": "web", "data_type": "text"}),
    ("w2", "missing", {"split": "web", "data_type": "icon"}),
]


def test_screenspot_splits_micro_average_and_the_papers_mean_of_six() -> None:
    items = scored("gui_screenspot_v2", SCREENSPOT) + scored("gui_screenspot", SCREENSPOT[:2])
    v1, v2 = layout_tables(LAYOUTS["screenspot"], items, resamples=20)  # v1 and v2 never pooled
    assert (v1.configs, v2.configs) == (("gui_screenspot",), ("gui_screenspot_v2",))
    got = cells(v2)
    assert got[("Mobile", "Text")] == (1, 3, pytest.approx(100 / 3))
    assert got[("Mobile", "Icon")] == (1, 1, 100.0)
    assert got[("Mobile", "Avg")] == (2, 4, 50.0)
    assert got[("Desktop", "Icon")] == (1, 2, 50.0)
    assert got[("Desktop", "Avg")] == (1, 3, pytest.approx(100 / 3))
    assert got[("Web", "Icon")] == (0, 1, 0.0)
    assert got[("Overall", "Text")] == (2, 5, 40.0)
    assert got[("Overall", "Icon")] == (2, 4, 50.0)
    assert got[("Overall", "Avg")] == (4, 9, pytest.approx(400 / 9))
    assert got[("Overall", "Mean of 6")] == (None, 9, pytest.approx((100 / 3 + 100 + 0 + 50 + 100 + 0) / 6))
    assert ("Mobile", "Mean of 6") not in got  # the paper prints one Average, on no split
    assert cells(v1)[("Overall", "Avg")] == (1, 2, 50.0)
    base = cells(v2, "centre-click")
    assert base[("Overall", "Avg")] == (2, 9, pytest.approx(200 / 9))  # m2 and d2 hold the centre
    assert base[("Overall", "Mean of 6")][2] == pytest.approx((100 / 3 + 0 + 0 + 50 + 0 + 0) / 6)


def test_a_mean_with_an_empty_part_has_no_value() -> None:
    # only mobile rows: the six-cell mean has four empty cells; the official scripts would average 0 there
    (table,) = layout_tables(LAYOUTS["screenspot"], scored("gui_screenspot", SCREENSPOT[:4]), resamples=20)
    mean = next(r for r in table.models["m"] if r.label == "Overall").cells["Mean of 6"]
    assert (mean.value, mean.ci_low, mean.n, mean.parts) == (None, None, 4, 6)
    assert cell_text(mean, 1) == "— (mean of 6, n=4: a part has no row)"


# PointerBench (eval.py per suite: hits / n over every row, by data type, sorted; mean of suites unweighted):
#   Sheets: cell hit, cell miss, edge hit, edge hit -> 3/4 = 75.00; cell 1/2 = 50.00; edge 2/2 = 100.00
#   Text: a box row answered with the box (hit), a word row missing -> 1/2 = 50.00
#   mean of suites = (75 + 50) / 2 = 62.50 (the micro rate would be 4/6 = 66.67); no Pro rows: no Pro line
POINTERBENCH_SHEETS = [
    ("s1", "hit", {"data_type": "cell"}),
    ("s2", "miss", {"data_type": "cell", "centre": True}),
    ("s3", "hit", {"data_type": "edge"}),
    ("s4", "hit", {"data_type": "edge"}),
]
POINTERBENCH_TEXT = [
    ("t1", "hit", {"data_type": "bbox", "answer_type": "box", "centre": True}),
    ("t2", "missing", {"data_type": "word", "centre": True}),
]


def test_pointerbench_suites_data_types_and_the_unweighted_mean() -> None:
    items = scored("gui_sheets", POINTERBENCH_SHEETS) + scored("gui_text", POINTERBENCH_TEXT)
    (table,) = layout_tables(LAYOUTS["pointerbench"], items, resamples=20)
    assert table.configs == ("gui_sheets", "gui_text")
    got = cells(table)
    assert [r.label for r in table.models["m"]] == [
        "PointerBench-Sheets",
        "PointerBench-Sheets / cell",
        "PointerBench-Sheets / edge",
        "PointerBench-Text",
        "PointerBench-Text / bbox",
        "PointerBench-Text / word",
        "Mean of suites",
    ]
    assert got[("PointerBench-Sheets", "Accuracy")] == (3, 4, 75.0)
    assert got[("PointerBench-Sheets / cell", "Accuracy")] == (1, 2, 50.0)
    assert got[("PointerBench-Text", "Accuracy")] == (1, 2, 50.0)
    assert got[("Mean of suites", "Accuracy")] == (None, 6, 62.5)
    # centre click: s2 and t2 hold the centre; t1 is a box row, which a click never solves
    base = cells(table, "centre-click")
    assert base[("PointerBench-Sheets", "Accuracy")] == (1, 4, 25.0)
    assert base[("PointerBench-Text", "Accuracy")] == (1, 2, 50.0)
    assert base[("Mean of suites", "Accuracy")] == (None, 6, 37.5)


def test_intervals_are_the_projects_bootstrap_in_percent() -> None:
    items = scored("gui_screenspot_pro", PRO)
    (table,) = layout_tables(LAYOUTS["screenspot-pro"], items, seed=3, resamples=200)
    overall = next(r for r in table.models["m"] if r.label == "Overall").cells["Avg"]
    hits = [c.row["example_id"] in {f"gui_screenspot_pro/{e}" for e in ("cad1", "cad2", "dev1", "dev2")} for c in items]
    low, high = rate_interval(((cluster_of(s.row), float(h)) for s, h in zip(items, hits, strict=True)), 3, 200)
    assert low is not None and high is not None
    assert (overall.ci_low, overall.ci_high) == (pytest.approx(100 * low), pytest.approx(100 * high))
    # one part: the mean-of-rates interval is the rate's interval exactly
    single = [(cluster_of(s.row), 0, float(h)) for s, h in zip(items, hits, strict=True)]
    assert mean_of_rates_interval(single, 1, 3, 200) == (low, high)


def their_lines() -> dict[tuple[str, str, str], bool | None]:
    """The framework's verdicts on the ScreenSpot-Pro rows: it agrees on CAD except cad3 (it says correct), judged
    cad4 wrong_format, gave no verdict on dev1 and has none of dev4 (a row absent from its file)."""
    verdicts = {"cad1": True, "cad2": True, "cad3": True, "cad4": False, "cad5": False}
    verdicts |= {"dev1": None, "dev2": True, "dev3": False}
    return {("m", f"gui_screenspot_pro/{e}", "gui"): v for e, v in verdicts.items()}


def test_theirs_beside_ours_per_cell() -> None:
    items = scored("gui_screenspot_pro", PRO)
    (table,) = layout_tables(LAYOUTS["screenspot-pro"], items, their_lines(), resamples=20)
    rows = {r.label: r.cells for r in table.models["m"]}
    cad_text, dev_icon, overall = rows["CAD"]["Text"], rows["Dev"]["Icon"], rows["Overall"]["Avg"]
    assert (cad_text.k, cad_text.n) == (2, 3) and cad_text.theirs is not None
    assert (cad_text.theirs.k, cad_text.theirs.n) == (3, 3)
    assert dev_icon.theirs is not None and (dev_icon.theirs.k, dev_icon.theirs.n) == (1, 2)  # dev4 absent there
    assert overall.theirs is not None and (overall.theirs.k, overall.theirs.n) == (4, 7)
    assert rows["Dev"]["Text"].theirs is None  # dev1: no verdict
    assert cell_text(cad_text, 1, theirs=True).endswith("ours 2/3 · theirs 3/3")
    assert all(c.theirs is None for r in table.baseline for c in r.cells.values())


def _view() -> list[View]:
    items = scored("gui_screenspot_pro", PRO) + scored("gui_screenspot_pro", PRO, model="other")
    tables = layout_tables(LAYOUTS["screenspot-pro"], items, their_lines(), resamples=20)
    return views([("run", {"screenspot-pro": tables})], "screenspot-pro")


def test_every_format_shows_the_cells_the_baseline_and_the_rules() -> None:
    (view,) = _view()
    text = markdown([view], ["a notice"])
    assert text.startswith("> **⚠️ a notice**")
    assert "| m | Dev | 100.0 [" in text and "|  | CAD | 66.7 [" in text and "ours 2/3 · theirs 3/3 |" in text
    assert "| centre-click | Dev | 0.0 [0.0, 0.0] 0/1 | 33.3 [" in text  # the baseline block, no theirs
    assert "likaixin2000/ScreenSpot-Pro-GUI-Grounding@bd8bbbb:eval_screenspot_pro.py" in text
    tex = latex([view])
    assert tex.count("\\begin{tabular}{llrrr}") == 1 and "\\toprule" in tex and "\\bottomrule" in tex
    assert "ours 2/3 $\\cdot$ theirs 3/3" in tex
    from rich.console import Console

    console = Console(width=300, record=True)
    console.print(terminal(view))
    printed = console.export_text()
    assert "centre-click" in printed and "44.4 [" in printed and "4/9" in printed


def test_csv_is_one_line_per_model_kind_and_row_in_percent() -> None:
    (view,) = _view()
    lines = list(csv.DictReader(io.StringIO(to_csv([view]))))
    header = list(lines[0])
    assert header == ["model", "run", "configs", "kind", "row", "Text", "Icon", "Avg"]
    # two models x (ours, theirs) x 7 rows, then the baseline's 7 rows
    assert len(lines) == 2 * 2 * 7 + 7
    ours = {(line["model"], line["kind"], line["row"]): line for line in lines}
    assert float(ours[("m", "ours", "Overall")]["Avg"]) == pytest.approx(400 / 9)
    assert float(ours[("m", "theirs", "Overall")]["Avg"]) == pytest.approx(400 / 7)
    assert float(ours[("centre-click", "centre-click", "Overall")]["Avg"]) == pytest.approx(100 / 3)
    assert ours[("m", "ours", "Creative")]["Avg"] == ""  # no rows: no value


def test_tables_round_trip_through_the_report_json() -> None:
    items = scored("gui_screenspot_pro", PRO)
    (table,) = layout_tables(LAYOUTS["screenspot-pro"], items, their_lines(), resamples=20)
    back = LayoutTable.from_dict(table.to_dict())
    assert back == table


@pytest.mark.parametrize("layouts", [["screenspot-prp"], "screenspot-pro"])
def test_a_misspelt_layout_is_refused_before_anything_is_read(layouts: Any, tmp_path: Any) -> None:
    from groundbench.errors import GroundBenchError
    from groundbench.scoring import score

    with pytest.raises(GroundBenchError) as refused:
        score([], folder=tmp_path / "nothing", layouts=layouts)
    assert "screenspot-prp" in str(refused.value) or "a list of layout names" in str(refused.value)


def test_csv_of_the_screenspot_layout_has_the_mean_of_six_on_the_overall_line_only() -> None:
    tables = layout_tables(LAYOUTS["screenspot"], scored("gui_screenspot_v2", SCREENSPOT), resamples=20)
    lines = list(csv.DictReader(io.StringIO(to_csv(views([("r", {"screenspot": tables})], "screenspot")))))
    ours = {line["row"]: line for line in lines if line["kind"] == "ours"}
    assert list(ours) == ["Mobile", "Desktop", "Web", "Overall"] and {line["configs"] for line in lines} == {
        "gui_screenspot_v2"
    }
    assert float(ours["Overall"]["Mean of 6"]) == pytest.approx((100 / 3 + 100 + 0 + 50 + 100 + 0) / 6)
    assert float(ours["Overall"]["Avg"]) == pytest.approx(400 / 9)
    assert ours["Mobile"]["Mean of 6"] == "" and float(ours["Mobile"]["Text"]) == pytest.approx(100 / 3)
    (view,) = views([("r", {"screenspot": tables})], "screenspot")
    assert "47.2 [" in markdown([view]) and "mean of 6, n=9" in markdown([view])
