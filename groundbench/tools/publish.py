"""``groundbench publish``: upload ``data/groundbench/`` to a Hugging Face dataset repo and tag the version.

Refuses unless ``verify`` (checksums), validation (schema rules on every published shard; the
``baselines`` config against its own schema) and the card check all pass. The git commit is
recorded here and not in the DVC-built card: a commit hash inside a DVC-tracked output changes
with every commit, so `dvc repro` could never reproduce the committed dvc.lock. The uploaded
README is the built card with its placeholder line replaced by the commit; the commit is also in
the Hub commit description and the tag message. The card's link to the local audit gallery
(data/report/, never uploaded) becomes plain text in that copy.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from groundbench.cards.render import GALLERY_LINE, GALLERY_LINE_PUBLISHED, GIT_COMMIT_LINE, GIT_COMMIT_PLACEHOLDER
from groundbench.core.atomic import remove_stale_temporaries, scratch_dir
from groundbench.errors import GroundBenchError
from groundbench.loaders.published import data_files, iter_batches
from groundbench.schemas.baselines_features import BASELINES_CONFIG, validate_baselines_table
from groundbench.schemas.features import COLUMNS, arrow_schema
from groundbench.schemas.rules import validate_table
from groundbench.tools.hubrepo import (
    FOLDERS,
    TOP_FILES,
    differences,
    head_commit,
    local_files,
    network_errors,
    remote_files,
    tag_commit,
)

PUBLISHED = (*TOP_FILES, *(f"{folder}**" for folder in FOLDERS))
REPLACED = ["data/**", "assets/**", "audits/**"]  # files of the previous version that must not linger


@dataclass(frozen=True)
class Plan:
    repo_id: str
    tag: str
    commit: str
    files: list[tuple[str, int]]  # (path in repo, bytes)

    @property
    def total_bytes(self) -> int:
        return sum(size for _, size in self.files)


def git_commit(root: Path) -> str:
    """HEAD of the repository holding ``root``, ``+dirty`` when files differ from it, else ``unknown``."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True)
        status = subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head.stdout.strip() + ("+dirty" if status.stdout.strip() else "")


def published_files(folder: Path) -> list[tuple[str, int]]:
    files = [folder / name for name in TOP_FILES]
    for sub in FOLDERS:
        files += sorted((folder / sub).rglob("*"))
    return [(str(p.relative_to(folder)), p.stat().st_size) for p in files if p.is_file()]


def preflight(folder: Path, verify_mismatches: list[str], card_problems: list[str]) -> list[str]:
    """Every reason to refuse: checksum mismatches, invalid shards, card problems."""
    problems = [f"verify: {m}" for m in verify_mismatches]
    for config in sorted(p for p in (folder / "data").iterdir() if p.is_dir()) if (folder / "data").is_dir() else []:
        if not data_files(config):
            continue
        try:
            # The published copy adds the dataset version to the metadata (the card check reads it)
            # and the published columns (prompts, licence); the rules check the record columns exactly.
            table = pa.Table.from_batches(list(iter_batches(config)))
            if config.name == BASELINES_CONFIG:  # its own schema; check-card recomputes its values
                validate_baselines_table(table, str(config))
                continue
            # Parquet does not keep nested fields' Arrow metadata: the columns are rebuilt on the exact
            # record schema, which fails on any differing type.
            records = pa.Table.from_arrays(table.select(list(COLUMNS)).columns, schema=arrow_schema())
            validate_table(records, str(config))
        except GroundBenchError as exc:
            problems.append(f"validation: {exc}")
        except (pa.ArrowInvalid, pa.ArrowTypeError, KeyError, ValueError) as exc:
            problems.append(f"validation: {config}: schema: expected the GroundBench record columns ({exc})")
    problems.extend(f"card: {p}" for p in card_problems)
    return problems


def staged_card(folder: Path, commit: str) -> bytes:
    """The card as uploaded: the built card with the git commit in place of its placeholder line, and
    the audit-gallery link (which resolves only in a local checkout) replaced by plain text."""
    text = (folder / "README.md").read_text(encoding="utf-8")
    if GIT_COMMIT_PLACEHOLDER not in text:
        raise GroundBenchError(folder / "README.md", "provenance", "the git commit placeholder line is missing")
    text = text.replace(GALLERY_LINE, GALLERY_LINE_PUBLISHED)
    return text.replace(GIT_COMMIT_PLACEHOLDER, GIT_COMMIT_LINE.format(commit=commit)).encode("utf-8")


def plan(folder: Path, repo_id: str, tag: str, commit: str) -> Plan:
    if repo_id.count("/") != 1 or not all(repo_id.split("/")):
        raise GroundBenchError("--repo-id", "repo_id", f"expected ORG/NAME, found {repo_id!r}")
    files = [
        (path, len(staged_card(folder, commit)) if path == "README.md" else size)
        for path, size in published_files(folder)
    ]
    return Plan(repo_id=repo_id, tag=tag, commit=commit, files=files)


def _stage(folder: Path, staging: Path, commit: str) -> None:
    """The folder as uploaded: hard links (copies across devices) plus the card with the commit filled in."""
    for relative, _ in published_files(folder):
        target = staging / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if relative == "README.md":
            target.write_bytes(staged_card(folder, commit))
            continue
        try:
            os.link(folder / relative, target)
        except OSError:
            shutil.copyfile(folder / relative, target)


@dataclass(frozen=True)
class Published:
    url: str
    status: str  # what happened, for the user: published / already published / completed


def upload(folder: Path, publish_plan: Plan, version: str) -> Published:
    """Create the repo, replace its data with the folder's and tag the version, idempotently.

    A rerun after any failure finds what an earlier run left: the tag already on exactly these files
    (nothing to do), or main already holding them (only the tag is added); a tag on other content is
    refused. A network or Hub failure is one error saying to run again.
    """
    from huggingface_hub import HfApi
    from huggingface_hub.errors import OfflineModeIsEnabled

    api = HfApi()
    remove_stale_temporaries(folder.parent)  # the staging folder of a publish that was killed
    try:
        with scratch_dir(folder.parent, "publish") as staging:
            _stage(folder, staging, publish_plan.commit)
            return _publish(api, staging, publish_plan, version)
    except OfflineModeIsEnabled as exc:
        raise GroundBenchError("HF_HUB_OFFLINE", "environment", "unset HF_HUB_OFFLINE to publish") from exc
    except network_errors() as exc:
        if isinstance(exc, OSError) and exc.errno is not None:
            raise  # the local disk (staging), not the network: the CLI names the path
        detail = " ".join(str(exc).split()) or "no reply"
        raise GroundBenchError(
            api.endpoint,
            f"{publish_plan.repo_id} tag {publish_plan.tag}",
            f"the Hub did not answer ({type(exc).__name__}: {detail}); run again: the rerun finds what was "
            "already uploaded and completes the version",
        ) from exc


def _publish(api: Any, staging: Path, publish_plan: Plan, version: str) -> Published:
    repo, tag = publish_plan.repo_id, publish_plan.tag
    local = local_files(staging)
    api.create_repo(repo, repo_type="dataset", exist_ok=True)
    tagged = tag_commit(api, repo, tag)
    if tagged is not None:
        _same_or_refuse(api, repo, tag, tagged, local)
        return Published(_commit_url(api, repo, tagged), f"already published: tag {tag} holds exactly these files")
    head = head_commit(api, repo)
    if head is not None and not differences(local, remote_files(api, repo, head)):
        commit, status = head, f"completed: main already held these files (an earlier run); tag {tag} added"
    else:
        info = api.upload_folder(
            repo_id=repo,
            repo_type="dataset",
            folder_path=staging,
            allow_patterns=list(PUBLISHED),
            delete_patterns=REPLACED,
            commit_message=f"GroundBench {version}",
            commit_description=f"Built from git commit {publish_plan.commit}.",
        )
        commit, status = info.oid, "published"
    from huggingface_hub.errors import HfHubHTTPError

    try:
        api.create_tag(
            repo,
            tag=tag,
            revision=commit,  # the commit just checked or made, not whatever main is by now
            repo_type="dataset",
            tag_message=f"GroundBench {version} (git commit {publish_plan.commit})",
        )
    except HfHubHTTPError as exc:
        tagged = tag_commit(api, repo, tag) if exc.response is not None and exc.response.status_code == 409 else None
        if tagged is None:
            raise
        _same_or_refuse(api, repo, tag, tagged, local)  # made by an earlier run whose reply was lost
    return Published(_commit_url(api, repo, commit), status)


def _same_or_refuse(api: Any, repo: str, tag: str, commit: str, local: dict[str, tuple[int, str, str]]) -> None:
    different = differences(local, remote_files(api, repo, commit))
    if different:
        raise GroundBenchError(
            repo,
            f"tag {tag}",
            f"already exists (commit {commit[:12]}) and holds other content: {len(different)} files differ, "
            f"first {different[0]}; a published version is never replaced: bump the version "
            "(groundbench version bump) or pass --revision NEW_TAG",
        )


def _commit_url(api: Any, repo: str, commit: str) -> str:
    return f"{api.endpoint}/datasets/{repo}/commit/{commit}"
