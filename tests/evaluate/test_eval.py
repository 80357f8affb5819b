"""`groundbench eval` on inspect-ai, offline: the mock model, a loopback OpenAI-compatible server, resume.

The folder is a UMD build (curated_umd, bulk_umd) made once for the module. What a model must be
asked is taken from `groundbench requests` (prompt, image sha256, template hash), so every check
below compares `groundbench eval` with the command researchers already use by hand.
"""

from __future__ import annotations

import asyncio
import base64
import gc
import hashlib
import io
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from datasets import Dataset, Image, load_dataset
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, Content, ContentImage, ContentText, get_model
from PIL import Image as PILImage
from rich.console import Console

from groundbench.cli import main
from groundbench.errors import GroundBenchError
from groundbench.evaluate.gate_fields import gate_fields
from groundbench.evaluate.images import prepared_image, verified_bytes
from groundbench.evaluate.mock import mock_reply
from groundbench.evaluate.run import EvalSettings, run_eval
from groundbench.evaluate.samples import in_sent_frame, samples
from groundbench.evaluate.sent_images import SCHEME, resolve
from groundbench.loaders import load_config
from groundbench.loaders.prompts import build_prompt, template_hash
from groundbench.schemas.request_conditions import is_text_only, row_allows
from groundbench.scoring.profiles import Profile, parse_profile
from tests.conftest import run_cli
from tests.support.openai_stub import OpenAIStub

CONFIGS = ("curated_umd", "bulk_umd")
CONDITIONS = ("part_named", "part_named/text_only")
LIMIT = 10
KINDS = ("correct", "wrong", "fenced", "malformed", "0-1000")


def requests_of(root: Path, config: str, condition: str, tmp: Path) -> list[dict[str, Any]]:
    out = tmp / f"requests-{config}-{condition.replace('/', '-')}.jsonl"
    assert run_cli(root, "requests", config, "--condition", condition, "--out", str(out)) == 0
    return [json.loads(line) for line in out.read_text().splitlines()]


def rows_of(root: Path, config: str) -> dict[str, dict[str, Any]]:
    ds = load_dataset(str(root / "data/groundbench"), config, split="test").remove_columns("image")
    return {row["example_id"]: row for row in ds}


def target(row: dict[str, Any]) -> dict[str, Any]:
    (part,) = [p for p in row["parts"] if p["part_id"] == row["target_part_id"]]
    return part


def scripted(kind: str, row: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
    """The response text of one kind for a row, and the answer fields it carries (None: no JSON at all)."""
    part = target(row)
    x, y = part["point_xy"]
    other = "push" if row["target_action"] != "push" else "pull"
    fields: dict[str, Any] | None = {
        "correct": {"part": row["target_part_id"], "action": row["target_action"], "point": [x, y]},
        "wrong": {"part": "no_such_part", "action": other},
        "fenced": {"part": row["target_part_id"], "action": row["target_action"], "point": [x, y]},
        "malformed": None,
        "0-1000": {
            "part": row["target_part_id"],
            "action": row["target_action"],
            "point": [round(x * 1000 / row["width"]), round(y * 1000 / row["height"])],
        },
    }[kind]
    if kind == "malformed":
        return f"The {part['category']} lets you {row['target_action']} it.", None
    text = json.dumps(fields)
    return (f"Here you go:\n```json\n{text}\n```" if kind == "fenced" else text), fields


def asked_by(messages: list[Any]) -> tuple[str, str | None]:
    """The prompt and the sha256 of the image bytes a model received."""
    content = messages[-1].content
    texts = [c.text for c in content if isinstance(c, ContentText)]
    images = [c.image for c in content if isinstance(c, ContentImage)]
    assert len(texts) == 1 and len(images) <= 1
    sha = None
    if images:
        head, _, data = images[0].partition(",")
        assert head in ("data:image/jpeg;base64", "data:image/png;base64"), head
        sha = hashlib.sha256(base64.b64decode(data)).hexdigest()
    return texts[0], sha


def score_cli(root: Path, predictions: Path, out: Path, subset: bool = False) -> dict[str, Any]:
    """``groundbench score`` on a predictions file (``--subset`` for a run with --limit: a deliberate subset)."""
    assert run_cli(root, "score", str(predictions), "--json", str(out), *(["--subset"] if subset else [])) == 0
    return json.loads(out.read_text())


def by_metric(report: dict[str, Any], config: str, condition: str) -> dict[str, dict[str, Any]]:
    return {
        m["metric"]: m
        for m in report["metrics"]
        if m["config"] == config and m["condition"] == condition and m.get("detail") is None
    }


def test_mock_model_mix_scores_equal_groundbench_score_and_hand_counts(built: Path, tmp_path: Path) -> None:
    """Correct, wrong, fenced, malformed and 0-1000 answers on two configs x two conditions."""
    script: dict[tuple[str, str | None], tuple[str, str, dict[str, Any] | None]] = {}  # asked -> kind, text, fields
    # (config, condition) -> (row, the answer it was given: kind, text, fields)
    expected: dict[tuple[str, str], list[tuple[dict[str, Any], tuple[str, str, dict[str, Any] | None]]]] = {}
    requests: dict[tuple[str, str, str], dict[str, Any]] = {}
    for config in CONFIGS:
        rows = rows_of(built, config)
        for condition in CONDITIONS:
            lines = sorted(requests_of(built, config, condition, tmp_path), key=lambda r: r["example_id"])[:LIMIT]
            assert len(lines) >= len(KINDS)
            for index, line in enumerate(lines):
                row = rows[line["example_id"]]
                asked = (line["prompt"], None if line["image"] is None else line["image"]["sha256"])
                assert (line["image"] is None) == condition.endswith("/text_only")
                if asked not in script:  # identical inputs (a shared text-only prompt) get one answer
                    kind = KINDS[index % len(KINDS)]
                    script[asked] = (kind, *scripted(kind, row))
                expected.setdefault((config, condition), []).append((row, script[asked]))
                requests[(config, condition, row["example_id"])] = line
    assert {kind for kind, _, _ in script.values()} == set(KINDS)

    def respond(messages: list[Any], *_: Any) -> Any:
        return mock_reply(script[asked_by(messages)][1])  # KeyError = a prompt or image we never scripted

    out = tmp_path / "run"
    settings = EvalSettings(
        model=get_model("mockllm/model", custom_outputs=respond),
        configs=CONFIGS,
        conditions=CONDITIONS,
        folder=built / "data/groundbench",
        out=out,
        limit=LIMIT,
        display="none",
    )
    quiet = Console(file=io.StringIO())
    result = run_eval(settings, quiet, quiet)
    assert (result.rows, result.cached, result.asked) == (len(requests), 0, len(requests))

    # the predictions: one line per request, raw response kept, gate fields copied
    version = str(yaml.safe_load((built / "params.yaml").read_text())["dataset"]["version"])
    lines = [json.loads(t) for t in (out / "predictions.jsonl").read_text().splitlines()]
    assert sorted((p["config"], p["condition"], p["example_id"]) for p in lines) == sorted(requests)
    for p in lines:
        request = requests[(p["config"], p["condition"], p["example_id"])]
        manifest = built / "data/manifests" / f"{p['config']}.jsonl"
        assert p["dataset_version"] == version
        assert p["manifest_sha256"] == hashlib.sha256(manifest.read_bytes()).hexdigest()
        assert p["template_sha256"] == request["template_sha256"]
        assert p["response"] == script[(request["prompt"], (request["image"] or {}).get("sha256"))][1]
        assert p["model"] == "mockllm/model"

    # the report equals `groundbench score` on the same file, metric by metric
    report = json.loads(result.scores.read_text())
    again = score_cli(built, result.predictions, tmp_path / "score.json", subset=True)
    assert report["metrics"] == again["metrics"] and report == again

    # and the numbers derived here by hand, from what each row's answer said and the row's own truth
    for (config, condition), members in expected.items():
        got = by_metric(report, config, condition)
        n = len(members)
        rows = [r for r, _ in members]
        kinds = [kind for _, (kind, _, _) in members]
        given = [fields for _, (_, _, fields) in members]
        assert got["strict_parse_rate"]["n"] == n
        strict = sum(k in ("correct", "wrong", "0-1000") for k in kinds)
        assert got["strict_parse_rate"]["value"] == pytest.approx(strict / n)
        assert got["lenient_recovered_rate"]["value"] == pytest.approx(kinds.count("fenced") / n)
        assert got["malformed_rate"]["value"] == pytest.approx(kinds.count("malformed") / n)
        assert got["out_of_vocabulary_rate"]["value"] == 0
        correct = sum(f is not None and f["action"] == r["target_action"] for f, r in zip(given, rows, strict=True))
        assert got["action_accuracy"]["value"] == pytest.approx(correct / n)
        exact = sum(f is not None and f["part"] == r["target_part_id"] for f, r in zip(given, rows, strict=True))
        assert got["exact_target_rate"]["value"] == pytest.approx(exact / n)
        assert got["part_selection_accuracy"]["value"] == pytest.approx(exact / n)  # not task-free: the exact target
        distances = [
            math.dist(f["point"], target(r)["point_xy"]) / math.hypot(r["width"], r["height"])
            for f, r in zip(given, rows, strict=True)
            if f is not None and "point" in f
        ]
        assert got["mean_center_distance"]["n"] == len(distances)
        assert got["mean_center_distance"]["value"] == pytest.approx(sum(distances) / len(distances))


def test_resize_is_recorded_and_mapped_back_before_scoring(built: Path, tmp_path: Path) -> None:
    """--max-side 320 sends 320x240 images with the prompt in that frame; answers come back in the row's frame."""
    rows = rows_of(built, "curated_umd")
    requests = {r["example_id"]: r for r in requests_of(built, "curated_umd", "part_named", tmp_path)}
    by_prompt = {r["prompt"].replace("(640 x 480)", "(320 x 240)"): r for r in requests.values()}
    seen: list[str] = []

    def respond(messages: list[Any], *_: Any) -> Any:
        content = messages[-1].content
        (image,) = [c.image for c in content if isinstance(c, ContentImage)]
        (prompt,) = [c.text for c in content if isinstance(c, ContentText)]
        with PILImage.open(io.BytesIO(base64.b64decode(image.partition(",")[2]))) as sent:
            assert sent.size == (320, 240)
        row = rows[by_prompt[prompt]["example_id"]]  # KeyError = the prompt was not ours in the sent frame
        seen.append(row["example_id"])
        x, y = target(row)["point_xy"]
        return mock_reply(
            json.dumps({"part": row["target_part_id"], "action": row["target_action"], "point": [x / 2, y / 2]})
        )

    quiet = Console(file=io.StringIO())
    settings = EvalSettings(
        model=get_model("mockllm/model", custom_outputs=respond),
        configs=["curated_umd"],
        conditions=["part_named"],
        folder=built / "data/groundbench",
        out=tmp_path / "run",
        max_side=320,
        display="none",
    )
    result = run_eval(settings, quiet, quiet)
    assert sorted(seen) == sorted(requests)
    for line in map(json.loads, result.predictions.read_text().splitlines()):
        row = rows[line["example_id"]]
        assert (row["width"], row["height"]) == (640, 480)
        assert line["resize"] == {"row_size": [640, 480], "sent_size": [320, 240]}
        assert line["parsed"]["point"] == target(row)["point_xy"]  # doubled back, exactly
        assert json.loads(line["raw_response"])["point"] == [v / 2 for v in target(row)["point_xy"]]
        assert line["raw_parse"] == "strict"
    got = by_metric(json.loads(result.scores.read_text()), "curated_umd", "part_named")
    assert got["action_accuracy"]["value"] == 1.0
    assert got["mean_center_distance"]["value"] == 0.0
    assert json.loads(result.scores.read_text()) == score_cli(built, result.predictions, tmp_path / "s.json")


def _eval_command(root: Path, out: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "groundbench.cli",
        "--root",
        str(root),
        "eval",
        *CONFIGS,
        "--condition",
        "part_named",
        "--model",
        "openai-api/stub/stub-vlm",
        "--limit",
        "5",
        "--max-connections",
        "1",
        "--display",
        "none",
        "--out",
        str(out),
        *extra,
    ]


def _answered(out: Path) -> list[dict[str, Any]]:
    path = out / "answers.jsonl"
    if not path.is_file():
        return []
    return [json.loads(t) for t in path.read_text().splitlines() if t.endswith("}")]


def test_stub_server_gets_our_prompt_and_image_and_a_killed_run_resumes(
    built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Prompt verbatim and image sha256 at the server; SIGKILL mid-run; the rerun asks only what is unanswered."""
    wanted = {
        (config, r["example_id"]): (r["prompt"], r["image"]["sha256"])
        for config in CONFIGS
        for r in sorted(requests_of(built, config, "part_named", tmp_path), key=lambda r: r["example_id"])[:5]
    }
    for (config, example_id), (_, sha) in wanted.items():
        assert sha == rows_of(built, config)[example_id]["image_sha256"]
    reply = '{"part": "handle", "action": "grasp", "point": [1, 2]}'
    out = tmp_path / "run"
    with OpenAIStub(reply, delay=0.4) as stub:
        env = {
            **os.environ,
            "STUB_API_KEY": "test-key",
            "STUB_BASE_URL": stub.base_url,
            "XDG_DATA_HOME": str(tmp_path / "xdg"),
        }
        first = subprocess.Popen(_eval_command(built, out), cwd=tmp_path, env=env, start_new_session=True)
        deadline = time.monotonic() + 120
        while len(_answered(out)) < 3 and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
        assert first.returncode == -signal.SIGKILL, "the run finished before it could be killed"
        answered = {(a["config"], a["example_id"]) for a in _answered(out)}
        asked_first = list(stub.asked)
        assert 3 <= len(answered) < len(wanted)
        assert len(asked_first) <= len(answered) + 1  # one connection: at most one request was in flight
        assert not (out / "predictions.jsonl").exists()

        # the resumed runs run in this process (same code; only the killed run needs its own process)
        monkeypatch.setenv("STUB_API_KEY", "test-key")
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        assert main(_eval_command(built, out)[3:]) == 0
        asked_second = stub.asked[len(asked_first) :]
        # exactly the rows without an answer were asked again, nothing already answered
        assert sorted((a.prompt, a.image_sha256) for a in asked_second) == sorted(
            v for k, v in wanted.items() if k not in answered
        )

        predictions = (out / "predictions.jsonl").read_bytes()
        assert main(_eval_command(built, out)[3:]) == 0
        assert len(stub.asked) == len(asked_first) + len(asked_second)  # a finished run is not paid for twice
        assert (out / "predictions.jsonl").read_bytes() == predictions

    # every request carried our prompt verbatim and the row's own image bytes, image first
    for asked in stub.asked:
        assert (asked.prompt, asked.image_sha256) in wanted.values()
        (message,) = asked.body["messages"]
        assert [c["type"] for c in message["content"]] == ["image_url", "text"]
        assert asked.body["model"] == "stub-vlm"
        assert asked.body["temperature"] == 0
    assert {(a.prompt, a.image_sha256) for a in stub.asked} == set(wanted.values())

    lines = [json.loads(t) for t in (out / "predictions.jsonl").read_text().splitlines()]
    assert sorted((p["config"], p["example_id"]) for p in lines) == sorted(wanted)
    assert all(p["response"] == reply for p in lines)
    assert json.loads((out / "scores.json").read_text()) == score_cli(
        built, out / "predictions.jsonl", tmp_path / "s.json", subset=True
    )
    assert list((out / "logs").glob("*.eval"))  # inspect's own logs are kept beside them


def test_a_rebuilt_dataset_or_another_model_is_refused_for_a_run_folder(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Answers cached under one build are never mixed with rows of another (the gate fields differ)."""
    root = tmp_path / "project"
    shutil.copytree(built, root, symlinks=True)
    out = tmp_path / "run"
    command = ["eval", "curated_umd", "--condition", "part_named", "--model", "mockllm/model", "--display", "none"]
    assert run_cli(root, *command, "--limit", "2", "--out", str(out)) == 0
    before = [json.loads(t) for t in (out / "predictions.jsonl").read_text().splitlines()]
    assert [p["dataset_version"] for p in before] == ["0.1.0", "0.1.0"]

    params = yaml.safe_load((root / "params.yaml").read_text())
    params["dataset"]["version"] = "0.1.1"  # the dataset is rebuilt under the run with another version
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    assert run_cli(root, "assemble") == 0
    capsys.readouterr()
    # the scorer refuses the old predictions against the rebuilt data, unless told to override
    assert run_cli(root, "score", str(out / "predictions.jsonl"), "--subset") == 2
    assert "dataset_version" in capsys.readouterr().err
    assert run_cli(root, "score", str(out / "predictions.jsonl"), "--subset", "--allow-gate-mismatch") == 0
    assert "GATE OVERRIDDEN" in capsys.readouterr().err
    assert run_cli(root, *command, "--limit", "3", "--out", str(out)) == 2
    error = capsys.readouterr().err
    assert "dataset_version" in error and "'0.1.0'" in error and "'0.1.1'" in error
    assert (out / "predictions.jsonl").read_text() == "".join(json.dumps(p, sort_keys=True) + "\n" for p in before)

    # a fresh folder evaluates the rebuilt data, its lines carrying the new version
    assert run_cli(root, *command, "--limit", "3", "--out", str(tmp_path / "run2")) == 0
    after = [json.loads(t) for t in (tmp_path / "run2" / "predictions.jsonl").read_text().splitlines()]
    assert [p["dataset_version"] for p in after] == ["0.1.1"] * 3

    # a provider without its key fails before any row is read, in one line naming the variable
    capsys.readouterr()
    missing = [*command[:5], "openai-api/nokey/model", "--out", str(tmp_path / "run3")]
    assert "NOKEY_API_KEY" not in os.environ
    assert run_cli(root, *missing) == 2
    assert "NOKEY_API_KEY" in capsys.readouterr().err and not (tmp_path / "run3").exists()

    with pytest.raises(GroundBenchError, match="model"):
        run_eval(
            EvalSettings(
                model="openai-api/other/model",
                configs=["curated_umd"],
                conditions=["part_named"],
                folder=root / "data/groundbench",
                out=out,
            ),
            Console(file=io.StringIO()),
            Console(file=io.StringIO()),
        )


def test_inspect_eval_runs_the_registered_task(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`inspect eval groundbench/groundbench -T ...` (the entry point) asks our text-only prompt, no image;
    `groundbench eval-log` turns its log into the predictions and scores `groundbench eval` writes."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    requests = sorted(
        requests_of(built, "curated_umd", "part_named/text_only", tmp_path), key=lambda r: r["example_id"]
    )
    reply = '{"part": "handle", "action": "grasp"}'
    with OpenAIStub(reply) as stub:
        env = {**os.environ, "STUB_API_KEY": "k", "STUB_BASE_URL": stub.base_url, "XDG_DATA_HOME": str(tmp_path / "x")}
        command = [
            str(Path(sys.executable).parent / "inspect"),
            "eval",
            "groundbench/groundbench",
            "-T",
            "config=curated_umd",
            "-T",
            "condition=part_named/text_only",
            "-T",
            f"folder={built / 'data/groundbench'}",
            "--model",
            "openai-api/stub/stub-vlm",
            "--limit",
            "2",
            "--log-dir",
            str(tmp_path / "logs"),
            "--display",
            "none",
        ]
        done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        monkeypatch.setenv("STUB_API_KEY", "k")
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        same = ["eval", "curated_umd", "--condition", "part_named/text_only", "--model", "openai-api/stub/stub-vlm"]
        assert run_cli(built, *same, "--limit", "2", "--display", "none", "--out", str(tmp_path / "ours")) == 0
    assert len(stub.asked) == 4
    assert sorted(a.prompt for a in stub.asked) == sorted(2 * [r["prompt"] for r in requests[:2]])
    assert all(a.image_sha256 is None for a in stub.asked)
    (info,) = list_eval_logs(str(tmp_path / "logs"))
    log = read_eval_log(info.name)
    assert log.status == "success"  # inspect exits 0 even on errors: the log says what happened
    assert log.samples is not None
    assert [s.id for s in log.samples] == [r["example_id"] for r in requests[:2]]
    for sample, request in zip(log.samples, requests, strict=False):
        assert sample.metadata["template_sha256"] == request["template_sha256"]
        assert sample.metadata["dataset_version"] == "0.1.0"
        assert sample.output.completion == reply

    (path,) = (tmp_path / "logs").glob("*.eval")
    assert run_cli(built, "eval-log", str(path), "--subset", "--out", str(tmp_path / "from-log")) == 0
    for name in ("predictions.jsonl", "scores.json"):
        assert (tmp_path / "from-log" / name).read_bytes() == (tmp_path / "ours" / name).read_bytes()


def test_a_resized_answer_without_json_stays_malformed() -> None:
    """Nothing to map back: the line keeps the raw response, so the scorer still counts it malformed."""
    from groundbench.evaluate.predictions import prediction_line

    metadata = {
        "example_id": "x",
        "config": "curated_umd",
        "condition": "part_named",
        "dataset_version": "0.1.0",
        "manifest_sha256": "m",
        "template_sha256": "t",
        "resize": {"row_size": [640, 480], "sent_size": [320, 240]},
    }
    line = prediction_line(metadata, "m/x", "It is the handle.")
    assert line["response"] == "It is the handle." and "parsed" not in line
    fenced = prediction_line(metadata, "m/x", 'Sure: ```json\n{"action": "grasp", "box": [1, 2, 3, 4]}\n```')
    assert fenced["raw_parse"] == "lenient"
    assert fenced["parsed"] == {"part": None, "action": "grasp", "point": None, "box": [2.0, 4.0, 6.0, 8.0]}


def test_a_reply_with_a_lone_surrogate_is_kept_escaped_and_scored(
    built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Broken tokenizers emit lone surrogates (``"\\ud800"`` in otherwise valid JSON), which have no UTF-8 form:
    such a reply is stored with ``\\u`` escapes (read back to the same text), scored as the answer it is, and the
    run completes; the rerun asks nothing."""
    replies = [
        '{"part": "handle\ud800", "action": "grasp", "point": [1, 2]}',  # valid JSON: a parsed answer
        "\ud800 no JSON here",  # malformed, as it would be without the surrogate
        '{"part": "handle", "action": "grasp", "point": [1, 2]}',
    ]
    given: dict[str, str] = {}

    def reply(asked: Any) -> str:
        given[asked.prompt] = replies[(len(given)) % len(replies)]
        return given[asked.prompt]

    out = tmp_path / "run"
    command = ["--root", str(built), "eval", "curated_umd", "--condition", "part_named", "--limit", "3"]
    command += ["--model", "openai-api/stub/stub-vlm", "--max-connections", "1", "--display", "none", "--out", str(out)]
    with OpenAIStub(reply) as stub:
        monkeypatch.setenv("STUB_API_KEY", "test-key")
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        assert main(command) == 0
        assert main(command) == 0  # every answer was kept: nothing is asked again
        assert len(stub.asked) == 3
    for name in ("answers.jsonl", "predictions.jsonl"):
        text = (out / name).read_bytes().decode("utf-8")  # valid UTF-8: the surrogate is escaped
        assert "\\ud800" in text
        responses = sorted(json.loads(line)["response"] for line in text.splitlines())
        assert responses == sorted(replies)  # read back, the very text the model returned
    report = json.loads((out / "scores.json").read_text())
    assert json.loads((out / "scores.json").read_text()) == score_cli(
        built, out / "predictions.jsonl", tmp_path / "s.json", subset=True
    )
    parsed = {m["metric"]: m for m in report["metrics"] if m["config"] == "curated_umd"}
    assert (parsed["strict_parse_rate"]["count"], parsed["strict_parse_rate"]["n"]) == (2, 3)


def test_no_reply_is_told_from_a_reply_and_bounds_a_request_to_two_tries() -> None:
    """A try that timed out or could not connect is no reply (a tenacity RetryError carries it as its last try's
    exception); an HTTP error is a reply. inspect's whole-request bound lets a second try start, not a third."""
    from inspect_ai.model._model import AttemptTimeoutError

    from groundbench.evaluate.silence import ATTEMPT_TIMEOUT, no_reply, request_timeout

    class Attempt:  # tenacity's Future of the last try, as RetryError.last_attempt holds it
        def __init__(self, exc: BaseException) -> None:
            self.exc = exc

        def exception(self) -> BaseException:
            return self.exc

    class RetryError(Exception):  # tenacity's, in shape
        def __init__(self, last: Attempt) -> None:
            super().__init__("RetryError")
            self.last_attempt = last

    def retried(exc: BaseException) -> RetryError:
        return RetryError(Attempt(exc))

    class APIConnectionError(Exception):  # the openai SDK's name
        pass

    class InternalServerError(Exception):
        pass

    class APITimeoutError(APIConnectionError):  # the openai SDK's: a timeout, though a connection error by class
        pass

    assert no_reply(retried(AttemptTimeoutError(120))) == "timeout"
    assert no_reply(retried(APITimeoutError("Request timed out."))) == "timeout"
    assert no_reply(retried(APIConnectionError("Connection error."))) == "unreachable"
    assert no_reply(retried(InternalServerError("Error code: 500"))) is None
    assert no_reply(ValueError("a bug")) is None
    timeout = request_timeout(ATTEMPT_TIMEOUT)
    assert timeout is not None and ATTEMPT_TIMEOUT < timeout < 2 * ATTEMPT_TIMEOUT
    assert request_timeout(None) is None and request_timeout(1) == 2


# --- images by reference (issue 43): the old eager path against the new one -----------------------------
# main 39a0868's samples() (every valid row read whole, its image embedded as a data URI when the sample was
# built) is kept below as the old path; the new samples, their references materialized by the resolver inspect
# calls, must equal it message for message and in every metadata field the predictions line copies.

Row = Mapping[str, Any]


def eager_sample(row: Row, config: str, condition: str, gate: Mapping[str, str], max_side: int | None,
                 profile: Profile | None) -> Sample:  # fmt: skip
    """main 39a0868's ``to_sample`` and ``profiled_input``: the image read and encoded when the sample is built."""
    example_id = str(row["example_id"])
    where = f"{config}: {example_id}"
    metadata: dict[str, Any] = {"example_id": example_id, "config": config, "condition": condition, **gate}
    content: list[Content] = []
    prompt_row: Row = row
    if profile is not None:
        metadata.update(profile=profile.spec, answer_format=profile.format.spec)
    if not is_text_only(condition):
        data = verified_bytes((row["image"] or {}).get("bytes"), row["image_sha256"], where)
        size = profile.sent_size if profile is not None and profile.style.resized else None
        uri, frame = prepared_image(data, where, max_side, size)
        content.append(ContentImage(image=uri))
        if frame.resized:
            metadata["resize"] = frame.record()
            prompt_row = in_sent_frame(row, frame)
    if profile is None:
        content.append(ContentText(text=build_prompt(prompt_row, condition)))
        metadata["template_sha256"] = template_hash(condition)
        return Sample(id=example_id, input=[ChatMessageUser(content=content)], metadata=metadata)
    system, text = profile.prompt(prompt_row, condition)
    content.append(ContentText(text=text))
    messages: list[Any] = [] if system is None else [ChatMessageSystem(content=system)]
    messages.append(ChatMessageUser(content=content))
    metadata["template_sha256"] = profile.template_hash(condition)
    return Sample(id=example_id, input=messages, metadata=metadata)


def eager_samples(folder: Path, config: str, condition: str, max_side: int | None, limit: int | None,
                  profile: Profile | None) -> list[Sample]:  # fmt: skip
    dataset: Dataset = load_config(config, folder).cast_column("image", Image(decode=False))
    rows = enumerate(dataset.remove_columns("image"))
    chosen = sorted((row["example_id"], index) for index, row in rows if row_allows(row, condition))[:limit]
    gate = gate_fields(folder, config)
    return [eager_sample(dataset[index], config, condition, gate, max_side, profile) for _, index in chosen]


def materialized(sample: Sample) -> Sample:
    """The sample as inspect sends it: every ``groundbench://`` image resolved (inspect's resolver call)."""
    assert not isinstance(sample.input, str)
    for message in sample.input:
        for content in message.content if not isinstance(message.content, str) else []:
            if isinstance(content, ContentImage):
                assert content.image.startswith(f"{SCHEME}://")  # never bytes in the sample itself
                content.image = asyncio.run(resolve(content.image))
    return sample


CASES = [
    ("curated_umd", "part_named", None, None, None),
    ("bulk_umd", "part_named", None, 7, None),
    ("bulk_umd", "part_named", 100, None, None),  # resized: the prompt states the sent frame
    ("curated_umd", "part_named/text_only", None, None, None),
    ("bulk_umd", "part_named", None, 5, "qwen2.5-vl"),  # smart_resize and the family's prompt
]


@pytest.mark.parametrize(("config", "condition", "max_side", "limit", "profile_name"), CASES)
def test_referenced_samples_send_what_the_eager_samples_sent(
    built: Path, config: str, condition: str, max_side: int | None, limit: int | None, profile_name: str | None
) -> None:
    folder = built / "data/groundbench"
    profile = None if profile_name is None else parse_profile(profile_name)
    old = eager_samples(folder, config, condition, max_side, limit, profile)
    new = samples(folder, config, condition, gate_fields(folder, config), max_side, limit, profile)
    assert len(new) == len(old) > 0
    if limit is not None:
        assert len(new) == limit
    for before, after in zip(old, new, strict=True):
        image = (after.metadata or {}).pop("image", None)
        assert (image is None) == is_text_only(condition)
        after = materialized(after)
        assert after.id == before.id
        assert after.metadata == before.metadata
        assert [m.model_dump(exclude={"id"}) for m in after.input] == [
            m.model_dump(exclude={"id"}) for m in before.input
        ]


def test_logs_name_the_image_and_hold_no_bytes(built: Path, tmp_path: Path) -> None:
    """inspect's log keeps each sample's image reference, not its base64 bytes: a few KB per sample; the rows are
    asked in windows of samples, one log each, and a second command asks nothing."""
    from inspect_ai.log import read_eval_log

    out = tmp_path / "run"
    settings = EvalSettings(
        model="mockllm/model",
        configs=["bulk_umd"],
        conditions=["part_named"],
        folder=built / "data/groundbench",
        out=out,
        limit=20,
        display="none",
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("groundbench.evaluate.run.WINDOW", 8)
        result = run_eval(settings, Console(file=io.StringIO()), Console(file=io.StringIO()))
    assert result.asked == 20
    logs = sorted((out / "logs").glob("*.eval"))
    assert len(logs) == 3  # 8 + 8 + 4 samples
    asked = []
    for path in logs:
        log = read_eval_log(str(path), resolve_attachments=False)
        for sample in log.samples or []:
            text = sample.model_dump_json()
            assert ";base64," not in text
            assert sample.metadata["image"] == f"{SCHEME}://bulk_umd/{str(sample.id).replace('/', '%2F')}"
            asked.append(str(sample.id))
    assert len(asked) == len(set(asked)) == 20
    assert sum(path.stat().st_size for path in logs) / 20 <= 5_000
    again = run_eval(settings, Console(file=io.StringIO()), Console(file=io.StringIO()))
    assert again.asked == 0 and len(list((out / "logs").glob("*.eval"))) == 3


def test_inspect_control_server_starts_only_when_its_variable_asks(
    built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """inspect's control channel (`inspect ctl`) costs every window's start a FastAPI app and its server: eval runs
    without it unless INSPECT_EVAL_CTL_SERVER asks for it, and the answers are the same either way. inspect runs
    with the cyclic collector on: it is paused only while the command loads (groundbench/core/collector.py)."""
    from inspect_ai._control import server

    started: list[object] = []
    real_start = server.ControlServer.start

    async def start(self: server.ControlServer) -> None:
        started.append(gc.isenabled())  # the asking runs with the cyclic collector on (paused only while loading)
        await real_start(self)

    monkeypatch.setattr(server.ControlServer, "start", start)
    monkeypatch.delenv("INSPECT_EVAL_CTL_SERVER", raising=False)
    quiet = Console(file=io.StringIO())
    settings = EvalSettings(
        model="mockllm/model",
        configs=["bulk_umd"],
        conditions=["part_named"],
        folder=built / "data/groundbench",
        out=tmp_path / "off",
        limit=2,
        display="none",
    )
    assert run_eval(settings, quiet, quiet).asked == 2
    assert started == []
    monkeypatch.setenv("INSPECT_EVAL_CTL_SERVER", "true")
    on = EvalSettings(**{**settings.__dict__, "out": tmp_path / "on"})
    assert run_eval(on, quiet, quiet).asked == 2
    assert started == [True]
    for name in ("predictions.jsonl", "scores.json"):
        assert (tmp_path / "on" / name).read_bytes() == (tmp_path / "off" / name).read_bytes()
