"""What a Hub dataset repo holds at a revision, compared with the folder about to be published.

``publish`` is idempotent through these: before uploading it asks whether the version's tag exists
(then it must hold exactly these files, else publishing refuses) and whether main already holds
them (an earlier run whose commit landed but whose reply was lost), so a rerun after any failure
completes the version instead of pushing it twice. Files are compared as the Hub lists them: an LFS
file by its sha256, any other by its git blob id.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groundbench.fetch.hub import file_digests

# The published part of the repo (other files, e.g. the Hub's own .gitattributes, are not compared).
TOP_FILES = ("README.md", "croissant.json", "eval.yaml")
FOLDERS = ("data/", "assets/", "audits/")


@dataclass(frozen=True)
class RemoteFile:
    size: int
    blob_id: str
    sha256: str | None  # LFS files only


def is_published_path(path: str) -> bool:
    return path in TOP_FILES or path.startswith(FOLDERS)


def local_files(folder: Path) -> dict[str, tuple[int, str, str]]:
    """Every file under ``folder`` (the staged upload): path -> (size, sha256, git blob id)."""
    files = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            sha256, blob, size = file_digests(path)
            files[path.relative_to(folder).as_posix()] = (size, sha256, blob)
    return files


def remote_files(api: Any, repo_id: str, revision: str) -> dict[str, RemoteFile]:
    """The published files of ``repo_id`` at ``revision`` (a commit id or a tag)."""
    from huggingface_hub.hf_api import RepoFile

    entries = api.list_repo_tree(repo_id, repo_type="dataset", revision=revision, recursive=True)
    return {
        entry.path: RemoteFile(int(entry.size), entry.blob_id, entry.lfs.sha256 if entry.lfs else None)
        for entry in entries
        if isinstance(entry, RepoFile) and is_published_path(entry.path)
    }


def differences(local: dict[str, tuple[int, str, str]], remote: dict[str, RemoteFile]) -> list[str]:
    """Paths that are missing on one side or hold other bytes, sorted (empty: the same content)."""
    different = set(local).symmetric_difference(remote)
    for path in set(local) & set(remote):
        size, sha256, blob = local[path]
        there = remote[path]
        same = there.sha256 == sha256 if there.sha256 is not None else there.blob_id == blob
        if not same or there.size != size:
            different.add(path)
    return sorted(different)


def tag_commit(api: Any, repo_id: str, tag: str) -> str | None:
    """The commit ``tag`` points at, or None when the repo has no such tag."""
    refs = api.list_repo_refs(repo_id, repo_type="dataset")
    return next((ref.target_commit for ref in refs.tags if ref.name == tag), None)


def head_commit(api: Any, repo_id: str) -> str | None:
    refs = api.list_repo_refs(repo_id, repo_type="dataset")
    return next((ref.target_commit for ref in refs.branches if ref.name == "main"), None)


def network_errors() -> tuple[type[BaseException], ...]:
    """What the Hub client raises when the network or the Hub fails (each client library that is installed)."""
    import importlib

    errors: list[type[BaseException]] = [OSError]  # ConnectionError, TimeoutError; HfHubHTTPError is one too
    for module, name in (("httpx2", "HTTPError"), ("httpx", "HTTPError"), ("requests", "RequestException")):
        try:
            errors.append(getattr(importlib.import_module(module), name))
        except (ImportError, AttributeError):
            continue
    return tuple(errors)
