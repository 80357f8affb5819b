"""A `groundbench eval` run folder: it accumulates, it is bound to one setting, Ctrl-C keeps what was answered,
and it has one writer at a time. Plus the inspect route with the mock model, offline.

Against the mock model and the loopback OpenAI-compatible server (tests/openai_stub.py), on a UMD build
made once for the module. What a complete run must hold is taken from `groundbench requests`.
"""

from __future__ import annotations

import asyncio
import csv
import dataclasses
import io
import json
import os
import random
import signal
import subprocess
import sys
import time
import weakref
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log
from inspect_ai.model import Model, get_model
from rich.console import Console

from groundbench.cli import main
from groundbench.core.failures import Interrupted
from groundbench.core.interrupts import interruptible
from groundbench.errors import GroundBenchError
from groundbench.evaluate.mock import MOCK_ANSWER, mock_reply
from groundbench.evaluate.run import EvalResult, EvalSettings, run_eval
from groundbench.evaluate.runfolder import SETTING, check_setting, run_setting, setting_defaults
from groundbench.evaluate.task import groundbench
from tests.conftest import run_cli
from tests.support.faults import child_env, error_line
from tests.support.openai_stub import OpenAIStub

SEED = 20261203
REPLY = '{"part": "handle", "action": "grasp", "point": [1, 2]}'
CONFIGS = ("curated_umd", "bulk_umd")
RESUME = "run the same command again to resume"


def request_ids(root: Path, config: str, condition: str, tmp: Path) -> list[str]:
    """The example ids `groundbench requests` writes for (config, condition), sorted: what a complete run answers."""
    out = tmp / f"requests-{config}-{condition.replace('/', '-')}.jsonl"
    assert run_cli(root, "requests", config, "--condition", condition, "--out", str(out)) == 0
    return sorted(json.loads(line)["example_id"] for line in out.read_text().splitlines())


def predicted(out: Path) -> list[tuple[str, str, str]]:
    lines = [json.loads(t) for t in (out / "predictions.jsonl").read_text().splitlines()]
    return [(p["config"], p["condition"], p["example_id"]) for p in lines]


def answered(out: Path) -> list[dict[str, Any]]:
    path = out / "answers.jsonl"
    return [json.loads(t) for t in path.read_text().splitlines() if t.endswith("}")] if path.is_file() else []


def counting_mock(calls: list[str]) -> Model:
    """The mock model answering REPLY, recording each prompt it is asked."""

    def respond(messages: list[Any], *_: Any) -> Any:
        calls.append(messages[-1].text)
        return mock_reply(REPLY)

    return get_model("mockllm/model", custom_outputs=respond)


def test_evals_with_other_conditions_and_limits_accumulate_in_one_folder(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """part_named (2 rows), then image_only, then all of part_named, then 1 row of it: the folder's predictions
    and scores always cover every answer it holds; `table` shows both conditions."""
    folder = built / "data/groundbench"
    named = request_ids(built, "curated_umd", "part_named", tmp_path)
    image = request_ids(built, "curated_umd", "image_only", tmp_path)
    calls: list[str] = []
    model = counting_mock(calls)
    out = tmp_path / "run"
    quiet = Console(file=io.StringIO())

    def evaluate(condition: str, limit: int | None = None) -> EvalResult:
        settings = EvalSettings(model, ["curated_umd"], [condition], folder, out, limit=limit, display="none")
        return run_eval(settings, quiet, quiet)

    def report() -> dict[str, Any]:
        return json.loads((out / "scores.json").read_text())

    first = evaluate("part_named", limit=2)
    assert (first.asked, first.scored) == (2, 2)
    assert predicted(out) == [("curated_umd", "part_named", i) for i in named[:2]]
    assert report()["settings"]["subset"] is True  # two of the rows: a deliberate subset

    second = evaluate("image_only")
    assert (second.rows, second.cached, second.asked, second.scored) == (len(image), 0, len(image), 2 + len(image))
    both = sorted(
        [("curated_umd", "part_named", i) for i in named[:2]] + [("curated_umd", "image_only", i) for i in image]
    )
    assert predicted(out) == both  # the first command's answers are still scored
    assert report()["settings"]["subset"] is True  # part_named is still short of rows

    third = evaluate("part_named")
    assert (third.cached, third.asked) == (2, len(named) - 2)  # only the rows without an answer were asked
    every = sorted(
        [("curated_umd", "part_named", i) for i in named] + [("curated_umd", "image_only", i) for i in image]
    )
    assert predicted(out) == every
    scored = report()
    assert scored["settings"]["subset"] is False  # every valid row of both conditions: scored as complete
    assert {m["condition"] for m in scored["metrics"]} == {"part_named", "image_only"}
    assert len(calls) == len(named) + len(image)

    predictions, scores = (out / "predictions.jsonl").read_bytes(), (out / "scores.json").read_bytes()
    fourth = evaluate("part_named", limit=1)
    assert (fourth.rows, fourth.asked, fourth.scored) == (1, 0, len(named) + len(image))
    assert (out / "predictions.jsonl").read_bytes() == predictions and (out / "scores.json").read_bytes() == scores
    assert len(calls) == len(named) + len(image)  # nothing is asked twice

    # the report is `groundbench score` on the folder's predictions; `table` reads the folder's both conditions
    assert run_cli(built, "score", str(out / "predictions.jsonl"), "--json", str(tmp_path / "again.json")) == 0
    assert json.loads((tmp_path / "again.json").read_text()) == scored
    capsys.readouterr()
    assert run_cli(built, "table", str(out), "--format", "csv") == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert {(r["config"], r["condition"]) for r in rows} == {
        ("curated_umd", "part_named"),
        ("curated_umd", "image_only"),
    }

    # inspect's own logs carry no metric that could read as a score (the answer format is per sample)
    for log in (out / "logs").glob("*.eval"):
        results = read_eval_log(str(log)).results
        assert results is not None and all(score.metrics == {} for score in results.scores)


def test_a_command_with_another_setting_is_refused_in_one_line_naming_it(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    command = ["eval", "curated_umd", "--condition", "part_named", "--model", "mockllm/model", "--display", "none"]
    assert run_cli(built, *command, "--limit", "2", "--out", str(out)) == 0
    before = (out / "answers.jsonl").read_bytes(), (out / "predictions.jsonl").read_bytes()
    for extra, name, was, now in (
        (["--temperature", "0.5"], "temperature", "0.0", "0.5"),
        (["--max-side", "320"], "max_side", "None", "320"),
        (["--model", "mockllm/other"], "model", "'mockllm/model'", "'mockllm/other'"),
    ):
        capsys.readouterr()
        assert run_cli(built, *command, *extra, "--condition", "image_only", "--out", str(out)) == 2
        lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith(f"error: {out / 'run.json'}: {name}: "), lines
        assert f"{name}={was}" in lines[0] and f"asks {now}" in lines[0]
    assert ((out / "answers.jsonl").read_bytes(), (out / "predictions.jsonl").read_bytes()) == before

    # a run.json written before a setting existed is read as holding that setting's default
    recorded = json.loads((out / "run.json").read_text())
    del recorded["temperature"]
    (out / "run.json").write_text(json.dumps(recorded))
    assert run_cli(built, *command, "--limit", "3", "--out", str(out)) == 0
    assert json.loads((out / "run.json").read_text())["temperature"] == 0.0
    assert len(predicted(out)) == 3

    # a command that fails before anything is asked leaves no folder of its own behind
    assert run_cli(built, *command[:3], "no_such_condition", *command[4:], "--out", str(tmp_path / "new")) == 2
    assert not (tmp_path / "new").exists()


def test_a_new_setting_field_joins_run_json_by_being_marked(tmp_path: Path) -> None:
    """What a later option (an answer format, a profile) needs: a marked field, nothing else."""

    @dataclasses.dataclass(frozen=True)
    class Later(EvalSettings):
        answer_format: str = dataclasses.field(default="json", metadata=SETTING)

    base = dict(model="m/x", configs=["c"], conditions=["k"], folder=tmp_path, out=tmp_path)
    old = run_setting(EvalSettings(**base))  # type: ignore[arg-type]
    assert set(old) == {"model", "max_side", "temperature", "max_tokens", "model_base_url", "profile"}
    (tmp_path / "run.json").write_text(json.dumps(old))
    same = Later(**base)  # type: ignore[arg-type]
    assert run_setting(same) == {**old, "answer_format": "json"}
    check_setting(tmp_path, run_setting(same), setting_defaults(same))  # the old folder, the default: accepted
    other = Later(**base, answer_format="xml")  # type: ignore[arg-type]
    with pytest.raises(GroundBenchError, match="answer_format='json', this command asks 'xml'"):
        check_setting(tmp_path, run_setting(other), setting_defaults(other))


# Ctrl-C ------------------------------------------------------------------------------------------------


def _stub_command(root: Path, out: Path, display: str) -> list[str]:
    return [
        sys.executable, "-m", "groundbench.cli", "--root", str(root), "eval", *CONFIGS, "--condition", "part_named",
        "--model", "openai-api/stub/stub-vlm", "--max-connections", "2", "--display", display, "--out", str(out),
    ]  # fmt: skip


def _stub_env(stub: OpenAIStub, tmp: Path) -> dict[str, str]:
    return child_env(STUB_API_KEY="k", STUB_BASE_URL=stub.base_url, XDG_DATA_HOME=str(tmp / "xdg"))


def _wait(process: subprocess.Popen[str], ready: Any, limit: float = 240) -> None:
    deadline = time.monotonic() + limit
    while process.poll() is None and not ready() and time.monotonic() < deadline:
        time.sleep(0.01)


@pytest.mark.parametrize(
    ("moment", "display"),
    [
        ("while it answers", "none"),
        ("while it answers", "log"),
        ("while it answers", "plain"),
        ("as inspect starts", "log"),
    ],
)
def test_ctrl_c_keeps_the_answers_says_so_in_one_line_and_the_rerun_resumes(
    built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, moment: str, display: str
) -> None:
    """SIGINT to the process group (as a terminal sends it) at a seeded moment: after a seeded number of
    answers, or as inspect starts its run (its folder bound, nothing asked yet)."""
    rng = random.Random(f"{SEED}-{moment}-{display}")
    wanted = {(c, i) for c in CONFIGS for i in request_ids(built, c, "part_named", tmp_path)}
    out = tmp_path / "run"
    with OpenAIStub(REPLY, delay=0.3) as stub:
        process = subprocess.Popen(
            _stub_command(built, out, display), env=_stub_env(stub, tmp_path), cwd=tmp_path,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        )  # fmt: skip
        if moment == "as inspect starts":
            _wait(process, (out / "run.json").is_file)
            time.sleep(rng.uniform(0.0, 0.2))
        else:
            enough = rng.randint(1, 6)
            _wait(process, lambda: len(answered(out)) >= enough)
            time.sleep(rng.uniform(0.0, 0.3))
        assert process.poll() is None, "the run ended before it could be interrupted"
        os.killpg(process.pid, signal.SIGINT)
        stdout, stderr = process.communicate(timeout=180)
        result = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
        kept = {(a["config"], a["example_id"]) for a in answered(out)}
        assert result.returncode == 130, stderr
        assert error_line(result) == f"error: interrupted: {len(kept)} of {len(wanted)} answered, kept; {RESUME}"
        assert len(kept) < len(wanted) and not (out / "predictions.jsonl").exists()

        # the same command again asks exactly the rest, then writes the complete predictions
        before = len(stub.asked)
        stub.delay = 0.0
        monkeypatch.setenv("STUB_API_KEY", "k")
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        assert main(_stub_command(built, out, "none")[3:]) == 0
        assert len(stub.asked) - before == len(wanted) - len(kept)
    assert {(c, i) for c, _, i in predicted(out)} == wanted


class SwallowingStream(io.StringIO):
    """A console stream that, on its first write, meets a Ctrl-C inside a weakref callback: there Python prints
    the KeyboardInterrupt as "ignored" and runs on, as it did under inspect (a WeakSet's callback)."""

    def __init__(self) -> None:
        super().__init__()
        self.sent = False

    def write(self, text: str) -> int:
        if not self.sent:
            self.sent = True
            weakref.finalize(SwallowingStream(), os.kill, os.getpid(), signal.SIGINT)  # runs at once: the object dies
        return super().write(text)


def test_a_ctrl_c_swallowed_by_a_callback_still_stops_the_run(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    calls: list[str] = []
    out = tmp_path / "run"
    settings = EvalSettings(
        counting_mock(calls), ["curated_umd"], ["part_named"], built / "data/groundbench", out, display="none"
    )
    stream = SwallowingStream()
    with pytest.raises(Interrupted) as raised:
        run_eval(settings, Console(file=io.StringIO()), Console(file=stream))
    assert stream.sent
    assert str(raised.value) == f"interrupted: 0 of 5 answered, kept; {RESUME}"
    assert calls == [] and not out.exists()  # nothing asked, and no folder of its own left behind
    assert "Exception ignored" not in capsys.readouterr().err  # the interrupt was taken, not printed as lost


def test_inside_inspect_a_recorded_ctrl_c_cancels_the_run_before_a_row_is_asked(built: Path, tmp_path: Path) -> None:
    """A Ctrl-C recorded while inspect was still setting up (no loop to cancel yet) stops it at the first sample."""
    calls: list[str] = []
    task = groundbench("curated_umd", "part_named", str(built / "data/groundbench"), None, str(tmp_path / "run"), None)
    with interruptible() as interruption:
        interruption.count = 1
        try:
            (log,) = inspect_eval(task, model=counting_mock(calls), display="none", log_dir=str(tmp_path / "logs"))
            assert log.status == "cancelled"
        except asyncio.CancelledError:
            pass  # cancelled before its log had a result, inspect re-raises (run_eval makes either its one line)
    assert calls == [] and answered(tmp_path / "run") == []


# one writer -------------------------------------------------------------------------------------------


def test_a_second_eval_into_a_folder_in_use_refuses_in_one_line(
    built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    command = [*_stub_command(built, out, "none"), "--limit", "5", "--max-connections", "1"]
    with OpenAIStub(REPLY, delay=0.4) as stub:
        first = subprocess.Popen(
            command, env=_stub_env(stub, tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        _wait(first, lambda: len(answered(out)) >= 1)
        assert first.poll() is None, "the first run ended before the second could start"
        monkeypatch.setenv("STUB_API_KEY", "k")
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        capsys.readouterr()
        assert main(command[3:]) == 2
        lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
        assert lines == [
            f"error: {out / '.lock'}: lock: another groundbench eval is writing this run folder; wait for it to "
            "finish, then run again"
        ]
        assert first.poll() is None  # refused while the first still runs: it never wrote beside it
        _, stderr = first.communicate(timeout=180)
        assert first.returncode == 0, stderr
    keys = [(a["config"], a["example_id"]) for a in answered(out)]
    assert len(keys) == len(set(keys)) == 10 == len(stub.asked)  # one writer: every row answered once
    assert len(predicted(out)) == 10


@pytest.mark.parametrize("where", ["run", "run/inside"])
def test_an_out_that_is_a_file_says_what_to_give_instead(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    """``--out`` naming a file (or a folder below a file) is refused in one line saying what --out must be."""
    (tmp_path / "run").write_text("notes\n")
    out = tmp_path / where
    command = ["--root", str(built), "eval", "curated_umd", "--condition", "part_named", "--model", "mockllm/model"]
    assert main([*command, "--display", "none", "--out", str(out)]) == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: {out}: --out: ")
    assert ("--out is a file" if where == "run" else f"{tmp_path / 'run'} is a file") in lines[0]
    assert "give a folder, new or one an earlier eval wrote" in lines[0]
    assert (tmp_path / "run").read_text() == "notes\n"


# the inspect route -------------------------------------------------------------------------------------


def test_inspect_eval_with_the_mock_model_runs_offline(built: Path, tmp_path: Path) -> None:
    """`inspect eval groundbench/groundbench --model mockllm/model` as documented, with no way to download:
    the mock answers GroundBench's JSON, the display shows no score, and `eval-log` scores the log."""
    env = child_env(
        XDG_DATA_HOME=str(tmp_path / "xdg"),
        TIKTOKEN_CACHE_DIR=str(tmp_path / "no-encodings"),  # an empty cache: an encoding would be downloaded
        HTTPS_PROXY="http://127.0.0.1:9",  # and any download fails at once (nothing listens there)
        HTTP_PROXY="http://127.0.0.1:9",
    )
    logs = tmp_path / "logs"
    command = [
        str(Path(sys.executable).parent / "inspect"), "eval", "groundbench/groundbench",
        "-T", "config=curated_umd", "-T", "condition=part_named", "-T", f"folder={built / 'data/groundbench'}",
        "--model", "mockllm/model", "--log-dir", str(logs), "--display", "plain",
    ]  # fmt: skip
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
    assert "mean:" not in done.stdout and "mean " not in done.stdout  # no format rate that reads as a score
    (path,) = logs.glob("*.eval")
    log = read_eval_log(str(path))
    assert log.status == "success" and log.samples is not None and len(log.samples) == 5
    assert {sample.output.completion for sample in log.samples} == {MOCK_ANSWER}
    assert run_cli(built, "eval-log", str(path), "--out", str(tmp_path / "from-log")) == 0
    assert len(predicted(tmp_path / "from-log")) == 5
