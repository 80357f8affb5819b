"""``score --layout osworld-g / ui-vision`` and ``table --layout`` through the CLI on a small build of both sources
(tests/support/new_sources.py), every cell checked against counts derived by hand from the releases' rules.

OSWorld-G's four rows: a bbox row (groups text_matching and fine_grained_manipulation), a polygon row
(fine_grained_manipulation), a two-vertex polygon in no group (nothing is inside it under the release's rule;
lmms-eval reads it as a box) and a refusal row (refusal). Model ``plain`` answers in the default format: inside the
box, inside the polygon, inside the two-vertex "polygon"'s box, and ``{"point": [-1, -1]}`` on the refusal row (the
official rule's refusal): 3 of 4; its lines carry lmms-eval's own verdicts (all four correct). Model ``venus``
answers UI-Venus-2's documented "no target" ``[-1,-1]`` everywhere (status refused): right on the refusal row only.
UI-Vision's four rows: basic VSCode (hit), basic GIMP (miss), functional VSCode (hit), spatial (no line: a miss).
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest

from groundbench.cli import main
from tests.support.new_sources import published_new_sources

OSWORLD_G = {  # example id -> (plain's answer, lmms-eval's verdict)
    "gui_osworld_g/0FOB4CLBT2-0": ({"point": [1436.0, 340.0]}, "correct"),
    "gui_osworld_g/0FOB4CLBT2-1": ({"point": [140.0, 215.0]}, "correct"),
    "gui_osworld_g/7XQ2KA9ZPL-0": ({"point": [620.0, 315.0]}, "correct"),
    "gui_osworld_g/7XQ2KA9ZPL-1": ({"point": [-1, -1]}, "correct"),
}
UI_VISION = {
    "gui_ui_vision/basic/00000": {"point": [30, 60]},
    "gui_ui_vision/basic/00001": {"point": [0, 0]},
    "gui_ui_vision/functional/00000": {"point": [30, 60]},
}


def _lines() -> list[dict[str, Any]]:
    lines = []
    for index, (eid, (answer, verdict)) in enumerate(OSWORLD_G.items()):
        imported = {"from": "lmms-eval", "file": "samples.jsonl", "index": index, "verdict": verdict}
        lines.append({"example_id": eid, "condition": "gui", "model": "plain", "response": json.dumps(answer)})
        lines[-1]["imported"] = imported
        lines.append(
            {
                "example_id": eid,
                "condition": "gui",
                "model": "venus",
                "response": "[-1,-1]",
                "answer_format": "ui-venus-2",
            }
        )
    for eid, answer in UI_VISION.items():
        lines.append({"example_id": eid, "condition": "gui", "model": "plain", "response": json.dumps(answer)})
    return lines


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    where = tmp_path_factory.mktemp("new_layouts")
    predictions = where / "predictions.jsonl"
    predictions.write_text("".join(json.dumps(line) + "\n" for line in _lines()))
    folder = published_new_sources()
    argv = ["score", str(predictions), "--data", str(folder), "--resamples", "20", "--json", str(where / "scores.json")]
    assert main([*argv, "--layout", "osworld-g", "--layout", "ui-vision"]) == 0
    return {"folder": folder, "where": where, "report": json.loads((where / "scores.json").read_text())}


def _cells(block: list[dict[str, Any]]) -> dict[str, dict[str, tuple[Any, ...]]]:
    return {r["row"]: {c: (v["k"], v["n"]) for c, v in r["cells"].items()} for r in block}


def test_osworld_g_layout_cells_theirs_and_the_centre_click(scored: dict[str, Any]) -> None:
    (table,) = scored["report"]["layouts"]["osworld-g"]
    assert table["configs"] == ["gui_osworld_g"]
    plain = _cells(table["models"]["plain"])
    assert plain["All"] == {
        "Text Matching": (1, 1),
        "Element Recognition": (0, 0),
        "Layout Understanding": (0, 0),
        "Fine-grained Manipulation": (2, 2),
        "Refusal": (1, 1),  # {"point": [-1, -1]} in the default format: the official rule's refusal
        "Overall": (3, 4),
    }
    assert plain["box_type polygon"] == {"Fine-grained Manipulation": (1, 1), "Overall": (1, 2)}
    assert plain["box_type refusal"] == {"Refusal": (1, 1), "Overall": (1, 1)}
    assert plain["in no group"] == {"Overall": (0, 1)}  # the two-vertex polygon: nothing is inside it
    theirs = {r["row"]: r["cells"]["Overall"]["theirs"] for r in table["models"]["plain"]}
    assert (theirs["All"]["k"], theirs["All"]["n"]) == (4, 4)  # lmms-eval read the two-vertex polygon as a box
    venus = _cells(table["models"]["venus"])  # refused everywhere: credited on the refusal row, a miss elsewhere
    assert venus["All"]["Overall"] == (1, 4) and venus["All"]["Refusal"] == (1, 1)
    assert venus["box_type bbox"]["Overall"] == (0, 1)
    centre = _cells(table["baseline"])  # the centre click never refuses, and hits none of these regions
    assert centre["All"]["Overall"] == (0, 4) and centre["box_type refusal"]["Refusal"] == (0, 1)
    metrics = {(m["model"], m["config"], m["metric"], m.get("detail")): m for m in scored["report"]["metrics"]}
    assert metrics[("venus", "gui_osworld_g", "refusal_rate", None)]["count"] == 4
    assert metrics[("venus", "gui_osworld_g", "gui_success", None)]["count"] == 1
    assert metrics[("plain", "gui_osworld_g", "gui_success", None)]["count"] == 3
    refuse = metrics[("plain", "gui_osworld_g", "gui_baseline_always_refuse", "refusal rows")]
    assert (refuse["count"], refuse["n"]) == (1, 1)


def test_ui_vision_layout_kinds_categories_and_final_average(scored: dict[str, Any]) -> None:
    (table,) = scored["report"]["layouts"]["ui-vision"]
    block = table["models"]["plain"]
    assert [r["row"] for r in block] == ["Creativity", "Development", "Overall"]
    plain = _cells(block)
    assert plain["Overall"] == {"Basic": (1, 2), "Functional": (1, 1), "Spatial": (0, 1), "Final Avg": (None, 4)}
    assert plain["Development"] == {"Basic": (1, 1), "Functional": (1, 1), "Spatial": (0, 0)}
    assert plain["Creativity"]["Basic"] == (0, 1)
    final = block[-1]["cells"]["Final Avg"]
    assert final["value"] == pytest.approx((50.0 + 100.0 + 0.0) / 3) and final["parts"] == 3
    assert _cells(table["baseline"])["Overall"]["Basic"] == (0, 2)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


@pytest.mark.parametrize("layout", ["osworld-g", "ui-vision"])
def test_table_layout_in_markdown_latex_and_csv(
    scored: dict[str, Any], capsys: pytest.CaptureFixture[str], layout: str
) -> None:
    table = ["table", str(scored["where"] / "scores.json"), "--layout", layout, "--data", str(scored["folder"])]
    code, out = _run(capsys, *table, "--format", "csv")
    assert code == 0
    lines = list(csv.DictReader(io.StringIO(out)))
    by = {(line["model"], line["kind"], line["row"]): line for line in lines}
    if layout == "osworld-g":
        assert list(lines[0])[5:] == [
            "Text Matching",
            "Element Recognition",
            "Layout Understanding",
            "Fine-grained Manipulation",
            "Refusal",
            "Overall",
        ]
        assert float(by[("plain", "ours", "All")]["Overall"]) == pytest.approx(75.0)
        assert float(by[("plain", "theirs", "All")]["Overall"]) == pytest.approx(100.0)
        assert float(by[("venus", "ours", "All")]["Refusal"]) == pytest.approx(100.0)
        assert by[("venus", "ours", "All")]["Element Recognition"] == ""  # no row: no value
        assert float(by[("centre-click", "centre-click", "All")]["Overall"]) == 0.0
        want = "75.0"
    else:
        assert list(lines[0])[5:] == ["Basic", "Functional", "Spatial", "Final Avg"]
        assert float(by[("plain", "ours", "Overall")]["Final Avg"]) == pytest.approx(50.0)
        want = "50.00"
    code, out = _run(capsys, *table, "--format", "markdown")
    assert code == 0 and "| Overall |" in out and want in out and "centre-click" in out
    code, out = _run(capsys, *table, "--format", "latex")
    assert code == 0 and "\\begin{tabular}" in out and want in out
