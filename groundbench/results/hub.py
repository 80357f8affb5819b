"""Hugging Face Hub eval results: the benchmark's ``eval.yaml`` and a model's ``.eval_results/*.yaml`` entries.

The Hub's format (hub-docs ``docs/hub/eval-results.md`` and ``eval_results.yaml``):

- a benchmark dataset declares its tasks in ``eval.yaml`` at the repository root: ``name``,
  ``description``, ``evaluation_framework`` (one framework per benchmark, from the list the Hub keeps
  in huggingface.js ``packages/tasks/src/eval.ts``) and ``tasks`` (each an ``id``, optionally the dataset
  ``config`` and ``split``); each task is one leaderboard;
- a model repository holds ``.eval_results/*.yaml`` files, each a list of entries ``{dataset: {id,
  task_id, revision}, value, source: {url, name}, notes, ...}``, written here with huggingface_hub's own
  ``EvalResultEntry`` and ``eval_result_entries_to_yaml``; results opened as a pull request show as
  community-provided until merged.

A GroundBench task is one (config, condition, headline metric) of ``results.headline``, for the image
conditions (the text-only variants are controls, reported by ``groundbench table``). The spec has no
field for the gate, so each entry's ``notes`` carries it as ``key=value`` pairs (dataset version, the
config's manifest sha256, the condition's template sha256, the interval, n, the gate status).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from groundbench.core.published import read_config
from groundbench.results.headline import Headline, headline_metrics, headlines, hub_task_conditions
from groundbench.results.runs import Run
from groundbench.schemas.request_conditions import BASE_CONDITIONS, conditions_of

EVAL_YAML = "eval.yaml"
EVAL_RESULTS = ".eval_results"
# The Hub's list has no entry for GroundBench's own scorer yet; registering the benchmark adds it there
# (docs/results.md). GroundBench runs models through inspect-ai, but scores with its own rules.
FRAMEWORK = "groundbench"
SPLIT = "test"
ROW_COLUMNS = ("excluded", "stratum", "conditions", "original_target_part_id")
NOTE_SEPARATOR = "; "


@dataclass(frozen=True)
class Task:
    id: str
    config: str
    condition: str
    metric: str


def task_id(config: str, condition: str, metric: str) -> str:
    return f"{config}.{condition.replace('/', '.')}.{metric}"


def config_conditions(folder: Path, config: str) -> list[str]:
    """Every condition some row of a published config can be scored under, in the design's order."""
    rows = read_config(folder, config, list(ROW_COLUMNS)).to_pylist()
    found = {c for row in rows for c in conditions_of(row)}
    return [c for c in BASE_CONDITIONS if c in found]


def tasks_of(conditions: Mapping[str, Sequence[str]]) -> list[Task]:
    """One task per (config, image condition, headline metric), configs in the given order."""
    return [
        Task(task_id(config, condition, metric), config, condition, metric)
        for config, names in conditions.items()
        for condition in hub_task_conditions(names)
        for metric in headline_metrics(condition)
    ]


def eval_yaml(tasks: Iterable[Task], version: str, notice: str) -> str:
    """The benchmark declaration (``eval.yaml``) of a published folder."""
    description = (
        f"GroundBench {version}: where vision-language models fail at grounding, which part of an object affords "
        "an action and which pixel of a screen a command means. One task per (config, condition, headline "
        "metric); scores are rates in [0, 1] with the baselines of the same rows in the dataset card."
    )
    value = {
        "name": "GroundBench",
        "description": f"{notice} {description}" if notice else description,
        "evaluation_framework": FRAMEWORK,
        "tasks": [{"id": t.id, "config": t.config, "split": SPLIT} for t in tasks],
    }
    return yaml.safe_dump(value, sort_keys=False, allow_unicode=True, width=100)


def declared_tasks(text: str) -> dict[str, dict[str, Any]]:
    """Task id -> task of an ``eval.yaml``."""
    value = yaml.safe_load(text) or {}
    return {str(t["id"]): dict(t) for t in value.get("tasks") or []}


# --- a model's results --------------------------------------------------------------------------------------


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
