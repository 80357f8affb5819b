"""``groundbench eval``: run the inspect task of every (config, condition), then write predictions and scores.

The run folder holds ``run.json`` (the settings the cache is bound to), ``answers.jsonl`` (the answer
cache, appended as answers arrive), ``logs/`` (inspect's own ``.eval`` logs), and, once every
requested row is answered, ``predictions.jsonl`` and ``scores.json`` (written atomically). Only rows
without a cached answer are asked, so an interrupted run continues where it stopped and a finished
run asks nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.model import Model, ModelOutput, ModelUsage, get_model
from rich.console import Console

from groundbench.core.atomic import write_text
from groundbench.errors import GroundBenchError
from groundbench.evaluate.cache import check_gate, check_settings, read_answers, write_settings
from groundbench.evaluate.predictions import GATE_FIELDS, jsonl
from groundbench.evaluate.profile import check_resize
from groundbench.evaluate.samples import NoValidRows
from groundbench.evaluate.score import score_file
from groundbench.evaluate.task import groundbench
from groundbench.scoring.profiles import parse_profile

PREDICTIONS = "predictions.jsonl"
SCORES = "scores.json"
LOGS = "logs"
MOCK = "mockllm/model"
# What the offline mock model answers to every prompt: it exercises the plumbing, not a model.
MOCK_ANSWER = '{"part": "mock", "action": "none", "point": [0, 0]}'
# Providers built on the openai SDK retry on their own as well; inspect's retries are the ones we set.
OPENAI_SDK_APIS = ("openai", "openai-api", "vllm", "sglang", "together", "fireworks", "groq", "ollama", "openrouter")


@dataclass(frozen=True)
class EvalSettings:
    model: str | Model
    configs: Sequence[str]
    conditions: Sequence[str]
    folder: Path
    out: Path
    limit: int | None = None
    max_side: int | None = None
    max_connections: int = 4
    max_retries: int = 3
    attempt_timeout: int | None = 300
    temperature: float | None = 0.0
    max_tokens: int | None = None
    model_args: Mapping[str, Any] = field(default_factory=dict)
    model_base_url: str | None = None
    display: str | None = None
    profile: str | None = None  # a model profile (groundbench.scoring.profiles): prompt, frame, answer format


@dataclass(frozen=True)
class EvalResult:
    rows: int  # rows requested over every (config, condition)
    cached: int  # answered by an earlier run, not asked again
    asked: int  # sent to the model by this run
    predictions: Path
    scores: Path


def mock_reply(text: str) -> ModelOutput:
    output = ModelOutput.from_content(model="mockllm", content=text)
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # else mockllm counts with tiktoken
    return output


def resolve_model(model: str | Model) -> str | Model:
    """``mockllm/model`` answers ``MOCK_ANSWER`` offline; any other name goes to inspect unchanged."""
    if model == MOCK:
        return get_model(MOCK, custom_outputs=lambda *_: mock_reply(MOCK_ANSWER))
    return model


def providers() -> list[str]:
    """The model providers inspect knows (empty if its registry cannot be read)."""
    try:  # inspect's registry is not public API: without it the error simply names no providers
        from inspect_ai._util.registry import registry_find, registry_info, registry_unqualified_name

        found = registry_find(lambda info: info.type == "modelapi")
        return sorted({registry_unqualified_name(registry_info(api)) for api in found})
    except (ImportError, AttributeError, TypeError):
        return []


def check_model(model: str | Model, base_url: str | None, model_args: Mapping[str, Any]) -> None:
    """Build the model's client once before any row is read, so a missing key or package fails first, in one line."""
    from inspect_ai._util.error import PrerequisiteError  # not re-exported; the error inspect raises for these

    if not isinstance(model, str):
        return
    provider, slash, name = model.partition("/")
    if not (provider and slash and name):  # inspect's own ValueError would end in a stack
        expected = f"inspect's PROVIDER/MODEL, e.g. openai/gpt-4o or {MOCK} (offline)"
        raise GroundBenchError("command line", "--model", f"expected {expected}, found {model!r}")
    try:
        get_model(model, base_url=base_url, **model_args)
    except ValueError as exc:
        known = providers()  # read after get_model, which loads the providers other packages register
        if provider in known:
            raise  # the provider's own complaint, not about the name
        reason = f"inspect knows no provider {provider!r} (providers: {', '.join(known)})" if known else str(exc)
        raise GroundBenchError("command line", "--model", f"{model!r}: {reason}") from exc
    except PrerequisiteError as exc:
        message = " ".join(re.sub(r"\[/?[a-z ]+\]", "", str(exc)).split())  # drop rich markup and line breaks
        raise GroundBenchError("environment", "--model", f"{model}: {message}") from exc


def model_args_for(model: str | Model, given: Mapping[str, Any]) -> dict[str, Any]:
    api = model.split("/", 1)[0] if isinstance(model, str) else ""
    return {**({"max_retries": 0} if api in OPENAI_SDK_APIS else {}), **given}


def cache_settings(settings: EvalSettings) -> dict[str, Any]:
    """What answers in the cache depend on: a later run of the same folder must match them."""
    return {
        "model": str(settings.model),
        "max_side": settings.max_side,
        "temperature": settings.temperature,
        "max_tokens": settings.max_tokens,
        "model_base_url": settings.model_base_url,
        **({} if settings.profile is None else {"profile": settings.profile}),
    }


def _todo(task: Task, keep: set[str]) -> Task:
    task.dataset = task.dataset.filter(lambda sample: str(sample.id) in keep)
    return task


def run_eval(settings: EvalSettings, out: Console, err: Console) -> EvalResult:
    if settings.limit is not None and settings.limit < 1:
        raise GroundBenchError("command line", "--limit", f"expected a positive number, found {settings.limit}")
    if settings.max_side is not None and settings.max_side < 16:
        raise GroundBenchError("command line", "--max-side", f"expected at least 16 pixels, found {settings.max_side}")
    if settings.profile is not None:
        settings = replace(settings, profile=parse_profile(settings.profile).spec)  # canonical, so run.json compares
        check_resize(parse_profile(settings.profile), settings.max_side)
    model = resolve_model(settings.model)
    model_args = model_args_for(settings.model, settings.model_args)
    check_model(model, settings.model_base_url, model_args)
    run = settings.out
    check_settings(run, cache_settings(settings))
    cached = read_answers(run)
    tasks: list[Task] = []
    wanted: list[tuple[str, str, str]] = []
    gates: dict[tuple[str, str], dict[str, str]] = {}
    for config in settings.configs:
        for condition in settings.conditions:
            try:
                task = groundbench(
                    config,
                    condition,
                    str(settings.folder),
                    settings.max_side,
                    str(run),
                    settings.limit,
                    settings.profile,
                )
            except NoValidRows as exc:  # configs x conditions: a GUI suite has no part_named rows, and so on
                err.print(f"{config} / {condition}: skipped ({exc.reason})")
                continue
            ids = [str(sample.id) for sample in task.dataset]
            first = task.dataset[0].metadata or {}
            gates[(config, condition)] = {name: first[name] for name in GATE_FIELDS}
            keys = [(config, condition, example_id) for example_id in ids]
            wanted += keys
            todo = {k[2] for k in keys if k not in cached}
            done = len(ids) - len(todo)
            err.print(f"{config} / {condition}: {len(ids)} rows, {done} answered earlier, {len(todo)} to ask")
            if todo:
                tasks.append(_todo(task, todo))
    if not wanted:
        raise GroundBenchError(
            settings.folder,
            "condition",
            f"no row of {list(settings.configs)} is valid under {list(settings.conditions)}",
        )
    check_gate(run, cached.values(), gates)
    write_settings(run, cache_settings(settings))  # nothing is written before every check has passed
    asked = sum(len(t.dataset) for t in tasks)
    if tasks:
        inspect_eval(
            tasks,
            model=model,
            model_args=model_args,
            model_base_url=settings.model_base_url,
            log_dir=str(run / LOGS),
            display=settings.display,  # type: ignore[arg-type]
            fail_on_error=False,  # one failing row must not cancel the others; it is asked again next run
            max_connections=settings.max_connections,
            max_retries=settings.max_retries,
            attempt_timeout=settings.attempt_timeout,
            temperature=settings.temperature,
            max_tokens=settings.max_tokens,
        )
    answers = read_answers(run)
    missing = [k for k in wanted if k not in answers]
    if missing:
        raise GroundBenchError(
            run / "answers.jsonl",
            "answers",
            f"{len(missing)} of {len(wanted)} rows are still unanswered (first: {' / '.join(missing[0])}; "
            f"the errors are in {run / LOGS}): run the same command again to ask only those",
        )
    predictions = run / PREDICTIONS
    write_text(predictions, jsonl(answers[k] for k in wanted))
    scores = run / SCORES
    score_file(predictions, settings.folder, scores, out, err, subset=settings.limit is not None)
    return EvalResult(len(wanted), len(wanted) - asked, asked, predictions, scores)


def predictions_from_logs(logs: Sequence[Path]) -> list[dict[str, Any]]:
    """The predictions lines of answered samples in inspect logs of our task (``inspect eval groundbench/...``)."""
    from inspect_ai.log import read_eval_log

    from groundbench.evaluate.predictions import key, prediction_line

    lines: dict[tuple[str, str, str], dict[str, Any]] = {}
    for path in logs:
        try:
            log = read_eval_log(str(path))
        except (OSError, ValueError) as exc:
            raise GroundBenchError(path, "file", f"expected an inspect log (.eval or .json) ({exc})") from exc
        for sample in log.samples or []:
            metadata = sample.metadata or {}
            if "example_id" not in metadata or "template_sha256" not in metadata:
                raise GroundBenchError(path, "samples", f"sample {sample.id} was not made by the groundbench task")
            if sample.error is None and sample.output is not None:
                line = prediction_line(metadata, str(log.eval.model), sample.output.completion)
                if lines.setdefault(key(line), line) != line:
                    raise GroundBenchError(path, "samples", f"two different answers for {' / '.join(key(line))}")
    if not lines:
        raise GroundBenchError(", ".join(map(str, logs)), "samples", "no answered sample in these logs")
    return list(lines.values())


def score_logs(
    logs: Sequence[Path], folder: Path, run: Path, out: Console, err: Console, subset: bool = False
) -> EvalResult:
    """Write ``predictions.jsonl`` and ``scores.json`` into ``run`` from inspect logs of our task."""
    lines = predictions_from_logs(logs)
    predictions = run / PREDICTIONS
    write_text(predictions, jsonl(lines))
    scores = run / SCORES
    score_file(predictions, folder, scores, out, err, subset=subset)
    return EvalResult(len(lines), len(lines), 0, predictions, scores)
