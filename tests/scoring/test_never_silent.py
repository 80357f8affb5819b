"""Never silent: an answer syntax misread, a predictions file in the wrong shape, a misspelt key or condition each
get one line saying so, through the CLI as a user runs it. On tests/scoring/test_scoring_hand.py's hand-made
folder (six GUI rows, 1000 x 800, four of them point rows)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import groundbench.scoring.predictions as predictions
from groundbench.scoring.predictions import KNOWN_KEYS
from tests.conftest import run_cli
from tests.scoring.test_scoring_hand import _write_folder

GUI_ROWS = ("ga/1", "ga/2", "ga/3", "ga/4", "gb/1", "gb/2")
# Qwen2.5-VL's computer-use tool call (its cookbook, computer_use.ipynb): pixels of the smart_resize frame.
TOOL_CALL = (
    '<tool_call>\n{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [%d, %d]}}\n</tool_call>'
)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write_folder(tmp_path_factory.mktemp("silent"))


def _write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _tool_calls(model: str = "qwen") -> list[dict[str, Any]]:
    return [
        {"example_id": eid, "condition": "gui", "model": model, "response": TOOL_CALL % (500 + i, 400)}
        for i, eid in enumerate(GUI_ROWS)
    ]


def _score(
    folder: Path, tmp_path: Path, path: Path, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, str, dict[str, Any] | None]:
    out = tmp_path / "s.json"
    out.unlink(missing_ok=True)
    code = run_cli(tmp_path, "score", str(path), "--data", str(folder), "--json", str(out), "--resamples", "5", *extra)
    report = json.loads(out.read_text()) if out.exists() else None
    return code, capsys.readouterr().err, report


def _errors(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("error:")]


# --- a misread syntax -------------------------------------------------------------------------------------------


def test_tool_calls_read_as_groundbench_json_get_one_line_naming_the_format(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path / "p.jsonl", _tool_calls())
    code, err, report = _score(folder, tmp_path, path, capsys)
    assert code == 0 and report is not None
    hints = [line for line in err.splitlines() if "SYNTAX?" in line]
    assert len(hints) == 1, err
    # every answer is malformed as groundbench JSON; the four point rows parse as qwen2.5-vl (a point never
    # solves a box row, so ga/3 and ga/4 stay malformed in every format)
    assert hints[0].startswith("SYNTAX? qwen: 6 of 6 answers are malformed read as groundbench, and 4 of the first 6")
    assert "parse as qwen2.5-vl, qwen3-vl" in hints[0] and "--answer-format" in hints[0]
    assert report["syntax_hint"] == hints[0]
    gui = [m for m in report["metrics"] if m["metric"] == "gui_success"]
    assert gui and all(m["value"] == 0 for m in gui)  # the hint is never applied
    # declared, the same answers are read, and nothing is hinted
    code, err, report = _score(folder, tmp_path, path, capsys, "--answer-format", "qwen2.5-vl")
    assert code == 0 and report is not None and report["syntax_hint"] is None
    assert "SYNTAX?" not in err


def test_no_hint_when_most_answers_parse_or_no_format_reads_them(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _tool_calls()
    for line in lines:  # the four point rows answer in GroundBench's JSON: two malformed is not "most"
        if line["example_id"] not in ("ga/3", "ga/4"):
            line["response"] = '{"point": [500, 400]}'
    code, err, report = _score(folder, tmp_path, _write(tmp_path / "p.jsonl", lines), capsys)
    assert code == 0 and report is not None and report["syntax_hint"] is None and "SYNTAX?" not in err
    prose = [{**line, "response": "I cannot see a button there."} for line in lines]  # malformed in every format
    code, err, report = _score(folder, tmp_path, _write(tmp_path / "p.jsonl", prose), capsys)
    assert code == 0 and report is not None and report["syntax_hint"] is None and "SYNTAX?" not in err


def test_the_hint_reads_a_bounded_sample(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(predictions, "SAMPLE", 2)
    code, err, report = _score(folder, tmp_path, _write(tmp_path / "p.jsonl", _tool_calls()), capsys)
    assert code == 0 and report is not None
    assert "6 of 6 answers are malformed read as groundbench, and 2 of the first 2 of them" in report["syntax_hint"]


# --- compare reads a declared format ----------------------------------------------------------------------------


def test_compare_takes_an_answer_format_for_both_files_or_each(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _write(tmp_path / "a.jsonl", _tool_calls("qwen"))
    plain = [{**line, "model": "plain", "response": '{"point": [1, 1]}'} for line in _tool_calls()]
    b = _write(tmp_path / "b.jsonl", plain)
    out = tmp_path / "c.json"

    def success(*extra: str) -> tuple[float, float, dict[str, str]]:
        assert run_cli(tmp_path, "compare", str(a), str(b), "--data", str(folder), "--json", str(out), *extra) == 0
        payload = json.loads(out.read_text())
        entry = next(e for e in payload["differences"] if e["metric"] == "gui_success" and e["config"] == "gui_text")
        return entry["value_a"], entry["value_b"], payload["answer_formats"]

    value_a, value_b, formats = success()
    assert value_a == 0.0 and formats == {"a": "groundbench", "b": "groundbench"}  # every tool call malformed
    # qwen2.5-vl reads A's tool calls (pixels of the smart_resize frame); B's lines stay GroundBench JSON
    assert success("--answer-format", "qwen2.5-vl", "--answer-format", "groundbench") == (
        0.25,
        value_b,
        {"a": "qwen2.5-vl", "b": "groundbench"},
    )
    assert success("--answer-format", "qwen2.5-vl")[2] == {"a": "qwen2.5-vl", "b": "qwen2.5-vl"}
    capsys.readouterr()
    three = ("--answer-format", "qwen2.5-vl") * 3
    assert run_cli(tmp_path, "compare", str(a), str(b), "--data", str(folder), *three) == 2
    assert "--answer-format: given 3 times: expected once (both files) or twice" in capsys.readouterr().err
    assert run_cli(tmp_path, "compare", str(a), str(b), "--data", str(folder), "--answer-format", "qwen25") == 2
    assert "unknown answer format 'qwen25'" in capsys.readouterr().err


# --- files that are not JSON Lines ------------------------------------------------------------------------------

SHAPES = {
    "csv": ("example_id,condition,model,response\n" + "".join(f'{e},gui,m,"[1, 2]"\n' for e in GUI_ROWS), "CSV"),
    "tsv": ("example_id\tcondition\tmodel\tresponse\n" + "".join(f"{e}\tgui\tm\t[1, 2]\n" for e in GUI_ROWS), "TSV"),
    "array": (json.dumps(_tool_calls()) + "\n", "one JSON array of 6 items"),
    "array_indented": (json.dumps(_tool_calls(), indent=2) + "\n", "one JSON array of 6 items"),
    "object_indented": (
        json.dumps({"details": [], "metrics": {}}, indent=2),
        "one JSON object (keys: details, metrics)",
    ),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_file_that_is_not_json_lines_gets_one_line(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], shape: str
) -> None:
    text, said = SHAPES[shape]
    path = tmp_path / "p.jsonl"
    path.write_text(text)
    code, err, _ = _score(folder, tmp_path, path, capsys)
    assert code == 2
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith(f"error: {path}: file: the file ") and said in err and "not JSON Lines" in err


def test_json_lines_with_one_bad_line_are_still_judged_line_by_line(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [json.dumps(line) for line in _tool_calls()]
    lines[3] = "[1, 2]"  # one line a JSON array: a bad line among good ones, not a file of the wrong shape
    path = tmp_path / "p.jsonl"
    path.write_text("\n".join(lines) + "\n")
    code, err, _ = _score(folder, tmp_path, path, capsys)
    assert code == 2 and "1 of 6 prediction lines are bad (json 1)" in err and "line 4: json:" in err


# --- unknown keys -----------------------------------------------------------------------------------------------


def test_a_misspelt_key_is_one_error_naming_the_key_meant(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [{("exmaple_id" if k == "example_id" else k): v for k, v in line.items()} for line in _tool_calls()]
    path = _write(tmp_path / "p.jsonl", lines)
    code, err, _ = _score(folder, tmp_path, path, capsys)
    assert code == 2 and _errors(err) == [
        f"error: {path}: keys: unknown key 'exmaple_id' on 6 of 6 lines (first: {path}: line 1); "
        "did you mean 'example_id'? (a line's keys: docs/scoring.md, Predictions lines)"
    ]
    assert len(err.strip().splitlines()) == 1
    # inside `parsed` too, and case aside
    lines = [{"example_id": e, "condition": "gui", "model": "m", "parsed": {"piont": [1, 2]}} for e in GUI_ROWS]
    lines[0]["Response"] = "{}"
    code, err, _ = _score(folder, tmp_path, _write(tmp_path / "p.jsonl", lines), capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "unknown key 'parsed.piont' on 6 of 6 lines" in err and "did you mean 'parsed.point'?" in err
    assert "unknown key 'Response' on 1 of 6 lines" in err and "did you mean 'response'?" in err


def test_other_unknown_keys_are_ignored_and_said_once(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [{**line, "latency_ms": 812, "usage": {"tokens": 9}} for line in _tool_calls()]
    code, err, report = _score(
        folder, tmp_path, _write(tmp_path / "p.jsonl", lines), capsys, "--answer-format", "qwen2.5-vl"
    )
    assert code == 0 and report is not None
    said = [line for line in err.splitlines() if "does not read" in line]
    assert said == [
        "IGNORED: the prediction lines carry keys GroundBench does not read: 'latency_ms' (6 of 6 lines), "
        "'usage' (6 of 6 lines)"
    ]
    assert report["ignored_keys"] == {"latency_ms": 6, "usage": 6}
    # beside bad lines, the unknown keys are said in the error's head (a key the user meant may be among them)
    lines = [{k: v for k, v in line.items() if k != "model"} | {"model_name": "qwen"} for line in lines]
    code, err, _ = _score(folder, tmp_path, _write(tmp_path / "p.jsonl", lines), capsys)
    assert code == 2
    assert (
        "The lines carry keys GroundBench does not read: 'latency_ms' (6 of 6 lines), 'usage' (6 of 6 lines), " in err
    )
    assert "'model_name' (6 of 6 lines)" in err
    # six lines with the same problem: one entry
    assert "line 1 and 5 more lines: model: expected the model's name" in err
    assert len([line for line in err.splitlines() if ": line " in line]) == 1


def _with_image(row: dict[str, Any]) -> dict[str, Any]:
    """The hand row with a real PNG of its size (the hand folder's rows carry none)."""
    import hashlib
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (row["width"], row["height"]), "white").save(buffer, format="PNG")
    data = buffer.getvalue()
    return {**row, "image": {"bytes": data, "path": None}, "image_sha256": hashlib.sha256(data).hexdigest()}


def test_our_own_request_and_eval_lines_carry_only_known_keys(folder: Path, tmp_path: Path) -> None:
    from datasets import Dataset

    from groundbench.evaluate.image_column import image_column
    from groundbench.evaluate.predictions import prediction_line
    from groundbench.evaluate.samples import to_sample
    from groundbench.evaluate.sent_images import RowImages
    from groundbench.evaluate.task import gate_fields
    from groundbench.loaders.published import read_config
    from groundbench.scoring.profiles import parse_profile

    seen: set[str] = set()
    for profile in (None, "qwen2.5-vl"):
        for config, condition in (
            ("gui_text", "gui"),
            ("hand_curated", "part_named"),
            ("hand_curated", "object_named/text_only"),
        ):
            out = tmp_path / "requests.jsonl"
            args = [] if profile is None else ["--profile", profile]
            assert run_cli(tmp_path, "requests", config, "--condition", condition, "--data", str(folder), "--out",
                           str(out), *args) == 0  # fmt: skip
            for text in out.read_text().splitlines():
                seen |= set(json.loads(text)) | {"model", "response"}  # what a harness adds to a request line
            chosen = None if profile is None else parse_profile(profile)
            row = _with_image(read_config(folder, config).to_pylist()[0])
            dataset = Dataset.from_dict({"image": [row["image"]], "image_sha256": [row["image_sha256"]]})
            table = dataset.data.table
            size = chosen.sent_size if chosen is not None and chosen.style.resized else None
            for max_side in (None, 64):  # 64: the image is resized, so the lines record the resize
                images = RowImages(  # where eval reads the image when sent
                    config, dataset, image_column(dataset, table), table.column("image_sha256"), max_side, size
                )
                sample = to_sample(row, config, condition, gate_fields(folder, config), images, 0, chosen)
                assert sample.metadata is not None
                for response in ('{"point": [1, 2]}', "no JSON at all"):
                    seen |= set(prediction_line(sample.metadata, "m", response))
    assert {"prompt", "image", "resize", "raw_response", "parsed", "profile", "answer_format", "system"} <= seen
    assert seen - KNOWN_KEYS == set()


# --- a misspelt condition ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("given", "meant"), [("GUI", "gui"), ("part_named/textonly", "part_named/text_only")])
def test_an_unknown_condition_gets_a_did_you_mean(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], given: str, meant: str
) -> None:
    said = f"unknown condition {given!r}; did you mean {meant!r}?"
    config = "gui_text" if meant == "gui" else "hand_curated"
    assert run_cli(tmp_path, "requests", config, "--condition", given, "--data", str(folder)) == 2
    assert said in capsys.readouterr().err
    out = tmp_path / "eval"
    assert run_cli(tmp_path, "eval", config, "--condition", given, "--data", str(folder), "--model", "mockllm/model",
                   "--out", str(out)) == 2  # fmt: skip
    assert said in capsys.readouterr().err
    lines = [{"example_id": "ga/1" if meant == "gui" else "a/r1", "condition": given, "model": "m", "response": "{}"}]
    code, err, _ = _score(folder, tmp_path, _write(tmp_path / "p.jsonl", lines), capsys)
    assert code == 2 and said in err
