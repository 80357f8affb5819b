"""`groundbench table`, `groundbench plot` and `groundbench results export` on three runs of mock models.

The build holds curated_umd (UMD sample) and gui_sheets (a small generated PointerBench-format suite). Run A
is `groundbench eval --model mockllm/model` (its fixed answer); runs B and C are prediction files written here
(B answers every row correctly, C half of them) and scored with `groundbench score --json`, the other way a
researcher gets a scores.json. Every figure a table, plot or Hub entry shows is compared with the scores.json
it came from, read here on its own (never through the code under test).
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from datasets import load_dataset
from huggingface_hub import parse_eval_result_entries

from groundbench.results.plots import BASELINE_STYLE, draw, headline_specs
from groundbench.results.runs import load_runs
from groundbench.results.tasks import declared_tasks
from groundbench.scoring.headline import BASELINES as HEADLINE_BASELINES
from tests.conftest import REPO, build_all, run_cli
from tests.support.hubstub import HubStub, cli_against

pytestmark = pytest.mark.slow  # builds a UMD + GUI project and runs inspect-ai

UMD, GUI = "curated_umd", "gui_sheets"
CONDITIONS = ("part_named", "part_named/text_only", "image_only")
NOTICE = (  # the terminal's one line (scoring/notice.py)
    f"⚠ SYNTHETIC SAMPLE BUILD, NOT THE BENCHMARK: {GUI} were built from GroundBench's embedded samples; a score "
    "on them means nothing about a model (build from the real sources first)."
)
BASELINES = (
    ("baseline_majority", "majority"),
    ("blind_bound", "blind bound"),
    ("baseline_image_center", "image centre"),
    ("baseline_best_constant", "best constant"),
    ("baseline_center_click", "centre click"),
)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, umd_sample: Path) -> Path:
    """UMD read from a copy of its sample (so not marked synthetic), a small generated PointerBench suite."""
    root = tmp_path_factory.mktemp("results") / "project"
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    gui = {"pointerbench": "sample", "screenspot": None, "screenspot_v2": None, "screenspot_pro": None}
    params["sources"] = {"umd": str(umd_sample), "gui": gui, "gapartnet": None}
    params["umd"]["workers"] = 1
    params["sample"]["gui"].update(examples_per_suite=4, frames=["1024x768", "1920x1080"], screenspot_rows=2, workers=1)
    (root / "data/audits").mkdir(parents=True)
    shutil.copy(REPO / "data/audits/curated_umd.yaml", root / "data/audits")
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    assert run_cli(root, "generate-gui", "--quiet") == 0
    for source in ("pointerbench", "screenspot", "screenspot_v2", "screenspot_pro", "gapartnet"):
        assert run_cli(root, "convert", source, "--quiet") == 0
    assert run_cli(root, "bake", GUI, "gui_text", "gui_pro", "curated_gapartnet", "bulk_gapartnet") == 0
    build_all(root)
    return root


def _rows(root: Path, config: str) -> list[dict[str, Any]]:
    return list(load_dataset(str(root / "data/groundbench"), config, split="test").remove_columns("image"))


def _requests(root: Path, config: str, condition: str, tmp: Path) -> list[dict[str, Any]]:
    out = tmp / f"req-{config}-{condition.replace('/', '-')}.jsonl"
    assert run_cli(root, "requests", config, "--condition", condition, "--out", str(out)) == 0
    return [json.loads(line) for line in out.read_text().splitlines()]


def _answer(row: dict[str, Any], right: bool) -> dict[str, Any]:
    part = next(p for p in row["parts"] if p["part_id"] == row["target_part_id"])
    if row["stratum"] == "suite":
        x0, y0, x1, y1 = part["bbox_xyxy"]
        box = [x0, y0, x1, y1] if right else [0, 0, 1, 1]
        return (
            {"box": box}
            if row["answer_type"] == "box"
            else {"point": [(x0 + x1) / 2, (y0 + y1) / 2] if right else [0, 0]}
        )
    if not right:
        return {"part": "none", "action": "none", "point": [0, 0]}
    return {"part": row["target_part_id"], "action": row["target_action"], "point": part["point_xy"]}


def _scripted_run(root: Path, folder: Path, model: str, every: int, tmp: Path) -> Path:
    """Predictions for every requested row (right on every ``every``-th row), scored by `groundbench score`."""
    folder.mkdir(parents=True)
    lines = []
    for config, conditions in ((UMD, CONDITIONS), (GUI, ("gui",))):
        rows = {r["example_id"]: r for r in _rows(root, config)}
        for condition in conditions:
            for index, request in enumerate(_requests(root, config, condition, tmp)):
                answer = _answer(rows[request["example_id"]], index % every == 0)
                gate = {k: request[k] for k in ("dataset_version", "manifest_sha256", "template_sha256")}
                lines.append({"example_id": request["example_id"], "condition": condition, "model": model,
                              "response": json.dumps(answer), **gate})  # fmt: skip
    predictions = folder / "predictions.jsonl"
    predictions.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert run_cli(root, "score", str(predictions), "--json", str(folder / "scores.json")) == 0
    return folder


@pytest.fixture(scope="module")
def runs(built: Path, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    tmp = tmp_path_factory.mktemp("runs")
    mock = tmp / "mock"
    command = ["eval", UMD, GUI, *(f"--condition={c}" for c in (*CONDITIONS, "gui"))]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_DATA_HOME", str(tmp / "xdg"))  # inspect's traces and buffers stay in the test's folder
        assert run_cli(built, *command, "--model", "mockllm/model", "--out", str(mock), "--display", "none") == 0
    right = _scripted_run(built, tmp / "right", "scripted/right", 1, tmp)
    half = _scripted_run(built, tmp / "half", "scripted/half", 2, tmp)
    return [mock, right / "scores.json", half]


def _scores(run: Path) -> dict[str, Any]:
    return json.loads((run if run.suffix == ".json" else run / "scores.json").read_text())


def _headlines(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The headline entries, selected here from the paper's rule (not through scoring.headline): GUI success,
    else ungated action accuracy and the tau hit rate (no condition of these runs supplies the region)."""
    out = []
    for m in report["metrics"]:
        wanted = ["gui_success"] if m["condition"] == "gui" else ["action_accuracy", "localization_hit_rate"]
        if (m["metric"] in wanted and m.get("detail") is None) or m["metric"] == "gui_success_mean_of_suites":
            out.append(m)
    return out


def _cell(m: dict[str, Any]) -> str:
    text = f"{m['value']:.3f}"
    if m.get("ci_low") is not None:
        text += f" [{m['ci_low']:.3f}, {m['ci_high']:.3f}]"
        baselines = [m[k] for k, _ in BASELINES if m.get(k) is not None]
        if any(m["ci_low"] <= b <= m["ci_high"] for b in baselines):
            text += " †"
    return text


def test_table_figures_equal_each_runs_scores(built: Path, runs: list[Path], tmp_path: Path) -> None:
    args = [str(r) for r in runs]
    out = tmp_path / "table.csv"
    assert run_cli(built, "table", *args, "--format", "csv", "--out", str(out)) == 0
    lines = list(csv.DictReader(io.StringIO(out.read_text())))
    models = {"mockllm/model", "scripted/right", "scripted/half"}
    assert {line["model"] for line in lines} == models
    expected = {}
    for run in runs:
        report = _scores(run)
        for m in _headlines(report):
            expected[(m["model"], m["config"], m["condition"], m["metric"])] = (m, report)
    assert {(x["model"], x["config"], x["condition"], x["metric"]) for x in lines} == set(expected)
    assert {c for _, c, _, _ in expected} == {UMD, GUI, "PointerBench suites"}
    for line in lines:
        m, report = expected[(line["model"], line["config"], line["condition"], line["metric"])]
        for column in ("value", "ci_low", "ci_high", *(k for k, _ in BASELINES)):
            assert (float(line[column]) if line[column] else None) == m.get(column), (column, line)
        assert int(line["n"]) == m["n"]
        assert line["dataset_version"] == report["gate"]["dataset_version"]
        if line["config"] in report["gate"]["manifest_sha256"]:
            assert line["manifest_sha256"] == report["gate"]["manifest_sha256"][line["config"]]
            assert line["template_sha256"] == report["gate"]["template_sha256"][line["condition"]]
            # The GUI suite is the embedded sample; UMD is read from a folder (the sample's files, copied).
            assert line["synthetic"] == str(line["config"] == GUI)
    right = expected[("scripted/right", UMD, "part_named", "action_accuracy")][0]
    assert right["value"] == 1.0 and right["n"] == 5  # the scripted answers did reach the scorer

    # Markdown: every model's cell is the scores.json value and interval, marked where a baseline is inside it.
    assert run_cli(built, "table", *args, "--format", "markdown", "--out", str(tmp_path / "t.md")) == 0
    text = (tmp_path / "t.md").read_text()
    assert text.startswith(f"> **⚠️ SYNTHETIC SAMPLE BUILD, NOT THE BENCHMARK: {GUI} were built from")
    assert text.count("SYNTHETIC") == 1  # once for the table, however many runs it holds
    body = [line.strip("|").split(" | ") for line in text.splitlines() if line.startswith("| ")]
    header, table = [c.strip() for c in body[0]], [[c.strip() for c in row] for row in body[2:]]
    assert header[:5] == ["config", "stratum", "condition", "metric", "n"]
    assert header[5:8] == ["mockllm/model", "scripted/right", "scripted/half"]
    assert header[8:] == [label for _, label in BASELINES]
    for row in table:
        for model, shown in zip(header[5:8], row[5:8], strict=True):
            m, _ = expected[(model, row[0], row[2], row[3])]
            assert shown == _cell(m), (model, row)
        for label, shown in zip(header[8:], row[8:], strict=True):
            key = dict((b, a) for a, b in BASELINES)[label]
            value = expected[("scripted/right", row[0], row[2], row[3])][0].get(key)
            assert shown == ("—" if value is None else f"{value:.3f}")

    # LaTeX: booktabs rules, escaped names, the same cells, the notice inside the table.
    assert run_cli(built, "table", *args, "--format", "latex", "--out", str(tmp_path / "t.tex")) == 0
    tex = (tmp_path / "t.tex").read_text()
    assert [r for r in ("\\toprule", "\\midrule", "\\bottomrule") if r in tex] == [
        "\\toprule",
        "\\midrule",
        "\\bottomrule",
    ]
    half = expected[("scripted/half", UMD, "part_named", "action_accuracy")][0]
    row = f"curated\\_umd & curated & part\\_named & action\\_accuracy & {half['n']} & "
    assert row in tex and _cell(half).replace("†", "$^\\dagger$") in tex
    assert "SYNTHETIC SAMPLE BUILD, NOT THE BENCHMARK" in tex


def test_terminal_table_follows_columns_and_carries_the_notice(
    built: Path, runs: list[Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    widths = {}
    for columns in ("100", "240"):
        monkeypatch.setenv("COLUMNS", columns)
        assert run_cli(built, "table", *(str(r) for r in runs)) == 0
        captured = capsys.readouterr()
        widths[columns] = max(len(line) for line in captured.out.splitlines())
        assert [line for line in captured.err.splitlines() if "SYNTHETIC" in line] == [NOTICE]  # one line, once
        assert "GroundBench results" in captured.out
    assert widths["100"] <= 100 < widths["240"] <= 240


def _headline_rows(stdout: str, report: dict[str, Any]) -> None:
    """Every headline of the report is a line of the printed table: its metric, value and interval."""
    for m in _headlines(report):
        interval = "—" if m.get("ci_low") is None else f"[{m['ci_low']:.3f}, {m['ci_high']:.3f}]"
        cells = [m["metric"], f"{m['value']:.3f}", interval, str(m["n"])]
        assert any(all(f" {c} " in line for c in cells) for line in stdout.splitlines()), (cells, stdout)
    for m in _headlines(report):
        if m["metric"] == "action_accuracy":
            assert f"majority {m['baseline_majority']:.3f}; blind bound {m['blind_bound']:.3f}" in stdout


@pytest.mark.parametrize("verbose", [False, True], ids=["default", "verbose"])
def test_score_and_eval_lead_with_the_headline_figures(
    built: Path, runs: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], verbose: bool
) -> None:
    half = runs[2]
    report = _scores(half)
    flag = ["--verbose"] if verbose else []
    assert run_cli(built, "score", str(half / "predictions.jsonl"), *flag) == 0
    scored = capsys.readouterr()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
        command = ["eval", GUI, "--condition", "gui", "--model", "mockllm/model", "--display", "none", *flag]
        assert run_cli(built, *command, "--out", str(tmp_path / "run")) == 0
    evaluated = capsys.readouterr()
    for captured, scores in ((scored, report), (evaluated, _scores(tmp_path / "run"))):
        _headline_rows(captured.out, scores)
        # the breakdown (parse rates, per-type success, gate hashes) only when asked for; always in the JSON
        assert {"strict_parse_rate", "gui_success_by_target_type"} <= {m["metric"] for m in scores["metrics"]}
        for text in ("strict_parse_rate", "gui_success_by_target_type", f"manifest {GUI}: "):
            assert (text in captured.out) == verbose, text
        assert len(captured.out.splitlines()) < (200 if verbose else 25)
        assert [line for line in captured.err.splitlines() if "SYNTHETIC" in line] == [NOTICE]  # one line, once


def test_every_baseline_a_headline_carries_has_a_line_style() -> None:
    assert set(BASELINE_STYLE) == {key for key, _ in HEADLINE_BASELINES}  # the free-form every-keyword answer too


def test_runs_gated_to_different_data_are_refused(
    built: Path, runs: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = _scores(runs[1])
    cases = {
        "dataset_version": lambda g: g.update(dataset_version="9.9.9"),
        f"manifest_sha256.{UMD}": lambda g: g["manifest_sha256"].update({UMD: "0" * 64}),
        "template_sha256.part_named": lambda g: g["template_sha256"].update(part_named="f" * 64),
    }
    for field, change in cases.items():
        other = json.loads(json.dumps(report))
        change(other["gate"])
        path = tmp_path / field / "scores.json"
        path.parent.mkdir()
        path.write_text(json.dumps(other))
        for command in ("table", "plot"):
            extra = ["--out", str(tmp_path / "plots")] if command == "plot" else []
            assert run_cli(built, command, str(runs[0]), str(path), *extra) == 2
            message = capsys.readouterr().err
            assert f"{runs[0] / 'scores.json'} vs {path}: {field}:" in message, message
            assert "gated to different data" in message


def _plotted(figures: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    (figure,) = [f for f in figures if f["name"] == name]
    return figure["panels"]


def test_plot_values_equal_the_reports_and_the_bytes_are_deterministic(
    built: Path, runs: list[Path], tmp_path: Path
) -> None:
    compared = tmp_path / "compare.json"
    right, half = runs[1].parent / "predictions.jsonl", runs[2] / "predictions.jsonl"
    assert run_cli(built, "compare", str(right), str(half), "--json", str(compared)) == 0
    out = tmp_path / "plots"
    args = ["plot", *(str(r) for r in runs), "--compare", str(compared), "--out", str(out)]
    assert run_cli(built, *args) == 0
    figures = json.loads((out / "plots.json").read_text())["figures"]
    names = {f["name"] for f in figures}
    assert names == {
        "action_accuracy",
        "localization_hit_rate",
        "gui_success",
        "gui_by_target_type",
        "gui_by_frame",
        "forest",
    }
    for name in names:
        assert (out / f"{name}.png").read_bytes().startswith(b"\x89PNG")
        svg = (out / f"{name}.svg").read_text()
        assert "<dc:date>" not in svg and "SYNTHETIC SAMPLE BUILD" in svg

    by_key = {}
    for run in runs:
        for m in _scores(run)["metrics"]:
            by_key[(m["model"], m["config"], m["condition"], m["metric"], m.get("detail"))] = m
    checked = 0
    for figure in figures:
        for panel in figure["panels"]:
            for point in panel["points"]:
                if figure["name"] == "forest":
                    continue
                if figure["name"].startswith("gui_by_"):
                    metric = "gui_success_by_" + figure["name"].removeprefix("gui_by_")
                    m = by_key[(point["series"], panel["title"], "gui", metric, point["x"])]
                else:
                    config, _, condition = point["x"].partition(" / ")
                    if not condition:
                        config, condition = panel["title"].split(" (")[0], point["x"]
                    m = by_key[(point["series"], config, condition, figure["name"], None)]
                assert (point["value"], point["ci_low"], point["ci_high"], point["n"]) == (
                    m["value"], m["ci_low"], m["ci_high"], m["n"]
                )  # fmt: skip
                checked += 1
            for ref in panel["references"]:
                config, _, condition = ref["x"].partition(" / ")
                if figure["name"].startswith("gui_by_"):
                    metric = "gui_success_by_" + figure["name"].removeprefix("gui_by_")
                    m = by_key[("scripted/right", panel["title"], "gui", metric, ref["x"])]
                else:
                    if not condition:
                        config, condition = panel["title"].split(" (")[0], ref["x"]
                    m = by_key[("scripted/right", config, condition, figure["name"], None)]
                assert ref["value"] == m[ref["baseline"]]
    # Three models: action accuracy and hit rate on three UMD conditions, GUI success, the GUI breakdowns.
    assert checked > 3 * (3 + 3 + 1)

    differences = json.loads(compared.read_text())["differences"]
    (forest,) = _plotted(figures, "forest")
    assert [(p["x"], p["value"], p["ci_low"], p["ci_high"]) for p in forest["points"]] == [
        (f"{d['config']} / {d['condition']} / {d['metric']}", d["difference"], d["ci_low"], d["ci_high"])
        for d in differences
    ]

    # The artists drawn carry the same numbers as plots.json (errorbar markers read back from the figure).
    spec = next(s for s in headline_specs(load_runs(list(runs), None)) if s.name == "action_accuracy")
    figure = draw(spec)
    markers = [line for ax in figure.axes for line in ax.lines if line.get_marker() == "o"]
    drawn = sorted(round(float(y), 12) for line in markers for y in line.get_ydata())
    listed = sorted(round(p.value, 12) for panel in spec.panels for p in panel.points if p.value is not None)
    assert drawn == listed and len(listed) >= 6

    again = tmp_path / "again"
    assert run_cli(built, *args[:-1], str(again)) == 0
    for path in sorted(out.iterdir()):
        assert (again / path.name).read_bytes() == path.read_bytes(), path.name


def test_the_dataset_declares_its_tasks_in_eval_yaml(built: Path) -> None:
    folder = built / "data/groundbench"
    value = yaml.safe_load((folder / "eval.yaml").read_text())
    assert set(value) == {"name", "description", "evaluation_framework", "tasks"}
    assert value["description"].startswith("SYNTHETIC SAMPLE BUILD, NOT THE BENCHMARK.")
    tasks = declared_tasks((folder / "eval.yaml").read_text())
    assert len(tasks) == len(value["tasks"])  # ids are unique
    for config in (UMD, GUI):
        rows = [r for r in _rows(built, config) if not r["excluded"]]
        valid = {c for r in rows for c in (["gui"] if r["stratum"] == "suite" else r["conditions"])}
        declared = {t["id"].split(".")[1] for t in tasks.values() if t["config"] == config}
        assert declared <= valid | {"counterfactual", "part_named_free_form"} and valid <= declared
        assert all(t["split"] == "test" for t in tasks.values())
    assert f"{GUI}.gui.gui_success" in tasks and f"{UMD}.part_named.action_accuracy" in tasks
    assert f"{UMD}.localization_shown.localization_hit_rate" not in tasks  # the prompt supplied the region
    assert not any("text_only" in t for t in tasks)


def test_results_export_push_opens_a_pull_request_whose_yaml_equals_the_scores(
    built: Path, runs: list[Path], tmp_path: Path
) -> None:
    run = runs[2]  # scripted/half
    report = _scores(run)
    export = ["results", "export", str(run), "--model-repo", "scripted/half", "--dataset", "org/groundbench"]
    other = [
        "results",
        "export",
        str(run),
        "--model-repo",
        "Qwen/Qwen2.5-VL-7B-Instruct",
        "--dataset",
        "org/groundbench",
    ]
    with HubStub() as hub:
        # the published dataset at its version tag, as `groundbench publish` leaves it
        published = hub.seed(
            "org/groundbench", {"README.md": (built / "data/groundbench/README.md").read_bytes()}, "v0.1.0"
        )
        refused = cli_against(hub.endpoint, tmp_path, built, *export, "--push")
        mismatch = cli_against(hub.endpoint, tmp_path, built, *other, "--allow-synthetic", "--push")
        mismatch_allowed = (*other, "--allow-synthetic", "--allow-model-mismatch", "--out", str(tmp_path / "other"))
        exported = cli_against(hub.endpoint, tmp_path, built, *mismatch_allowed)
        allowed = (*export, "--push", "--allow-synthetic", "--out", str(tmp_path / "out"))
        result = cli_against(hub.endpoint, tmp_path, built, *allowed)
    assert refused.returncode == 2
    assert "synthetic_configs: gui_sheets were built from embedded samples" in refused.stderr
    assert mismatch.returncode == 2 and "opened a pull request" not in mismatch.stderr
    assert "the run's model 'scripted/half' is not --model-repo 'Qwen/Qwen2.5-VL-7B-Instruct'" in mismatch.stderr
    assert exported.returncode == 0 and list((tmp_path / "other" / ".eval_results").glob("*.yaml"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert hub.unknown == []
    (pull,) = hub.pull_requests
    assert pull["repo"] == "scripted/half" and "GroundBench 0.1.0" in pull["header"]["summary"]
    assert "GET /api/datasets/org/groundbench/revision/v0.1.0" in hub.requests  # the tag resolved to its commit
    tasks = declared_tasks((built / "data/groundbench/eval.yaml").read_text())
    wanted = {
        f"{m['config']}.{m['condition']}.{m['metric']}": m
        for m in _headlines(report)
        if "/" not in m["condition"] and m["config"] != "PointerBench suites"
    }
    assert set(wanted) <= set(tasks)
    assert set(pull["files"]) == {f".eval_results/groundbench.{task}.yaml" for task in wanted}
    for path, data in pull["files"].items():
        assert (tmp_path / "out" / path).read_bytes() == data  # what was written is what was pushed
        (entry,) = parse_eval_result_entries(yaml.safe_load(data))
        m = wanted[entry.task_id]
        assert entry.dataset_id == "org/groundbench" and entry.dataset_revision == published
        assert entry.value == m["value"]
        assert entry.source_url == f"{hub.endpoint}/datasets/org/groundbench/tree/{published}"
        notes = dict(p.split("=", 1) for p in entry.notes.split("; ") if re.match(r"^\w+=", p))
        assert notes["ci95"] == f"[{m['ci_low']!r}, {m['ci_high']!r}]" and int(notes["n"]) == m["n"]
        assert notes["dataset_version"] == report["gate"]["dataset_version"]
        assert notes["manifest_sha256"] == report["gate"]["manifest_sha256"][m["config"]]
        assert notes["template_sha256"] == report["gate"]["template_sha256"][m["condition"]]
        assert notes["model"] == "scripted/half" and notes["gate"] == report["gate"]["status"]
        assert ("SYNTHETIC SAMPLE BUILD, NOT THE BENCHMARK" in entry.notes) == (m["config"] == GUI)
