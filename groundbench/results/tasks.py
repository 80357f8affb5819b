"""The benchmark's task declaration for the Hugging Face Hub: ``eval.yaml`` at the dataset folder's root.

The Hub's format (hub-docs ``docs/hub/eval-results.md``, "Eval.yaml specification"): ``name``,
``description``, ``evaluation_framework`` (one framework per benchmark, from the list the Hub keeps in
huggingface.js ``packages/tasks/src/eval.ts``) and ``tasks``, each an ``id`` and optionally the dataset
``config`` and ``split``; each task is one leaderboard, and a model's ``.eval_results/*.yaml`` entry names
it by ``task_id`` (``results.hub``).

A GroundBench task is one (config, condition, headline metric) of ``scoring.headline``, for the image
conditions (the text-only variants are controls, reported by ``groundbench table``). ``groundbench
assemble`` writes the file from the published rows; ``check-card`` regenerates and compares it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from groundbench.loaders.published import read_config
from groundbench.schemas.request_conditions import BASE_CONDITIONS, conditions_of
from groundbench.scoring.headline import headline_metrics, hub_task_conditions

EVAL_YAML = "eval.yaml"
# The Hub's list has no entry for GroundBench's own scorer yet; registering the benchmark adds it there
# (docs/results.md). GroundBench runs models through inspect-ai, but scores with its own rules.
FRAMEWORK = "groundbench"
SPLIT = "test"
ROW_COLUMNS = ("excluded", "stratum", "conditions", "original_target_part_id")


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


def folder_eval_yaml(folder: Path, configs: Sequence[str], version: str, notice: str) -> str:
    """``eval.yaml`` of a published folder holding ``configs`` (record configs, in card order)."""
    return eval_yaml(tasks_of({name: config_conditions(folder, name) for name in configs}), version, notice)
