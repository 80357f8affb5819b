"""A model's Hugging Face Hub eval results: ``.eval_results/*.yaml`` entries from a score report.

The Hub's format (hub-docs ``docs/hub/eval-results.md`` and ``eval_results.yaml``): a model repository
holds ``.eval_results/*.yaml`` files, each a list of entries ``{dataset: {id, task_id, revision}, value,
source: {url, name}, notes, ...}``, where ``task_id`` is a task of the benchmark dataset's ``eval.yaml``
(``results.tasks``). Entries are written with huggingface_hub's own ``EvalResultEntry`` and
``eval_result_entries_to_yaml``; results opened as a pull request show as community-provided until merged.
The spec has no field for the gate, so each entry's ``notes`` carries it as ``key=value`` pairs (dataset
version, the config's manifest sha256, the condition's template sha256, the interval, n, the gate status).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from groundbench.results.runs import Run
from groundbench.results.tasks import EVAL_YAML, task_id
from groundbench.scoring.headline import Headline, headlines

EVAL_RESULTS = ".eval_results"
NOTE_SEPARATOR = "; "


def notes_of(h: Headline, run: Run) -> str:
    gate = run.gate
    pairs = {
        "groundbench": "1",
        "model": h.model,
        "condition": h.condition,
        "metric": h.metric,
        "n": str(h.n),
        "ci95": f"[{h.ci_low!r}, {h.ci_high!r}]",
        "dataset_version": str(gate.get("dataset_version")),
        "manifest_sha256": str((gate.get("manifest_sha256") or {}).get(h.config)),
        "template_sha256": str((gate.get("template_sha256") or {}).get(h.condition)),
        "gate": str(gate.get("status")),
        "package_version": str(gate.get("package_version")),
        "answer_format": run.answer_format(h.model),
    }
    text = NOTE_SEPARATOR.join(f"{k}={v}" for k, v in pairs.items())
    return f"{text}{NOTE_SEPARATOR}{run.notice}" if h.config in run.synthetic_configs and run.notice else text


def parse_notes(text: str) -> dict[str, str]:
    """The ``key=value`` pairs of an entry's notes (what :func:`notes_of` wrote)."""
    return dict(part.split("=", 1) for part in text.split(NOTE_SEPARATOR) if "=" in part)


@dataclass(frozen=True)
class Export:
    files: dict[str, str]  # path in the model repository -> YAML text
    skipped: list[str]  # headlines with no declared task, and why


def export_entries(
    run: Run, model: str, dataset: str, revision: str, tasks: Mapping[str, Mapping[str, Any]], endpoint: str
) -> Export:
    """One ``.eval_results/<task>.yaml`` per headline of ``model`` whose task the dataset declares."""
    from huggingface_hub import EvalResultEntry, eval_result_entries_to_yaml

    files, skipped = {}, []
    for h in headlines(m for m in run.metrics if m["model"] == model):
        task = task_id(h.config, h.condition, h.metric)
        if task not in tasks:
            skipped.append(f"{h.config} / {h.condition} / {h.metric}: no task {task} in the dataset's {EVAL_YAML}")
            continue
        if h.value is None:
            skipped.append(f"{task}: no value (not measurable)")
            continue
        entry = EvalResultEntry(
            dataset_id=dataset,
            task_id=task,
            value=h.value,
            dataset_revision=revision,
            source_url=f"{endpoint.rstrip('/')}/datasets/{dataset}/tree/{revision}",
            source_name=f"GroundBench {run.gate.get('dataset_version')} ({dataset} at {revision})",
            notes=notes_of(h, run),
        )
        text = yaml.safe_dump(eval_result_entries_to_yaml([entry]), sort_keys=False, allow_unicode=True, width=1000)
        files[f"{EVAL_RESULTS}/groundbench.{task}.yaml"] = text
    return Export(files, skipped)
