"""``score --layout`` and ``table --layout`` through the CLI on the shared small build (the embedded ScreenSpot-Pro
sample, published once per run: tests/support/frames.py), every cell checked against counts derived by hand.

The predictions, by a row's position i in example-id order: i % 5 == 4 has no line (absent: a miss in the
denominator); otherwise i % 3 == 0 clicks the centre of the annotated box (a hit), i % 3 == 1 clicks (-5, -5)
(outside every box), i % 3 == 2 answers prose (malformed: the official scripts' wrong_format, a miss). Lines with
i % 2 == 0 carry the framework's own verdict (``imported``): "correct" on the hits and on i % 6 == 4, "wrong"
otherwise; the others carry none. So per cell: ours k = rows with i % 3 == 0 and i % 5 != 4; theirs k/n over the
even, present rows.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from groundbench.cli import main
from groundbench.loaders.published import read_config

CONFIG = "gui_screenspot_pro"


def _rows(folder: Path) -> list[dict[str, Any]]:
    rows = read_config(folder, CONFIG).drop_columns(["image"]).to_pylist()
    return sorted(rows, key=lambda r: r["example_id"])


def _line(i: int, row: dict[str, Any]) -> dict[str, Any] | None:
    if i % 5 == 4:
        return None
    x0, y0, x1, y1 = row["extras"]["gui"]["eval_bbox"]
    if i % 3 == 0:
        response = json.dumps({"point": [(x0 + x1) / 2, (y0 + y1) / 2]})
    elif i % 3 == 1:
        response = json.dumps({"point": [-5, -5]})
    else:
        response = "the button at the top"
    line: dict[str, Any] = {"example_id": row["example_id"], "condition": "gui", "model": "m", "response": response}
    if i % 2 == 0:
        verdict = "correct" if i % 3 == 0 or i % 6 == 4 else "wrong"
        line["imported"] = {"from": "screenspot-pro-eval", "file": "x.json", "index": i, "verdict": verdict}
    return line


def expected(rows: list[dict[str, Any]], keep: Any) -> dict[str, Any]:
    """The hand count of one cell over the rows ``keep`` selects (see the module docstring)."""
    chosen = [(i, r) for i, r in enumerate(rows) if keep(r)]
    judged = [i for i, _ in chosen if i % 5 != 4 and i % 2 == 0]
    centre = 0
    for _, r in chosen:  # the official point rule: the frame's centre inside the annotated box, edges in
        x0, y0, x1, y1 = r["extras"]["gui"]["eval_bbox"]
        centre += min(x0, x1) <= r["width"] / 2 <= max(x0, x1) and min(y0, y1) <= r["height"] / 2 <= max(y0, y1)
    return {
        "k": sum(i % 3 == 0 and i % 5 != 4 for i, _ in chosen),
        "n": len(chosen),
        "theirs": (sum(i % 3 == 0 or i % 6 == 4 for i in judged), len(judged)),
        "centre": centre,
    }


@pytest.fixture(scope="module")
def scored(published_sample: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    where = tmp_path_factory.mktemp("layouts")
    rows = _rows(published_sample)
    lines = [line for i, r in enumerate(rows) if (line := _line(i, r)) is not None]
    predictions = where / "predictions.jsonl"
    predictions.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return {"folder": published_sample, "rows": rows, "predictions": predictions, "where": where}


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_score_layout_cells_equal_the_hand_counts_and_change_nothing_else(
    scored: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, where, rows = scored["folder"], scored["where"], scored["rows"]
    base = ["score", str(scored["predictions"]), "--data", str(folder), "--resamples", "20"]
    code, plain_out, plain_err = _run(capsys, *base, "--json", str(where / "plain.json"))
    assert code == 0
    layouts = ["--layout", "screenspot-pro", "--layout", "screenspot-pro-apps"]
    code, out, err = _run(capsys, *base, *layouts, "--json", str(where / "scores.json"))
    assert code == 0
    # without --layout the output is what it was: the report lacks only the layouts key, the terminal the tables
    plain, report = json.loads((where / "plain.json").read_text()), json.loads((where / "scores.json").read_text())
    assert "layouts" not in plain and {k: v for k, v in report.items() if k != "layouts"} == plain
    assert out.startswith(plain_out)
    assert "ScreenSpot-Pro (leaderboard_simple_style and overall)" in out[len(plain_out) :]
    assert err == plain_err

    (simple,) = report["layouts"]["screenspot-pro"]
    assert simple["configs"] == [CONFIG]
    cells = {r["row"]: r["cells"] for r in simple["models"]["m"]}
    base_cells = {r["row"]: r["cells"] for r in simple["baseline"]}
    groups = {r["extras"]["gui"]["group"] for r in rows}
    kinds = {r["extras"]["gui"]["ui_type"] for r in rows}
    checked = 0
    for group in [*groups, "Overall"]:
        in_group = (lambda r: True) if group == "Overall" else (lambda r, g=group: r["extras"]["gui"]["group"] == g)
        for column, kind in (("Text", "text"), ("Icon", "icon"), ("Avg", None)):

            def keep(r: dict[str, Any], ig: Any = in_group, kd: str | None = kind) -> bool:
                return bool(ig(r)) and (kd is None or r["extras"]["gui"]["ui_type"] == kd)

            want = expected(rows, keep)
            cell = cells[group][column]
            assert (cell["k"], cell["n"]) == (want["k"], want["n"]), (group, column)
            if want["n"]:
                assert cell["value"] == pytest.approx(100 * want["k"] / want["n"])
                assert cell["ci_low"] <= cell["value"] <= cell["ci_high"]
                assert (cell["theirs"]["k"], cell["theirs"]["n"]) == want["theirs"]
                assert base_cells[group][column]["k"] == want["centre"]
                checked += 1
    assert checked >= 4 and "text" in kinds  # the sample's rows fill at least Office and Overall's text and avg

    (detailed,) = report["layouts"]["screenspot-pro-apps"]
    apps = sorted({r["extras"]["gui"]["application"] for r in rows})
    assert [r["row"] for r in detailed["models"]["m"]] == [*apps, "Overall"]
    for app in apps:
        want = expected(rows, lambda r, a=app: r["extras"]["gui"]["application"] == a)
        cell = next(r for r in detailed["models"]["m"] if r["row"] == app)["cells"]["Avg"]
        assert (cell["k"], cell["n"]) == (want["k"], want["n"])


def test_table_layout_in_every_format(scored: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    folder, where, rows = scored["folder"], scored["where"], scored["rows"]
    scores = where / "table_scores.json"
    argv = ["score", str(scored["predictions"]), "--data", str(folder), "--resamples", "20", "--json", str(scores)]
    assert main([*argv, "--layout", "screenspot-pro"]) == 0
    capsys.readouterr()
    table = ["table", str(scores), "--layout", "screenspot-pro", "--data", str(folder)]
    want = expected(rows, lambda r: True)

    code, out, _ = _run(capsys, *table, "--format", "csv")
    assert code == 0
    lines = list(csv.DictReader(io.StringIO(out)))
    assert list(lines[0]) == ["model", "run", "configs", "kind", "row", "Text", "Icon", "Avg"]
    assert [(line["model"], line["kind"]) for line in lines] == [("m", "ours")] * 7 + [("m", "theirs")] * 7 + [
        ("centre-click", "centre-click")
    ] * 7
    by = {(line["kind"], line["row"]): line for line in lines}
    assert float(by[("ours", "Overall")]["Avg"]) == pytest.approx(100 * want["k"] / want["n"])
    assert float(by[("theirs", "Overall")]["Avg"]) == pytest.approx(100 * want["theirs"][0] / want["theirs"][1])
    assert float(by[("centre-click", "Overall")]["Avg"]) == pytest.approx(100 * want["centre"] / want["n"])
    assert by[("ours", "CAD")]["Avg"] == ""  # no CAD row in the sample

    code, out, err = _run(capsys, *table, "--format", "markdown")
    value = f"{100 * want['k'] / want['n']:.1f}"
    assert code == 0 and "|  | Overall | " in out and f"ours {want['k']}/{want['n']}" in out and value in out
    assert "SYNTHETIC SAMPLE BUILD" in out and "SYNTHETIC SAMPLE BUILD" in err
    code, out, _ = _run(capsys, *table, "--format", "latex")
    assert code == 0 and "\\begin{tabular}{llrrr}" in out and f"ours {want['k']}/{want['n']}" in out
    code, out, _ = _run(capsys, *table)
    assert code == 0 and "centre-click" in out and "Overall" in out


def test_a_run_without_the_layout_is_refused_with_the_command_that_stores_it(
    scored: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, where = scored["folder"], scored["where"]
    run = where / "run"
    run.mkdir()
    argv = ["score", str(scored["predictions"]), "--data", str(folder), "--resamples", "5", "--json"]
    assert main([*argv, str(run / "scores.json")]) == 0
    shutil.copy(scored["predictions"], run / "predictions.jsonl")  # an eval run folder holds both
    capsys.readouterr()
    code, _, err = _run(capsys, "table", str(run), "--layout", "screenspot-pro", "--data", str(folder))
    assert code == 2
    assert err.strip() == (
        f"error: {run / 'scores.json'}: layouts.screenspot-pro: expected the screenspot-pro tables; score with them: "
        f"groundbench score {run / 'predictions.jsonl'} --layout screenspot-pro --json {run / 'scores.json'}"
    )
    code, _, err = _run(capsys, *argv[:-1], "--layout", "screenspot")
    assert code == 2
    assert "--layout: the screenspot layout reads gui_screenspot, gui_screenspot_v2; no GUI prediction" in err
