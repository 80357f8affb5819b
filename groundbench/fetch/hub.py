"""A Hugging Face dataset repository, pinned to one commit, checked file by file.

The client checks only sizes; each file's sha256 is compared here with the repository tree's
``lfs.oid`` (LFS files) or its git blob id (``sha1("blob <size>\\0" + bytes)``, other files), and,
when the source was fetched before, with the sha256 recorded then: a file that changed under the
same revision is refused. Files land in ``staging`` (``hf_hub_download(local_dir=...)`` resumes
partial files there) and are moved into the tree in the converter's layout.
"""

from __future__ import annotations

import fnmatch
import hashlib
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from groundbench.errors import GroundBenchError
from groundbench.fetch.catalog import SourceSpec

COMMIT = re.compile(r"^[0-9a-f]{40}$")
CHUNK = 1 << 20


@dataclass(frozen=True)
class HubFile:
    path: str  # path in the repository
    bytes: int
    sha256: str
    oid: str  # lfs sha256 or git blob id, as the tree listed it


def _hub():  # noqa: ANN202 (huggingface_hub is imported lazily: most commands never need it)
    import huggingface_hub
    from huggingface_hub import constants

    if constants.HF_HUB_OFFLINE:
        raise GroundBenchError(
            "HF_HUB_OFFLINE", "environment", "is set; run fetch with HF_HUB_OFFLINE=0 (make exports it as 1)"
        )
    return huggingface_hub, constants.ENDPOINT


def resolve(repo: str, revision: str) -> str:
    """The 40-hex commit a branch, tag or commit names."""
    if COMMIT.match(revision):
        return revision
    huggingface_hub, _ = _hub()
    try:
        info = huggingface_hub.HfApi().dataset_info(repo, revision=revision)
    except Exception as exc:  # the client raises many types (HTTP, not found, gated); one line each
        raise GroundBenchError(
            repo, "revision", f"could not resolve {revision!r} ({type(exc).__name__}: {exc})"
        ) from exc
    if not info.sha or not COMMIT.match(info.sha):
        raise GroundBenchError(repo, "revision", f"{revision!r} did not resolve to a commit")
    return info.sha


def wanted(spec: SourceSpec, path: str) -> bool:
    return any(fnmatch.fnmatch(path, p) for p in spec.allow) and not any(fnmatch.fnmatch(path, p) for p in spec.ignore)


def list_files(spec: SourceSpec, commit: str) -> list[tuple[str, int, str, bool]]:
    """(path, size, oid, is_lfs) of the files the source takes, sorted by path."""
    huggingface_hub, _ = _hub()
    try:
        entries = list(
            huggingface_hub.HfApi().list_repo_tree(spec.origin, revision=commit, recursive=True, repo_type="dataset")
        )
    except Exception as exc:
        raise GroundBenchError(
            spec.origin, "tree", f"could not list revision {commit} ({type(exc).__name__}: {exc})"
        ) from exc
    files = []
    for entry in entries:
        if not isinstance(entry, huggingface_hub.hf_api.RepoFile) or not wanted(spec, entry.path):
            continue
        lfs = entry.lfs
        oid = lfs.sha256 if lfs is not None else entry.blob_id
        files.append((entry.path, int(entry.size), str(oid), lfs is not None))
    if not files:
        raise GroundBenchError(spec.origin, "files", f"no file at {commit} matches {list(spec.allow)}")
    return sorted(files)


def file_digests(path: Path) -> tuple[str, str, int]:
    """sha256, git blob id and size of a file (what the Hub lists for an LFS file and for any other)."""
    sha256 = hashlib.sha256()
    size = path.stat().st_size
    blob = hashlib.sha1(f"blob {size}\0".encode())  # noqa: S324 (git's object id, not a security hash)
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            sha256.update(chunk)
            blob.update(chunk)
    return sha256.hexdigest(), blob.hexdigest(), size


def download(
    spec: SourceSpec, commit: str, staging: Path, recorded: dict[str, dict] | None, progress: bool = True
) -> list[HubFile]:
    """Every wanted file at ``commit`` into ``staging`` (same paths as in the repo), each one checked."""
    huggingface_hub, _ = _hub()
    if not progress or not sys.stderr.isatty():  # bars belong on a terminal, never in a log
        from huggingface_hub.utils import disable_progress_bars

        disable_progress_bars()
    fetched = []
    for path, size, oid, is_lfs in list_files(spec, commit):
        try:
            local = Path(
                huggingface_hub.hf_hub_download(
                    spec.origin, path, repo_type="dataset", revision=commit, local_dir=str(staging)
                )
            )
        except Exception as exc:
            raise GroundBenchError(f"{spec.origin}/{path}", "download", f"{type(exc).__name__}: {exc}") from exc
        sha256, blob, got = file_digests(local)
        where = f"{spec.origin}@{commit[:12]}/{path}"
        if got != size:
            raise GroundBenchError(where, "size", f"the tree lists {size} bytes, got {got}")
        if (sha256 if is_lfs else blob) != oid:
            raise GroundBenchError(
                where, "oid", f"the tree lists {oid}, the bytes hash to {sha256 if is_lfs else blob}"
            )
        if recorded is not None:
            before = recorded.get(path)
            if before is None:
                raise GroundBenchError(where, "file", "not in the recorded listing of this revision; refusing")
            if before["sha256"] != sha256:
                raise GroundBenchError(
                    where, "sha256", f"changed under the same revision: recorded {before['sha256']}, got {sha256}"
                )
        fetched.append(HubFile(path, got, sha256, oid))
    if recorded is not None and (missing := sorted(set(recorded) - {f.path for f in fetched})):
        raise GroundBenchError(f"{spec.origin}@{commit[:12]}", "files", f"recorded files now missing: {missing[:5]}")
    return fetched


def relocated(spec: SourceSpec, path: str) -> str:
    """Where a repo file goes in the tree (the converter's layout)."""
    for prefix, folder in spec.relocate:
        if path.startswith(prefix):
            return folder + path[len(prefix) :]
    return path
