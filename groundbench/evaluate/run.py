"""``groundbench eval``: run the inspect task of every (config, condition), then write predictions and scores.

The run folder (one command at a time: :mod:`.runfolder`) holds ``run.json`` (the setting it is bound
to), ``answers.jsonl`` (the answer cache, appended as answers arrive), ``logs/`` (inspect's own
``.eval`` logs), and, once every requested row is answered, ``predictions.jsonl`` and ``scores.json``
(written atomically). Only rows without a cached answer are asked, so an interrupted run continues
where it stopped and a finished run asks nothing. The folder accumulates: predictions and scores
cover every answer in it, whichever configs and conditions the latest command named.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import Model, get_model
from rich.console import Console
from rich.markup import escape

from groundbench.core.atomic import write_text
from groundbench.core.collector import loading
from groundbench.core.failures import Interrupted
from groundbench.core.interrupts import Interruption, interruptible
from groundbench.errors import GroundBenchError
from groundbench.evaluate import silence
from groundbench.evaluate.cache import (
    ANSWERS,
    CachedAnswers,
    Key,
    check_gate,
    scan_answers,
    write_failure,
    write_predictions,
)
from groundbench.evaluate.gate_fields import answer_gate, gate_fields
from groundbench.evaluate.mock import MOCK, is_bare_mock, offline_mock
from groundbench.evaluate.predictions import jsonl
from groundbench.evaluate.profile import check_resize
from groundbench.evaluate.runfolder import SETTING, check_setting, held, run_setting, setting_defaults, write_setting
from groundbench.evaluate.samples import NoValidRows, chosen_rows, loading_once, samples_of, valid_example_ids
from groundbench.evaluate.silence import ATTEMPT_TIMEOUT, request_timeout, stopped_answering
from groundbench.evaluate.task import build_task
from groundbench.loaders.published import resolve_folder
from groundbench.scoring.profiles import parse_profile

PREDICTIONS = "predictions.jsonl"
SCORES = "scores.json"
LOGS = "logs"
# Providers built on the openai SDK retry on their own as well; inspect's retries are the ones we set.
OPENAI_SDK_APIS = ("openai", "openai-api", "vllm", "sglang", "together", "fireworks", "groq", "ollama", "openrouter")


@dataclass(frozen=True)
class EvalSettings:
    """One command's settings; the fields marked ``SETTING`` are the run folder's setting (``run.json``)."""

    model: str | Model = field(metadata=SETTING)
    configs: Sequence[str]
    conditions: Sequence[str]
    folder: Path
    out: Path
    limit: int | None = None
    max_side: int | None = field(default=None, metadata=SETTING)
    max_connections: int = 4
    max_retries: int = 3
    attempt_timeout: int | None = ATTEMPT_TIMEOUT
    temperature: float | None = field(default=0.0, metadata=SETTING)
    max_tokens: int | None = field(default=None, metadata=SETTING)
    model_args: Mapping[str, Any] = field(default_factory=dict)
    model_base_url: str | None = field(default=None, metadata=SETTING)
    display: str | None = None
    # a model profile (groundbench.scoring.profiles): prompt, frame, answer format
    profile: str | None = field(default=None, metadata=SETTING)


@dataclass(frozen=True)
class EvalResult:
    rows: int  # rows requested over every (config, condition)
    cached: int  # answered by an earlier run, not asked again
    asked: int  # sent to the model by this run
    predictions: Path
    scores: Path
    scored: int = 0  # answers in the folder's predictions (every one it holds, requested now or earlier)


@dataclass(frozen=True)
class Pending:
    """The rows of one (config, condition) without an answer: (example id, row index), by example id."""

    config: str
    condition: str
    rows: list[tuple[str, int]]


@dataclass
class Plan:
    """What one command asks: the rows without an answer and every row it requested."""

    pending: list[Pending] = field(default_factory=list)
    wanted: list[Key] = field(default_factory=list)

    @property
    def asked(self) -> int:
        return sum(len(p.rows) for p in self.pending)


# Samples per inspect run: a window's samples are built when it starts, so memory does not grow with the rows
# asked and the first request waits for one window only. Each window writes its own log.
WINDOW = 1000


def windows(pending: Sequence[Pending], size: int = WINDOW) -> Iterator[list[Pending]]:
    """The pending rows in runs of at most ``size`` samples, in order (a run may span (config, condition)s)."""
    batch: list[Pending] = []
    room = size
    for group in pending:
        rows = group.rows
        while rows:
            batch.append(replace(group, rows=rows[:room]))
            room -= len(batch[-1].rows)
            rows = rows[len(batch[-1].rows) :]
            if room == 0:
                yield batch
                batch, room = [], size
    if batch:
        yield batch


def resolve_model(model: str | Model) -> str | Model:
    """``mockllm/model`` answers ``MOCK_ANSWER`` offline; any other name goes to inspect unchanged."""
    return offline_mock() if is_bare_mock(model) else model


def providers() -> list[str]:
    """The model providers inspect knows (empty if its registry cannot be read)."""
    try:  # inspect's registry is not public API: without it the error simply names no providers
        from inspect_ai._util.registry import registry_find, registry_info, registry_unqualified_name

        found = registry_find(lambda info: info.type == "modelapi")
        return sorted({registry_unqualified_name(registry_info(api)) for api in found})
    except (ImportError, AttributeError, TypeError):
        return []


def build_model(model: str | Model, base_url: str | None, model_args: Mapping[str, Any]) -> Model:
    """The command's model, built once before any row is read, so a missing key or package fails first, in one
    line. Not memoized: inspect's cache would hand a later command in the same process this client, built
    from the environment (base URL, key) of the first."""
    from inspect_ai._util.error import PrerequisiteError  # not re-exported; the error inspect raises for these

    if not isinstance(model, str):
        return model
    provider, slash, name = model.partition("/")
    if not (provider and slash and name):  # inspect's own ValueError would end in a stack
        expected = f"inspect's PROVIDER/MODEL, e.g. openai/gpt-4o or {MOCK} (offline)"
        raise GroundBenchError("command line", "--model", f"expected {expected}, found {model!r}")
    try:
        return get_model(model, base_url=base_url, memoize=False, **model_args)
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


def plan(settings: EvalSettings, cached: Collection[Key], err: Console) -> Plan:
    """The rows each requested (config, condition) asks, and those without a cached answer (no sample is built)."""
    planned = Plan()
    root = resolve_folder(str(settings.folder))
    skipped: list[NoValidRows] = []
    for config in settings.configs:
        for condition in settings.conditions:
            try:
                chosen = chosen_rows(root, config, condition, settings.limit)
            except NoValidRows as exc:  # configs x conditions: a GUI suite has no part_named rows, and so on
                skipped.append(exc)
                continue
            keys = [(config, condition, example_id) for example_id, _ in chosen]
            planned.wanted += keys
            todo = [row for row, k in zip(chosen, keys, strict=True) if k not in cached]
            done = len(keys) - len(todo)
            err.print(f"{config} / {condition}: {len(keys)} rows, {done} answered earlier, {len(todo)} to ask")
            if todo:
                planned.pending.append(Pending(config, condition, todo))
    if not planned.wanted:  # nothing to ask: one line, the reason itself when there is one pair
        if len(skipped) == 1:
            raise skipped[0]
        pairs = ", ".join(f"{skip.config} / {skip.condition}" for skip in skipped)
        reason = f"no row of any (config, condition) asked is valid: {pairs} (see groundbench list)"
        raise GroundBenchError(settings.folder, "condition", reason)
    for skip in skipped:
        err.print(escape(f"{skip.config} / {skip.condition}: skipped, {skip.reason}"), soft_wrap=True)
    return planned


def groups(keys: Iterable[Key]) -> list[tuple[str, str]]:
    return sorted({(config, condition) for config, condition, _ in keys})


def is_subset(folder: Path, answered: Collection[Key]) -> bool:
    """Whether some (config, condition) of the answers lacks a valid row: the folder holds a deliberate subset."""
    for config, condition in groups(answered):
        ids = {example_id for c, k, example_id in answered if (c, k) == (config, condition)}
        if valid_example_ids(folder, config, condition) - ids:
            return True
    return False


def interrupted(run: Path, wanted: Sequence[Key]) -> Interrupted:
    answers = scan_answers(run).keys
    done = sum(k in answers for k in wanted)
    return Interrupted(f"interrupted: {done} of {len(wanted)} answered, kept; run the same command again to resume")


def run_eval(settings: EvalSettings, out: Console, err: Console) -> EvalResult:
    if settings.limit is not None and settings.limit < 1:
        raise GroundBenchError("command line", "--limit", f"expected a positive number, found {settings.limit}")
    if settings.max_side is not None and settings.max_side < 16:
        raise GroundBenchError("command line", "--max-side", f"expected at least 16 pixels, found {settings.max_side}")
    if settings.profile is not None:
        settings = replace(settings, profile=parse_profile(settings.profile).spec)  # canonical, so run.json compares
        check_resize(parse_profile(settings.profile), settings.max_side)
    model_args = model_args_for(settings.model, settings.model_args)
    with loading():  # the model's client (openai's types): without the cyclic collector (groundbench/core/collector.py)
        model = build_model(resolve_model(settings.model), settings.model_base_url, model_args)
    with interruptible() as interruption, held(settings.out), loading_once():
        return _run(settings, model, interruption, out, err)


def _run(settings: EvalSettings, model: Model, interruption: Interruption, out: Console, err: Console) -> EvalResult:
    run = settings.out
    silence.forget(str(run))  # what an earlier command in this process saw of its server
    write_failure(run)
    setting = run_setting(settings)
    check_setting(run, setting, setting_defaults(settings))
    with loading():  # the answers so far and the config's rows, before anything is asked
        cached = scan_answers(run)
        planned = plan(settings, cached.keys, err)
    try:
        profile = None if settings.profile is None else parse_profile(settings.profile)
        asked_groups = groups([*cached.keys, *planned.wanted])
        gates = {group: answer_gate(settings.folder, *group, profile) for group in asked_groups}
        check_gate(run, cached.first_under.values(), gates)
        del cached  # its keys: hundreds of thousands over a whole config, not needed while asking
        if interruption.requested:  # a Ctrl-C that some code swallowed: stop before anything is asked
            raise interrupted(run, planned.wanted)
        write_setting(run, setting)  # nothing is written before every check has passed
        logs = _ask(planned.pending, settings, model, interruption)
        if interruption.requested:  # inspect cancelled its run and returned
            raise interrupted(run, planned.wanted)
        # the cache's scan goes to _write unnamed here, so _write can let it go before the score
        return _write(settings, planned, check_answered(settings, planned.wanted, logs), out, err)
    except BaseException as exc:  # whatever inspect raised on its way out of an interrupted run
        if interruption.requested and not isinstance(exc, Interrupted):
            raise interrupted(run, planned.wanted) from exc
        raise


def _ask(pending: Sequence[Pending], settings: EvalSettings, model: Model, interruption: Interruption) -> list[EvalLog]:
    """Ask the pending rows, one inspect run per window of samples (built when the window starts)."""
    root = resolve_folder(str(settings.folder))
    profile = None if settings.profile is None else parse_profile(settings.profile)
    logs: list[EvalLog] = []
    watched = silence.watch(str(settings.out))
    for window in windows(pending, WINDOW):
        if interruption.requested:  # inspect cancelled the last window's run: ask nothing more
            break
        if watched.silence is not None:  # the server stopped answering: no later window is sent either
            watched.not_asked += sum(len(group.rows) for group in window)
            continue
        tasks = [
            build_task(
                group.config,
                group.condition,
                samples_of(
                    root,
                    group.config,
                    group.condition,
                    gate_fields(root, group.config),
                    settings.max_side,
                    profile,
                    group.rows,
                ),
                profile,
                str(settings.out),
            )
            for group in window
        ]
        logs += _run_inspect(tasks, settings, model)
    return logs


def _run_inspect(tasks: Sequence[Task], settings: EvalSettings, model: Model) -> list[EvalLog]:
    return inspect_eval(
        list(tasks),
        model=model,  # built with its base URL and client arguments
        log_dir=str(settings.out / LOGS),
        display=settings.display,  # type: ignore[arg-type]
        fail_on_error=False,  # one failing row must not cancel the others; it is asked again next run
        max_connections=settings.max_connections,
        max_retries=settings.max_retries,
        attempt_timeout=settings.attempt_timeout,
        timeout=request_timeout(settings.attempt_timeout),
        temperature=settings.temperature,
        max_tokens=settings.max_tokens,
        # The logs name each image by its reference (the sample's metadata "image"), not its base64 bytes.
        log_images=False,
        # No per-event sample buffer (inspect's live view of running samples): the answers file is what a
        # resumed run reads, and each sample still reaches the .eval log when it completes.
        log_realtime=False,
        # Each window's log comes back as its header (the samples stay in its file, read only for an error):
        # a command of many windows holds no sample of a finished one.
        log_header_only=True,
        ctl_server=control_server(),
    )


# inspect's own variable for its control channel (`inspect ctl`), read when no value is passed to eval().
CONTROL_SERVER_VARIABLE = "INSPECT_EVAL_CTL_SERVER"


def control_server() -> bool | None:
    """inspect's control channel (an HTTP server on a local socket that `inspect ctl` queries while a run is live):
    off, since starting it is about a quarter CPU second of every window's start (a FastAPI app and its server);
    ``None`` (inspect's own choice, from its variable) when the user set ``INSPECT_EVAL_CTL_SERVER``."""
    return None if os.environ.get(CONTROL_SERVER_VARIABLE) else False


# An exception's own line in a traceback: `package.module.Name: message` at the start of the line.
EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Interrupt)\b")


def first_error(logs: Sequence[EvalLog]) -> str | None:
    """The first error inspect recorded (the run's, else a sample's), on one line: what a user fixes first.

    A retried request fails as tenacity's ``RetryError``; the cause is the first exception of the chained
    traceback (e.g. ``openai.InternalServerError: Error code: 500``), so that line is shown."""
    for log in logs:
        if log.samples is None and log.location:  # the returned header only: the samples are in the file
            with suppress(OSError):  # inspect could not write it (a full disk: said apart); the header is what there is
                log = read_eval_log(log.location)
        for error in [log.error, *(sample.error for sample in log.samples or [])]:
            if error is not None:
                causes = [line for line in error.traceback.splitlines() if EXCEPTION_LINE.match(line)]
                text = " ".join((causes[0] if causes else error.message).split())
                return text if len(text) <= 300 else text[:299] + "…"
    return None


def check_answered(settings: EvalSettings, wanted: Sequence[Key], logs: Sequence[EvalLog]) -> CachedAnswers:
    """Every requested row has an answer, or one line naming why not and the way out: the run folder's file
    system full, a server that stopped answering, else the first error inspect recorded. The cache's scan, when every
    row has one (what the predictions are written from)."""
    run = settings.out
    failure, watched = write_failure(run), silence.forget(str(run))
    answered = scan_answers(run)
    missing = [k for k in wanted if k not in answered.first_at]
    if not missing:
        return answered
    unanswered = f"{len(missing)} of {len(wanted)} rows are still unanswered"
    again = "then run the same command again to ask only those"
    error = first_error(logs)
    full = folder_full(run, failure, error, logs)
    if full is not None:  # the answers or inspect's logs could not be written: the cause is the folder
        raise GroundBenchError(
            run,
            "folder",
            f"{os.strerror(full)} (the file system of this --out is full): {unanswered}, the answers so far are "
            f"kept; free space there (or give another --out), {again}",
        )
    if watched is not None and watched.silence is not None:
        cause = stopped_answering(watched.silence, settings.attempt_timeout, settings.max_retries, watched.not_asked)
        raise GroundBenchError(run / ANSWERS, "answers", f"{unanswered}: {cause}; {again}")
    cause = f"first error: {error}; all" if error else "the errors are"
    raise GroundBenchError(
        run / ANSWERS,
        "answers",
        f"{unanswered} (first: {' / '.join(missing[0])}; {cause} in {run / LOGS}): run the same command again "
        "to ask only those",
    )


# The exception line of an OS error in inspect's record: `OSError: [Errno 28] No space left on device`.
ERRNO = re.compile(r"^[\w.]*Error: \[Errno (\d+)\]")
FULL = (errno.ENOSPC, errno.EDQUOT)
NEARLY_FULL = 1 << 20  # bytes: less than this free on the run folder's file system is a full one


def folder_full(run: Path, failure: OSError | None, error: str | None, logs: Sequence[EvalLog]) -> int | None:
    """ENOSPC / EDQUOT when the run folder's file system is why rows are unanswered: an answer could not be
    appended, or inspect could not write its log there (its record then names no path, or is itself missing:
    the space left in the folder decides), else None."""
    if failure is not None and failure.errno in FULL:
        return failure.errno
    found = ERRNO.match(error or "")
    said = int(found.group(1)) if found is not None else None
    # rows unanswered and no error recorded: inspect's record of it was lost (its log could not be written)
    lost = error is None or any(log.location and not Path(log.location).is_file() for log in logs)
    if said not in FULL and not lost:
        return None
    try:
        free = shutil.disk_usage(run).free
    except OSError:
        return None
    return (said or errno.ENOSPC) if free < NEARLY_FULL else None


def _write(settings: EvalSettings, planned: Plan, answered: CachedAnswers, out: Console, err: Console) -> EvalResult:
    """Predictions and scores of every answer the folder holds (every requested row has one; ``answered``: the
    cache's scan)."""
    run = settings.out
    predictions = run / PREDICTIONS
    write_predictions(run, predictions, answered)  # written a line at a time: a whole config's answers
    subset, scored = is_subset(settings.folder, answered.keys), len(answered.first_at)
    del answered
    scores = run / SCORES
    from groundbench.evaluate.score import score_file  # the scorer's modules: loaded after the asking, not before it

    score_file(predictions, settings.folder, scores, out, err, subset=subset)
    wanted, asked = len(planned.wanted), planned.asked
    return EvalResult(wanted, wanted - asked, asked, predictions, scores, scored)


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
    from groundbench.evaluate.score import score_file  # the scorer's modules, when there is something to score

    score_file(predictions, folder, scores, out, err, subset=subset)
    return EvalResult(len(lines), len(lines), 0, predictions, scores, len(lines))
