"""The inspect-ai task: one (config, condition) of a published GroundBench folder.

``groundbench eval`` runs it; so can ``inspect eval groundbench/groundbench -T config=... -T
condition=...`` (the package registers it under the ``inspect_ai`` entry point), offline too: a bare
``--model mockllm/model`` is replaced by GroundBench's mock (:mod:`.mock`). Its solver asks the model
once (``generate``) and, when given an answers file, appends the predictions line at once.

Its scorer records each answer's format (strict JSON, any JSON) and declares no metric: GroundBench's
figures need the whole group (tau, baselines, bootstrap) and come from ``groundbench.scoring`` on the
predictions, so inspect's display shows no number rather than one that reads as a score.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig, Model
from inspect_ai.scorer import Score, Target, scorer
from inspect_ai.solver import Generate, TaskState, generate, solver

from groundbench.core.interrupts import cancel_running_loop, requested
from groundbench.evaluate import silence
from groundbench.evaluate.cache import AnswerLog
from groundbench.evaluate.gate_fields import gate_fields
from groundbench.evaluate.mock import is_bare_mock, offline_mock
from groundbench.evaluate.predictions import prediction_line
from groundbench.evaluate.profile import check_resize
from groundbench.evaluate.samples import samples
from groundbench.loaders.published import resolve_folder
from groundbench.scoring.parse import MALFORMED, STRICT, parse_response
from groundbench.scoring.profiles import Profile, parse_profile


@solver
def record_answer(answers_folder: str):
    """Append each answered sample's predictions line to the run folder's answer cache."""
    log = AnswerLog(Path(answers_folder))

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        log.append(prediction_line(state.metadata, str(state.model), state.output.completion))
        return state

    return solve


@solver
def ask_while_answered(answers_folder: str):
    """inspect's ``generate``, unless the server has stopped answering this command (:mod:`.silence`)."""
    watch = silence.watch(answers_folder)
    ask = generate()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        watch.refuse()
        started = time.monotonic()
        try:
            state = await ask(state, generate)
        except Exception as exc:
            watch.failed(exc, started)
            raise
        watch.answered()
        return state

    return solve


@solver
def unless_interrupted():
    """Ask nothing more once the command was interrupted (a Ctrl-C some code swallowed before the loop ran)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if requested():
            cancel_running_loop(sys._getframe())
            state.completed = True  # the steps after this one (the request) are skipped
        return state

    return solve


@scorer(metrics=[])
def answer_format():
    """Whether the raw answer was one bare JSON object (strict), or held one at all (strict or lenient)."""

    async def score(state: TaskState, target: Target) -> Score:
        status = parse_response(state.output.completion).status
        return Score(
            value={"strict_json": float(status == STRICT), "any_json": float(status != MALFORMED)},
            answer=state.output.completion,
            metadata={"parse": status},
        )

    return score


@task
def groundbench(
    config: str = "curated_gapartnet",
    condition: str = "part_named",
    folder: str | None = None,
    max_side: int | None = None,
    answers_folder: str | None = None,
    first: int | None = None,
    profile: str | None = None,
) -> Task:
    """Every row of ``config`` valid under ``condition`` (the ``first`` N by example id), asked with
    GroundBench's prompt and image, or under a model ``profile`` (``-T profile=qwen2.5-vl``)."""
    root = resolve_folder(folder)  # -T folder=...: a folder or Hub repo id, else what `--data` defaults to
    chosen = None if profile is None else parse_profile(profile)
    check_resize(chosen, max_side)
    built = samples(root, config, condition, gate_fields(root, config), max_side, first, chosen)
    return build_task(
        config, condition, built, chosen, answers_folder, offline_mock() if is_bare_mock(eval_model()) else None
    )


def build_task(
    config: str,
    condition: str,
    built: list[Sample],
    profile: Profile | None,
    answers_folder: str | None,
    model: Model | None = None,
) -> Task:
    """The inspect task asking ``built`` (samples of one (config, condition)); ``groundbench eval`` runs one per
    window of rows, :func:`groundbench` one for all."""
    dataset = MemoryDataset(built, name=f"{config}-{condition.replace('/', '-')}")
    steps = [generate()]
    if answers_folder is not None:  # groundbench eval: the answer cache, and its Ctrl-C
        steps = [unless_interrupted(), ask_while_answered(answers_folder), record_answer(answers_folder)]
    name = f"groundbench_{config}_{condition.replace('/', '_')}"  # a '/' would cut the log's file name
    # The profile's server options (Qwen2-VL / OS-Atlas: keep the box tokens the answer is written in).
    body = profile.request_body if profile is not None else {}
    options = GenerateConfig(extra_body=body) if body else GenerateConfig()
    return Task(dataset=dataset, solver=steps, scorer=answer_format(), name=name, model=model, config=options)


def eval_model() -> Model | None:
    """The model inspect builds this task for (None when the task is built outside inspect's eval)."""
    try:  # not re-exported by inspect; without it a bare mock falls back to inspect's own (online) counting
        from inspect_ai.model._model import active_model
    except ImportError:
        return None
    return active_model()
