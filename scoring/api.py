"""``groundbench.scoring.score``: the Python API the ``score`` command is a thin layer over.

from groundbench.scoring import score
report = score(lines, folder=Path("data/groundbench"))   # lines: an iterable of dicts
report.to_dict()                                         # what `groundbench score --json` writes
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path
from typing import Any

from groundbench.cards.notice import synthetic_notice
from groundbench.core.collector import rare_collections
from groundbench.errors import GroundBenchError
from groundbench.schemas.request_conditions import GUI, base_condition
from groundbench.scoring.formats import DEFAULT, parse_format
from groundbench.scoring.formats.warning import FrameCheck
from groundbench.scoring.gate import Gate, folder_gate
from groundbench.scoring.layouts import LAYOUTS, Key, LayoutTable, LayoutTables, their_verdict
from groundbench.scoring.metrics import GroupScores, Scored, keyword_table
from groundbench.scoring.parse import finite_json
from groundbench.scoring.predictions import (
    Joined,
    absent_rows,
    expanded_groups,
    join,
    missing_records,
    read_prediction_lines,
    read_rows,
)
from groundbench.scoring.report import COLUMNS
from groundbench.scoring.scored_items import GroupKey
from groundbench.scoring.syntax_hint import syntax_hint

NOT_GATED = (
    "NOT GATED: the prediction lines carry none of dataset_version / manifest_sha256 / template_sha256, "
    "so nothing ties these scores to this data"
)


@dataclass
class ScoreReport:
    metrics: list[dict[str, Any]]
    predictions: Sequence[dict[str, Any]]  # a KeptRecords from score(): the records as JSON text, read back on use
    missing: list[dict[str, str]]
    excluded_predictions: list[dict[str, str]]
    gate: dict[str, Any]
    settings: dict[str, Any]
    banners: list[str] = field(default_factory=list)
    synthetic_configs: list[str] = field(default_factory=list)  # scored configs the card marks synthetic
    answer_formats: dict[str, dict[str, Any]] = field(default_factory=dict)  # model -> its format (spec, params)
    profiles: dict[str, str] = field(default_factory=dict)  # model -> the profile it was asked under
    warning: str | None = None  # the frame-mistake warning, if the headline looks like one
    layouts: dict[str, list[LayoutTable]] = field(default_factory=dict)  # --layout NAME: the official tables
    hint: str | None = None  # the syntax hint, if most answers are malformed but another format reads them
    ignored_keys: dict[str, int] = field(default_factory=dict)  # unknown keys lines carry -> lines carrying each

    @property
    def notice(self) -> str | None:
        """The banner ``groundbench summary`` prints for these configs; None when none is synthetic."""
        return synthetic_notice(self.synthetic_configs) or None

    def to_dict(self) -> dict[str, Any]:
        """What ``--json`` writes: strict JSON (a NaN or infinity anywhere becomes null). ``layouts`` is there
        only when layouts were asked for, so a report without them is what it always was."""
        return finite_json({**self.parts(), "predictions": list(self.predictions)})

    def parts(self) -> dict[str, Any]:
        """:meth:`to_dict` before its NaN and infinities become null: the report's own lists, not copies
        (``groundbench score --json`` writes them with ``finite=True``, so the report is never held twice)."""
        layouts = {name: [t.to_dict() for t in tables] for name, tables in self.layouts.items()}
        return {
            "metrics": [{c: m.get(c) for c in COLUMNS} for m in self.metrics],
            "predictions": self.predictions,
            "missing": self.missing,
            "excluded_predictions": self.excluded_predictions,
            "gate": self.gate,
            "settings": self.settings,
            "banners": self.banners,
            "keywords_notes": keyword_table()["notes"],
            "synthetic_configs": self.synthetic_configs,
            "notice": self.notice,
            "answer_formats": self.answer_formats,
            "profiles": self.profiles,
            "frame_warning": self.warning,
            "syntax_hint": self.hint,
            "ignored_keys": self.ignored_keys,
            **({"layouts": layouts} if layouts else {}),
        }


def _gate_record(gate: Gate, joined: Joined, configs: list[str], allow: bool) -> tuple[dict[str, Any], list[str]]:
    banners: list[str] = []
    if joined.gated_lines == 0:
        status = "not gated"
        banners.append(NOT_GATED)
    elif joined.gated_lines < joined.lines:
        status = f"partly gated ({joined.gated_lines} of {joined.lines} lines carry gate fields)"
        banners.append(
            f"PARTLY GATED: {joined.lines - joined.gated_lines} of {joined.lines} lines carry no gate fields"
        )
    else:
        status = f"gated ({joined.gated_lines} of {joined.lines} lines carry gate fields)"
    if joined.mismatches:
        status += "; MISMATCH OVERRIDDEN"
        banners.append(
            f"GATE OVERRIDDEN: {len(joined.mismatches)} prediction lines do not match the data scored "
            f"(--allow-gate-mismatch); first: {joined.mismatches[0]}"
        )
    record = {
        **gate.to_dict(),
        "manifest_sha256": {c: gate.manifest_sha256.get(c) for c in configs},
        "template_sha256": dict(sorted(joined.templates.items())),
        "status": status,
        "override": allow,
        "mismatches": joined.mismatches,
    }
    return record, banners


@dataclass(frozen=True)
class ScoreOptions:
    """How predictions are scored: ``score``'s and ``score_file``'s keywords, ``groundbench score``'s options.
    ``answer_format`` (``NAME[:key=value,...]``, see ``scoring.formats``) reads lines that name none."""

    configs: list[str] | None = None
    strict: bool = False
    subset: bool = False
    allow_gate_mismatch: bool = False
    seed: int = 0
    resamples: int = 1000
    answer_format: str = DEFAULT
    layouts: tuple[str, ...] = ()  # official table layouts to compute (``scoring.layouts.LAYOUTS``)


def check_layouts(names: Iterable[str]) -> None:
    if isinstance(names, str):
        raise GroundBenchError("settings", "layouts", f"expected a list of layout names, got the string {names!r}")
    for name in names:
        if name not in LAYOUTS:
            reason = f"expected a table layout, one of {', '.join(LAYOUTS)}; got {name!r}"
            raise GroundBenchError("settings", "--layout", reason)


def score_file(path: Path, *, folder: Path, **options: Any) -> ScoreReport:
    """:func:`score` over a predictions JSONL file (errors name the file and line)."""
    return score_path(Path(path), folder, ScoreOptions(**options))


def score_path(path: Path, folder: Path, options: ScoreOptions) -> ScoreReport:
    """:func:`score_file` with its options as one value (what ``groundbench score`` passes)."""
    return _score(read_prediction_lines(path), folder, options, source=str(path))


def score(predictions: Iterable[Mapping[str, Any]], *, folder: Path, **options: Any) -> ScoreReport:
    """Score prediction dicts against a published GroundBench folder (see ``scoring.predictions`` for a line);
    ``options``: the fields of :class:`ScoreOptions` (a misspelt one is refused)."""
    lines = ((f"prediction {i}", line) for i, line in enumerate(predictions, start=1))
    return _score(lines, folder, ScoreOptions(**options))


def _score(
    lines: Iterable[tuple[str, Any]], folder: Path, options: ScoreOptions, source: str = "predictions"
) -> ScoreReport:
    with rare_collections():  # rows, answers and items hold no cycles: rescanning them was a quarter of the CPU
        return _score_collecting_rarely(lines, folder, options, source)


def _score_collecting_rarely(
    lines: Iterable[tuple[str, Any]], folder: Path, options: ScoreOptions, source: str
) -> ScoreReport:
    check_resamples(options.resamples)
    check_layouts(options.layouts)
    fmt = parse_format(options.answer_format)  # a misspelt format fails before any file is read
    folder = Path(folder)
    gate = folder_gate(folder)
    rows = read_rows(folder, options.configs)
    strict, allow = options.strict, options.allow_gate_mismatch
    theirs: dict[Key, bool | None] = {}
    lines = _noting_verdicts(lines, theirs)
    joined = join(lines, rows, gate, strict=strict, allow_gate_mismatch=allow, source=source, answer_format=fmt)
    return score_joined(joined, rows, gate, options, theirs, source)


def _noting_verdicts(lines: Iterable[tuple[str, Any]], sink: dict[Key, bool | None]) -> Iterator[tuple[str, Any]]:
    """The lines as they are, noting on the way each imported line's own verdict (``imported.verdict``)."""
    for where, line in lines:
        found = their_verdict(line)
        if found is not None:
            sink[found[0]] = found[1]
        yield where, line


def score_joined(
    joined: Joined,
    rows: Mapping[str, tuple[str, dict[str, Any]]],
    gate: Gate,
    options: ScoreOptions,
    theirs: Mapping[Key, bool | None] | None = None,
    source: str = "predictions",
) -> ScoreReport:
    subset = options.subset
    keys = joined.items.group_keys()
    absent = {} if subset else absent_rows(keys, rows, joined.seen)
    specs = {model: fmt.spec for model, fmt in joined.formats.items()}
    metrics, warning, tables = _score_groups(expanded_groups(joined.items, absent), specs, theirs or {}, options)
    for m in metrics:
        m["answer_format"] = specs.get(str(m["model"]))
    scored_configs = sorted({config for _, config, _ in keys})
    gate_record, banners = _gate_record(gate, joined, scored_configs, options.allow_gate_mismatch)
    if subset:
        banners.append("SUBSET: only the predicted rows are scored; rows without a prediction are not counted")
    if joined.excluded:
        banners.append(f"{len(joined.excluded)} predictions for excluded rows were counted and ignored")
    settings = {
        "strict": options.strict,
        "subset": subset,
        "bootstrap": {
            "seed": options.seed,
            "resamples": options.resamples,
            "unit": "object (screenshot for GUI suites)",
        },
    }
    synthetic = sorted(set(scored_configs) & set(gate.synthetic_configs))
    notice = synthetic_notice(synthetic)
    if notice:
        banners.insert(0, notice)
    hint = syntax_hint(joined.items.per_model(), joined.items.malformed, joined.malformed, joined.formats)
    ignored = joined.unknown_keys.summary(joined.lines)
    banners += [f"IGNORED: the prediction lines carry {ignored}"] if ignored else []
    banners += [hint] if hint else []
    formats = {model: fmt.describe() for model, fmt in sorted(joined.formats.items())}
    for name in options.layouts:
        _check_laid_out(name, tables[name], source)
    return ScoreReport(
        metrics,
        joined.kept,
        missing_records(absent),
        joined.excluded,
        gate_record,
        settings,
        banners,
        synthetic,
        formats,
        dict(sorted(joined.profiles.items())),
        warning,
        tables,
        hint,
        dict(joined.unknown_keys.lines.most_common()),
    )


def _score_groups(
    groups: Iterable[tuple[GroupKey, list[Scored]]],
    specs: Mapping[str, str],
    theirs: Mapping[Key, bool | None],
    options: ScoreOptions,
) -> tuple[list[dict[str, Any]], str | None, dict[str, list[LayoutTable]]]:
    """(the metrics, the frame warning, each layout's tables), reading the groups once, one at a time: a model's
    groups come one after another, and the layouts take its GUI rows together."""
    seed, resamples = options.seed, options.resamples
    scores = GroupScores(seed, resamples, options.subset)
    frame = FrameCheck()
    layouts = {name: LayoutTables(LAYOUTS[name], theirs, seed, resamples) for name in options.layouts}
    laid_out = {config for name in options.layouts for config in LAYOUTS[name].configs}
    for model, found in groupby(groups, key=lambda group: group[0][0]):
        gui: list[Scored] = []
        for key, members in found:
            scores.add(key, members)
            frame.add(members)
            if key[1] in laid_out and base_condition(key[2]) == GUI:
                gui += members
        for tables in layouts.values():
            tables.add(model, gui)
    return scores.metrics(), frame.warning(specs), {name: t.tables() for name, t in layouts.items()}


def _check_laid_out(name: str, tables: list[LayoutTable], source: str) -> None:
    if not tables:
        reason = f"the {name} layout reads {', '.join(LAYOUTS[name].configs)}; no GUI prediction of these was scored"
        raise GroundBenchError(source, "--layout", reason)


def check_resamples(resamples: int) -> None:
    """A bootstrap needs at least one resample: fewer would silently drop every interval."""
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        reason = f"expected at least 1 bootstrap resample, found {resamples!r}"
        raise GroundBenchError("settings", "--resamples", reason)
