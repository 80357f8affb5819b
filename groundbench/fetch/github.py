"""Files of a GitHub repository at one commit, over raw.githubusercontent.com (or a mirror of that host).

A release that lives in a code repository (OSWorld-G's ``benchmark/`` folder) is taken file by file at a
commit, never as the repository's archive: ``allow`` names the files, the spec's ``listing`` hook names the
rest from what they hold (the screenshots a benchmark file names). Each file is held to a sha256: the
catalogue's pin for the pinned commit, else the one recorded at the first fetch of that commit.
"""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from groundbench.errors import GroundBenchError
from groundbench.fetch import http

if TYPE_CHECKING:
    from groundbench.fetch.catalog import SourceSpec

RAW = "https://raw.githubusercontent.com"
COMMIT = re.compile(r"[0-9a-f]{40}")


@dataclass(frozen=True)
class GitFile:
    path: str
    bytes: int
    sha256: str


def commit_of(revision: str) -> str:
    """A full commit id: a branch or tag would let the same record name other bytes tomorrow."""
    if not COMMIT.fullmatch(revision):
        raise GroundBenchError("command line", "--revision", f"expected a 40-character commit id, got {revision!r}")
    return revision


def repo_path(path: str, where: str) -> str:
    """A relative path inside the repository (a listed name must not climb out of the tree)."""
    pure = PurePosixPath(path)
    if not path or pure.is_absolute() or ".." in pure.parts or "\\" in path:
        raise GroundBenchError(where, "path", f"expected a relative path inside the repository, got {path!r}")
    return str(pure)


def expected(
    spec: SourceSpec, commit: str, path: str, recorded: dict[str, dict] | None
) -> tuple[str | None, int | None, str]:
    """(sha256, bytes, where the pin comes from) a file must match; (None, None, "") when nothing pins it."""
    pins = dict(spec.pins)
    if commit == spec.revision and path in pins:
        return pins[path], None, f"the catalogue's sha256 of {path} at {commit[:12]}"
    before = (recorded or {}).get(path)
    if before:
        return before["sha256"], before["bytes"], "the sha256 recorded at the first fetch (--update accepts new bytes)"
    return None, None, ""


def download(
    spec: SourceSpec, commit: str, base: str, staging: Path, recorded: dict[str, dict] | None, progress: bool = True
) -> list[GitFile]:
    """Every file the source takes at ``commit`` into ``staging`` (same paths as in the repository)."""
    from groundbench.core.registry import load

    fetched: dict[str, GitFile] = {}

    def take(path: str) -> None:
        sha256, size, pin = expected(spec, commit, path, recorded)
        url = f"{base}/{spec.origin}/{commit}/{urllib.parse.quote(path)}"
        got = http.download(url, staging / path, size, sha256, progress=progress, pin=pin)
        fetched[path] = GitFile(path, got.bytes, got.sha256)

    for path in spec.allow:
        take(repo_path(path, f"{spec.name}: allow"))
    listed = load(spec.listing)(staging) if spec.listing else []
    for path in listed:
        if path not in fetched:
            take(repo_path(path, f"{spec.origin}@{commit[:12]}: listed file"))
    if recorded is not None and (missing := sorted(set(recorded) - set(fetched))):
        raise GroundBenchError(f"{spec.origin}@{commit[:12]}", "files", f"recorded files now missing: {missing[:5]}")
    return [fetched[p] for p in sorted(fetched)]
