"""``groundbench results export``: a run's Hub eval results, written to disk and, with ``--push``, opened as a
pull request on the model repository (huggingface_hub ``create_commit(..., create_pr=True)``, the documented
way to add community results to a model one does not own).

Refused, each with one line: a run whose model is not the model repository's (unless allowed), a run
gated to other data than the folder's (the tasks and the revision would
not describe it), a synthetic sample build or a deliberate subset (unless allowed), a run of several models
without ``--model``, and a run none of whose headlines has a declared task.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from groundbench.core.atomic import write_text
from groundbench.errors import GroundBenchError, unknown_name
from groundbench.results.hub import Export, export_entries
from groundbench.results.runs import Run, gate_differences, load_run
from groundbench.results.tasks import EVAL_YAML, declared_tasks
from groundbench.scoring.gate import folder_gate
from groundbench.scoring.notice import say_synthetic

REPO_ID_HELP = "expected ORG/NAME"


def _repo_id(value: str, option: str) -> str:
    if value.count("/") != 1 or not all(value.split("/")):
        raise GroundBenchError("command line", option, f"{REPO_ID_HELP}, found {value!r}")
    return value


def _model(run: Run, chosen: str | None) -> str:
    if chosen is not None:
        if chosen not in run.models:
            raise unknown_name(run.path, "model", chosen, run.models)
        return chosen
    if len(run.models) != 1:
        raise GroundBenchError(run.path, "--model", f"the run holds {len(run.models)} models {run.models}: name one")
    return run.models[0]


def names_repo(model: str, repo: str) -> bool:
    """Is the run's model (inspect's PROVIDER/[API/]ORG/MODEL, or a bare ORG/MODEL) the model repository's?"""
    model, repo = model.lower(), repo.lower()
    return model == repo or model.endswith(f"/{repo}")


def _check_model(run: Run, model: str, model_repo: str, allowed: bool) -> None:
    if not names_repo(model, model_repo) and not allowed:
        raise GroundBenchError(
            run.path,
            "model",
            f"the run's model {model!r} is not --model-repo {model_repo!r} (expected a name ending in {model_repo}, "
            f"e.g. vllm/{model_repo}); --allow-model-mismatch exports it under that repository anyway",
        )


def _check(run: Run, folder: Path, allow_synthetic: bool, allow_subset: bool) -> None:
    differences = gate_differences(run.gate, folder_gate(folder).to_dict())
    if differences:
        first = differences[0]
        where = f"{run.path} vs {folder}"
        raise GroundBenchError(where, first.split(":")[0], f"the run was scored on other data ({first})")
    if run.synthetic_configs and not allow_synthetic:
        raise GroundBenchError(
            run.path,
            "synthetic_configs",
            f"{', '.join(run.synthetic_configs)} were built from embedded samples, not the benchmark "
            "(--allow-synthetic exports them anyway, with the notice in each entry's notes)",
        )
    if (run.report.get("settings") or {}).get("subset") and not allow_subset:
        reason = "a deliberate subset is no benchmark result (--allow-subset exports it anyway)"
        raise GroundBenchError(run.path, "settings.subset", reason)


def resolve_revision(dataset: str, revision: str) -> str:
    """The commit a tag or branch of the dataset points at (the Hub's ``dataset_info``)."""
    from huggingface_hub import HfApi

    return str(HfApi().dataset_info(dataset, revision=revision).sha)


def push(model_repo: str, export: Export, version: str) -> str:
    """Open one pull request on the model repository holding every file; returns its URL."""
    from huggingface_hub import CommitOperationAdd, HfApi

    operations = [CommitOperationAdd(path, text.encode("utf-8")) for path, text in sorted(export.files.items())]
    info = HfApi().create_commit(
        model_repo,
        operations,
        repo_type="model",
        commit_message=f"Add GroundBench {version} evaluation results",
        commit_description=f"{len(operations)} `.eval_results/` entries written by `groundbench results export`.",
        create_pr=True,
    )
    return str(info.pr_url or info.commit_url)


def export_run(args: argparse.Namespace, folder: Path, err: Console) -> int:
    from huggingface_hub import constants
    from huggingface_hub.errors import OfflineModeIsEnabled

    run = load_run(Path(args.run), lambda: folder)
    model_repo, dataset = _repo_id(args.model_repo, "--model-repo"), _repo_id(args.dataset, "--dataset")
    model = _model(run, args.model)
    _check_model(run, model, model_repo, args.allow_model_mismatch)
    _check(run, folder, args.allow_synthetic, args.allow_subset)
    eval_yaml = folder / EVAL_YAML
    if not eval_yaml.is_file():
        raise GroundBenchError(eval_yaml, "tasks", "expected the dataset's task declaration (run groundbench assemble)")
    version = str(run.gate.get("dataset_version"))
    revision = args.dataset_revision or f"v{version}"
    try:
        if args.push:
            revision = resolve_revision(dataset, revision)
        tasks = declared_tasks(eval_yaml.read_text(encoding="utf-8"))
        export = export_entries(run, model, dataset, revision, tasks, constants.ENDPOINT)
        if not export.files:
            raise GroundBenchError(run.path, "metrics", f"no headline has a task in {eval_yaml}: {export.skipped}")
        out = Path(args.out) if args.out else run.path.parent / "hub"
        for path, text in sorted(export.files.items()):
            write_text(out / path, text)
        for line in export.skipped:
            err.print(escape(f"skipped {line}"))
        err.print(f"{len(export.files)} eval results of {model} ({dataset} at {revision}) -> {out}/.eval_results")
        if run.synthetic_configs:  # the entries' notes carry the whole notice
            say_synthetic(err, run.synthetic_configs)
        if args.push:
            url = push(model_repo, export, version)
            err.print(f"opened a pull request on {model_repo}: {url}")
    except OfflineModeIsEnabled as exc:
        raise GroundBenchError("HF_HUB_OFFLINE", "environment", "unset HF_HUB_OFFLINE to push") from exc
    return 0
