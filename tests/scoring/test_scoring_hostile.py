"""Hostile predictions files: string numbers on object rows, NaN and Infinity, null responses, empty files, many
bad lines at once, nonsense resample counts; the gate counting every line; synthetic builds saying so in every
score output. On tests/scoring/test_scoring_hand.py's hand-made folder (Example A: four curated rows; GUI suite a),
scored through the CLI as a user runs it."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from groundbench.cards.notice import synthetic_line, synthetic_notice
from groundbench.loaders.prompts import template_hash
from groundbench.schemas.request_conditions import BASE_CONDITIONS
from tests.conftest import run_cli
from tests.scoring.test_scoring_hand import HAND_MANIFESTS, _write_folder


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write_folder(tmp_path_factory.mktemp("hostile"))


def _score(folder: Path, tmp_path: Path, lines: list[Any] | str, *extra: str) -> tuple[int, dict[str, Any] | None]:
    path = tmp_path / "p.jsonl"
    text = lines if isinstance(lines, str) else "".join(json.dumps(line) + "\n" for line in lines)
    path.write_text(text)
    out = tmp_path / "s.json"
    out.unlink(missing_ok=True)
    code = run_cli(tmp_path, "score", str(path), "--data", str(folder), "--json", str(out), "--resamples", "5", *extra)
    return code, json.loads(out.read_text(), parse_constant=_no_constant) if out.exists() else None


def _no_constant(name: str) -> None:
    raise AssertionError(f"scores.json holds the bare token {name}: not JSON")


def _metric(report: dict[str, Any], condition: str, metric: str, config: str = "hand_curated") -> dict[str, Any]:
    return next(
        m for m in report["metrics"] if (m["config"], m["condition"], m["metric"]) == (config, condition, metric)
    )


def _kept(report: dict[str, Any], example_id: str, condition: str) -> dict[str, Any]:
    return next(p for p in report["predictions"] if (p["example_id"], p["condition"]) == (example_id, condition))


def test_numbers_inside_strings_parse_on_object_rows_and_are_counted(folder: Path, tmp_path: Path) -> None:
    # Example A part_named, target points r1 (180, 240), r2 (90, 120), r3 (120, 160), r4 (210, 280).
    lines = [
        {"example_id": "a/r1", "response": '{"part": "door", "action": "pull", "point": ["180", "240"]}'},
        {"example_id": "a/r2", "response": '{"part": "button", "action": "push", "point": "[90, 120]"}'},
        {"example_id": "a/r3", "parsed": {"part": "door", "action": "pull", "box": "100 140 140 180"}},
        {"example_id": "a/r4", "response": '{"part": "knob", "action": "rotate", "point": "top left"}'},
    ]
    code, report = _score(folder, tmp_path, [{"model": "m", "condition": "part_named", **line} for line in lines])
    assert code == 0 and report is not None
    # r1, r2 strict with their points read from strings; r3 parsed fields (box centre (120, 160)); r4's point
    # cannot be read: malformed (a failure), never strict with a null point
    assert _metric(report, "part_named", "strict_parse_rate")["count"] == 2
    assert _metric(report, "part_named", "fields_rate")["count"] == 1
    assert _metric(report, "part_named", "malformed_rate")["count"] == 1
    assert _metric(report, "part_named", "string_numbers_rate")["count"] == 3
    # the three readable answers sit on their targets: hits at distance 0; r4 is a miss with action none
    hit = _metric(report, "part_named", "localization_hit_rate")
    assert (hit["count"], hit["n"]) == (3, 4)
    assert _metric(report, "part_named", "action_accuracy")["count"] == 3
    # --json's parsed fields are what the headline scored
    assert _kept(report, "a/r1", "part_named")["point"] == [180.0, 240.0]
    assert _kept(report, "a/r2", "part_named")["point"] == [90.0, 120.0]
    assert _kept(report, "a/r3", "part_named")["box"] == [100.0, 140.0, 140.0, 180.0]
    r4 = _kept(report, "a/r4", "part_named")
    assert (r4["parse"], r4["point"], r4["action"], r4["numbers_from_strings"]) == ("malformed", None, "none", False)


def test_gui_lines_show_the_point_the_headline_scored(folder: Path, tmp_path: Path) -> None:
    # GUI suite a, g1 point row, box [400, 300, 600, 500]: eval.py reads `coordinate`, and "512" as a number
    lines = [
        {"example_id": "ga/1", "response": '{"coordinate": ["512", 400]}'},
        {"example_id": "ga/2", "response": '{"pred": [50, 50]}'},
    ]
    code, report = _score(folder, tmp_path, [{"model": "m", "condition": "gui", **line} for line in lines])
    assert code == 0 and report is not None
    success = _metric(report, "gui", "gui_success", "gui_text")
    assert success["count"] == 2  # both inside their boxes
    assert _kept(report, "ga/1", "gui")["point"] == [512.0, 400.0]
    assert _kept(report, "ga/1", "gui")["numbers_from_strings"] is True
    assert _kept(report, "ga/2", "gui")["point"] == [50.0, 50.0]
    assert _metric(report, "gui", "string_numbers_rate", "gui_text")["count"] == 1


def test_nan_and_infinity_become_null_and_the_line_counts_malformed(folder: Path, tmp_path: Path) -> None:
    lines = [
        '{"model": "m", "condition": "part_named", "example_id": "a/r1", '
        '"parsed": {"action": "pull", "point": [NaN, 5]}}',
        '{"model": "m", "condition": "part_named", "example_id": "a/r2", "response": "{\\"action\\": \\"push\\", '
        '\\"point\\": [Infinity, 1]}"}',
        '{"model": "m", "condition": "gui", "example_id": "ga/1", "response": "{\\"point\\": [-Infinity, 400]}"}',
        '{"model": "m", "condition": "gui", "example_id": "ga/2", "parsed": {"point": [50, NaN]}}',
    ]
    code, report = _score(folder, tmp_path, "\n".join(lines) + "\n")
    assert code == 0 and report is not None  # _score parsed it with every bare NaN/Infinity token refused
    assert _metric(report, "part_named", "malformed_rate")["count"] == 2
    assert _metric(report, "gui", "malformed_rate", "gui_text")["count"] == 2
    assert _metric(report, "gui", "gui_success", "gui_text")["count"] == 0
    for example_id, condition in (("a/r1", "part_named"), ("a/r2", "part_named"), ("ga/1", "gui"), ("ga/2", "gui")):
        kept = _kept(report, example_id, condition)
        assert kept["parse"] == "malformed" and kept["point"] is None, kept
    assert _kept(report, "a/r1", "part_named")["record"]["point"] == [None, 5]
    assert _kept(report, "a/r2", "part_named")["response"].endswith("[Infinity, 1]}")  # the raw text is kept, as text


def test_a_null_response_is_a_counted_failure_not_a_fatal_line(folder: Path, tmp_path: Path) -> None:
    lines = [
        {"model": "m", "condition": "part_named", "example_id": "a/r1", "response": None},
        {"model": "m", "condition": "part_named", "example_id": "a/r2", "response": '{"action": "push"}'},
        {"model": "m", "condition": "part_named_free_form", "example_id": "a/r1", "response": None},
        {"model": "m", "condition": "gui", "example_id": "ga/1", "response": None},
    ]
    code, report = _score(folder, tmp_path, lines)
    assert code == 0 and report is not None
    assert _metric(report, "part_named", "malformed_rate")["count"] == 1
    assert _metric(report, "part_named", "action_accuracy")["count"] == 1  # r2 only
    assert _metric(report, "gui", "malformed_rate", "gui_text")["count"] == 1
    assert _kept(report, "a/r1", "part_named_free_form")["parse"] == "malformed"
    assert _metric(report, "part_named_free_form", "free_form_action_accuracy")["count"] == 0


@pytest.mark.parametrize("text", ["", "\n\n  \n"])
def test_an_empty_predictions_file_is_an_error(
    folder: Path, tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = _score(folder, tmp_path, text)
    err = capsys.readouterr().err
    assert code == 2 and report is None
    assert "p.jsonl: lines: expected at least one prediction line, found none" in err


@pytest.mark.parametrize("resamples", ["0", "-5"])
def test_resamples_below_one_are_an_error(
    folder: Path, tmp_path: Path, resamples: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(
        json.dumps({"model": "m", "condition": "part_named", "example_id": "a/r1", "response": "{}"}) + "\n"
    )
    code = run_cli(tmp_path, "score", str(path), "--data", str(folder), "--resamples", resamples)
    assert code == 2
    assert f"--resamples: expected at least 1 bootstrap resample, found {resamples}" in capsys.readouterr().err
    assert run_cli(tmp_path, "compare", str(path), str(path), "--data", str(folder), "--resamples", resamples) == 2


def test_every_bad_line_is_reported_at_once(folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = {"model": "m", "condition": "part_named", "example_id": "a/r1", "response": '{"action": "pull"}'}
    bad: list[str] = []
    bad += [json.dumps({**good, "example_id": "a/r2", "condition": f"look_{i}"}) for i in range(10)]  # unknown
    bad += [json.dumps({**good, "example_id": f"a/nope{i}"}) for i in range(25)]  # 25 unknown example ids
    bad += ["{not json"] * 3
    bad += [json.dumps({k: v for k, v in good.items() if k != "model"} | {"example_id": "a/r3"})]  # no model
    bad += [json.dumps({**good, "example_id": "a/r4", "response": 42})]  # not a string
    text = json.dumps(good) + "\n" + "\n".join(bad) + "\n" + json.dumps(good) + "\n"  # and a duplicate at the end
    code, report = _score(folder, tmp_path, text)
    err = capsys.readouterr().err
    assert code == 2 and report is None
    assert (
        "41 of 42 prediction lines are bad (example_id 25, condition 10, json 3, duplicate 1, model 1, response 1)"
        in err
    )
    assert "nothing was scored" in err
    listed = [line for line in err.splitlines() if ": line " in line]
    assert len(listed) == 20 and "p.jsonl: line 2: condition:" in listed[0]
    assert "... and 21 more" in err
    # an unknown condition lists the valid ones
    unknown = next(line for line in err.splitlines() if "unknown condition" in line)
    assert all(name in unknown for name in BASE_CONDITIONS) and "/text_only" in unknown


def _gate_fields(config: str, condition: str) -> dict[str, str]:
    return {
        "dataset_version": "0.0.0-hand",
        "manifest_sha256": HAND_MANIFESTS[config],
        "template_sha256": template_hash(condition),
    }


def test_the_gate_counts_every_line_excluded_rows_included(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # cf/D/knob is an excluded row (highlight_mismatch): its line is gated, counted, reported and not scored
    lines = [
        {"model": "m", "condition": "counterfactual", "example_id": eid, "response": '{"action": "push"}'}
        | _gate_fields("hand_counterfactual", "counterfactual")
        for eid in ("cf/A/button", "cf/D/knob")
    ]
    code, report = _score(folder, tmp_path, lines)
    assert code == 0 and report is not None
    assert report["gate"]["status"] == "gated (2 of 2 lines carry gate fields)"
    assert len(report["excluded_predictions"]) == 1
    assert "gate: gated (2 of 2 lines carry gate fields)" in capsys.readouterr().out
    # a wrong manifest on the excluded row's line is refused like any other
    lines[1]["manifest_sha256"] = "0" * 64
    code, _ = _score(folder, tmp_path, lines)
    assert code == 2 and "line 2: gate:" in capsys.readouterr().err


def _synthetic_folder(folder: Path, tmp_path: Path, synthetic: list[str]) -> Path:
    import shutil

    copy = tmp_path / "synthetic"
    shutil.copytree(folder, copy)
    card = copy / "README.md"
    front = yaml.safe_load(card.read_text().split("---")[1])
    front["groundbench"]["synthetic_configs"] = synthetic
    card.write_text("---\n" + yaml.safe_dump(front) + "---\n\nhand-made folder\n")
    return copy


def test_a_synthetic_build_says_so_in_every_score_output(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    synthetic = _synthetic_folder(folder, tmp_path, ["gui_text", "hand_curated", "hand_collide"])
    path = tmp_path / "p.jsonl"
    lines = [
        {"model": "m", "condition": "part_named", "example_id": "a/r1", "response": '{"action": "pull"}'},
        {"model": "m", "condition": "gui", "example_id": "ga/1", "response": '{"point": [500, 400]}'},
        {"model": "m", "condition": "gui", "example_id": "gb/1", "response": '{"point": [500, 400]}'},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out, table = tmp_path / "s.json", tmp_path / "s.csv"
    assert run_cli(tmp_path, "score", str(path), "--data", str(synthetic), "--json", str(out), "--csv", str(table)) == 0
    captured = capsys.readouterr()
    notice = synthetic_notice(["gui_text", "hand_curated"])  # the scored configs that are synthetic
    assert notice.startswith("SYNTHETIC SAMPLE BUILD, NOT THE BENCHMARK")
    # the terminal: one line, once (the JSON keeps the whole notice)
    assert [line for line in captured.err.splitlines() if "SYNTHETIC" in line] == [
        "⚠ " + synthetic_line(["gui_text", "hand_curated"])
    ]
    assert "SYNTHETIC" not in captured.out
    report = json.loads(out.read_text())
    assert report["synthetic_configs"] == ["gui_text", "hand_curated"] and report["notice"] == notice
    with table.open() as handle:
        rows = list(csv.DictReader(handle))
    by_config = {(r["config"], r["synthetic"]) for r in rows}
    assert ("hand_curated", "True") in by_config and ("gui_screenspot", "False") in by_config
    assert ("PointerBench suites", "True") in by_config  # its gui_text suite is synthetic
    # the same file against the real (non-synthetic) folder: no notice anywhere
    assert run_cli(tmp_path, "score", str(path), "--data", str(folder), "--json", str(out), "--csv", str(table)) == 0
    assert "SYNTHETIC" not in capsys.readouterr().err
    report = json.loads(out.read_text())
    assert report["synthetic_configs"] == [] and report["notice"] is None
    assert {r["synthetic"] for r in csv.DictReader(table.open())} == {"False"}


def test_the_json_report_is_written_as_encoded_and_a_refused_value_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--json`` is streamed in pieces (here a few strings each) yet holds exactly ``json.dumps``'s bytes."""
    import math

    from groundbench.core import jsonindent
    from groundbench.scoring import report

    monkeypatch.setattr(jsonindent, "FLUSH_PIECES", 3)
    payload = {"metrics": [{"b": 1.5, "a": "é\u2028ü", "n": None, "l": [1, {"z": True}]}] * 30, "k": {}}
    report.write_json(tmp_path / "a.json", payload)
    expected = json.dumps(payload, indent=1, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"
    assert (tmp_path / "a.json").read_bytes() == expected.encode("utf-8")
    with pytest.raises(ValueError, match="Out of range float"):
        report.write_json(tmp_path / "b.json", {"metrics": [{"x": math.nan}]})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]
