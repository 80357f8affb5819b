"""Runs as the results commands read them: a ``scores.json`` (``groundbench score --json``) or a run folder of
``groundbench eval`` (which holds one), with its gate and whether it was scored on synthetic data.

Several runs go into one table or figure only when they were gated to the same data: the same
``dataset_version``, and the same ``manifest_sha256`` of every config and ``template_sha256`` of every
condition both runs scored. Which scored configs are synthetic comes from the report itself
(``synthetic_configs`` and ``notice``, when the scorer wrote them), else from the published folder's
card (``groundbench.synthetic_configs`` in its YAML).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groundbench.cards.notice import synthetic_line, synthetic_notice
from groundbench.errors import GroundBenchError
from groundbench.loaders.published import CARD, CARD_KEY, card_metadata

SCORES = "scores.json"


@dataclass(frozen=True)
class Run:
    path: Path  # the scores.json
    label: str  # how tables and figures name the run
    report: dict[str, Any]
    synthetic_configs: tuple[str, ...]
    notice: str | None

    @property
    def metrics(self) -> list[dict[str, Any]]:
        return list(self.report["metrics"])

    @property
    def gate(self) -> dict[str, Any]:
        return dict(self.report.get("gate") or {})

    @property
    def models(self) -> list[str]:
        return sorted({str(m["model"]) for m in self.metrics})

    def answer_format(self, model: str) -> str:
        """The answer format (with its parameters) the model's answers were read in (reports before formats:
        GroundBench's own)."""
        recorded = (self.report.get("answer_formats") or {}).get(model) or {}
        return str(recorded.get("spec") or "groundbench")


def scores_path(given: Path) -> Path:
    path = given / SCORES if given.is_dir() else given
    if not path.is_file():
        reason = "expected a scores.json or a run folder of `groundbench eval` holding one"
        raise GroundBenchError(given, SCORES, reason)
    return path


def read_json(path: Path, command: str, key: str) -> dict[str, Any]:
    """The JSON object ``command`` writes, with a list under ``key`` (one line naming the file otherwise)."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise GroundBenchError(path, "json", f"expected the JSON of `{command}` ({exc})") from exc
    if not isinstance(value, dict) or not isinstance(value.get(key), list):
        raise GroundBenchError(path, key, f"expected the JSON of `{command}` (a {key} list)")
    return value


def _report(path: Path) -> dict[str, Any]:
    report = read_json(path, "groundbench score --json", "metrics")
    if not isinstance(report.get("gate"), dict):
        raise GroundBenchError(path, "gate", "expected the gate record `groundbench score --json` writes")
    return report


def card_synthetic_configs(folder: Path) -> list[str]:
    """``groundbench.synthetic_configs`` from a published folder's card YAML."""
    card = folder / CARD
    value = card_metadata(folder).get("synthetic_configs")
    if not isinstance(value, list):
        raise GroundBenchError(
            card,
            f"{CARD_KEY}.synthetic_configs",
            "the scores do not say which configs are synthetic; expected that list in the dataset card's YAML "
            "(--data names the published folder)",
        )
    return [str(v) for v in value]


def _synthetic(
    report: Mapping[str, Any], scored: Sequence[str], folder: Callable[[], Path] | None
) -> tuple[list[str], str | None]:
    if isinstance(report.get("synthetic_configs"), list):
        names = sorted(str(c) for c in report["synthetic_configs"])
        notice = report.get("notice")
        return names, (str(notice) if notice else synthetic_notice(names) or None)
    if folder is None:
        return [], None
    names = sorted(set(card_synthetic_configs(folder())) & set(scored))
    return names, synthetic_notice(names) or None


def load_run(given: Path, folder: Callable[[], Path] | None) -> Run:
    """One run; ``folder()`` gives the published data folder, asked which configs are synthetic only when the
    report does not say."""
    path = scores_path(Path(given))
    report = _report(path)
    scored = sorted({str(m["config"]) for m in report["metrics"]} | set(report["gate"].get("manifest_sha256") or {}))
    names, notice = _synthetic(report, scored, folder)
    label = path.parent.name if path.name == SCORES else path.stem
    return Run(path, label or str(path), report, tuple(names), notice)


def load_runs(paths: Sequence[Path], folder: Callable[[], Path] | None) -> list[Run]:
    runs = [load_run(p, folder) for p in paths]
    check_same_data(runs)
    labels = [r.label for r in runs]
    if len(set(labels)) < len(labels):  # two folders of the same name: label by the full path instead
        runs = [Run(r.path, str(r.path.parent), r.report, r.synthetic_configs, r.notice) for r in runs]
    return runs


def gate_differences(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """The gate fields two runs' reports disagree on, over what both scored, as ``field: a != b``."""
    out = []
    if a.get("dataset_version") != b.get("dataset_version"):
        out.append(f"dataset_version: {a.get('dataset_version')!r} != {b.get('dataset_version')!r}")
    for name in ("manifest_sha256", "template_sha256"):
        left, right = a.get(name) or {}, b.get(name) or {}
        for key in sorted(set(left) & set(right)):
            if left[key] != right[key]:
                out.append(f"{name}.{key}: {left[key]} != {right[key]}")
    return out


def check_same_data(runs: Sequence[Run]) -> None:
    """Refuse runs gated to different data, naming both runs and the first differing field."""
    for run in runs[1:]:
        differences = gate_differences(runs[0].gate, run.gate)
        if differences:
            raise GroundBenchError(
                f"{runs[0].path} vs {run.path}",
                differences[0].split(":")[0],
                f"the runs were gated to different data ({'; '.join(differences)}); compare runs on one build only",
            )


def notices(runs: Sequence[Run]) -> list[str]:
    """The synthetic notice of the runs together: one line naming every synthetic config any of them scored
    (none when no run scored one), said once however many runs there are."""
    names = sorted({name for run in runs for name in run.synthetic_configs})
    return [synthetic_line(names)] if names else []
