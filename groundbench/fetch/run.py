"""``groundbench fetch SOURCE``: licence first, then download, check, unpack, record, track with DVC.

The tree is built in a temporary sibling and renamed into place, so ``data/sources/<source>/tree``
is either the previous complete tree or the new one. Partial downloads stay in
``data/sources/<source>/.download/`` and are resumed by the next run.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groundbench.core.atomic import atomic_dir, remove_stale_temporaries
from groundbench.errors import GroundBenchError
from groundbench.fetch import http, unpack
from groundbench.fetch.catalog import GITHUB, HTTP, HUB, MANUAL, SourceSpec, spec
from groundbench.fetch.provenance import read_record, source_dir, tree_digest, tree_dir, write_record

DOWNLOADS = ".download"  # partial downloads and Hub staging, resumed by the next run


@dataclass(frozen=True)
class FetchOptions:
    from_path: Path | None = None  # GAPartNet: the user's download (archive or folder)
    url: str | None = None  # HTTP sources: a mirror of the official archive; GitHub sources: of the raw host
    sha256: str | None = None  # HTTP / --from: the archive's expected sha256
    revision: str | None = None  # Hub: branch, tag or commit (default: recorded, else main); GitHub: a commit
    refresh: bool = False  # download again even when the tree is intact, and compare with the record
    update: bool = False  # accept new upstream bytes / a new revision instead of refusing them
    progress: bool = True


@dataclass(frozen=True)
class FetchResult:
    source: str
    record: dict[str, Any]
    status: str  # "fetched" or "up to date"
    resumed_at: tuple[int, ...] = ()


def licence_lines(s: SourceSpec) -> list[str]:
    lines = [f"{s.title}", f"  licence: {s.licence}", f"  terms:   {s.terms}", f"  size:    {s.size}"]
    lines += [f"  note:    {n}" for n in s.notes]
    return lines


def _version() -> str:
    from groundbench import __version__

    return __version__


def _base_record(s: SourceSpec) -> dict[str, Any]:
    return {
        "source": s.name,
        "title": s.title,
        "kind": s.kind,
        "licence": s.licence,
        "terms": s.terms,
        "makes": list(s.makes),
        "fetched_with": f"groundbench {_version()}",
    }


def _check_layout(s: SourceSpec, tree: Path) -> Any:
    """The spec's layout hook on the unpacked tree (raises when the converter could not read it); what it found."""
    if not s.layout:
        return None
    from groundbench.core.registry import load

    return load(s.layout)(tree)


def _intact(root: Path, record: dict[str, Any] | None) -> bool:
    tree = tree_dir(root, record["source"]) if record else None
    return bool(record and tree and tree.is_dir() and tree_digest(tree) == record["tree"])


def _fetch_http(root: Path, s: SourceSpec, recorded: dict[str, Any] | None, opts: FetchOptions) -> FetchResult:
    url = opts.url or s.origin
    expected, size, pin = expected_archive(s, recorded, opts)
    name = url.rstrip("/").rsplit("/", 1)[-1] or f"{s.name}.archive"
    downloads = source_dir(root, s.name) / DOWNLOADS
    got = http.download(url, downloads / name, size, expected, progress=opts.progress, pin=pin)
    try:
        # The tree replaces the previous one only once every member unpacked and the compressor's own
        # checksums (gzip CRC and length, zip CRCs) were read to the end; the record and tree.dvc come after.
        with atomic_dir(tree_dir(root, s.name)) as tmp:
            unpack.extract(got.path, tmp)
            _check_layout(s, tmp)
            tree = tree_digest(tmp)
    except GroundBenchError:
        shutil.rmtree(downloads, ignore_errors=True)  # bytes that do not unpack are never resumed from
        raise
    got.path.unlink()
    shutil.rmtree(downloads, ignore_errors=True)
    record = _base_record(s) | {
        "origin": url,
        "revision": _http_revision(got),
        "archive": {"name": name, "bytes": got.bytes, "sha256": got.sha256},
        "tree": tree,
    }
    return FetchResult(s.name, record, "fetched", got.resumed_at)


def expected_archive(
    s: SourceSpec, recorded: dict[str, Any] | None, opts: FetchOptions
) -> tuple[str | None, int | None, str]:
    """The sha256 and size an HTTP download must have, and where that pin comes from.

    ``--sha256`` first (the user vouches for another archive), then the sha256 recorded at the first
    fetch (new upstream bytes are refused unless ``--update``), then the catalogue's: a mirror given
    with ``--url`` serves the same archive as the official location and is held to the same bytes.
    """
    if opts.sha256:
        return opts.sha256.lower(), None, "--sha256"
    archive = (recorded or {}).get("archive")
    if archive and not opts.update:
        return (
            archive["sha256"],
            archive["bytes"],
            "the sha256 recorded at the first fetch (--update accepts new bytes)",
        )
    if s.archive_sha256:
        pin = (
            "the catalogue's sha256 of the official archive (a mirror must serve the same bytes; --sha256 for another)"
        )
        return s.archive_sha256, s.archive_bytes, pin
    return None, None, ""


def _http_revision(got: http.Download) -> str:
    # The host keeps no versions: the pin is the archive's sha256; ETag / Last-Modified are noted as seen.
    seen = [f"ETag {got.etag}" if got.etag else "", f"Last-Modified {got.last_modified}" if got.last_modified else ""]
    return "; ".join(x for x in seen if x) or "unversioned (pinned by the archive's sha256)"


def _fetch_hub(root: Path, s: SourceSpec, recorded: dict[str, Any] | None, opts: FetchOptions) -> FetchResult:
    from groundbench.fetch import hub

    pinned = recorded["revision"] if recorded and not opts.update else None
    commit = hub.resolve(s.origin, opts.revision or pinned or "main")
    same = recorded is not None and recorded["revision"] == commit
    staging = source_dir(root, s.name) / DOWNLOADS
    try:
        files = hub.download(s, commit, staging, recorded.get("files") if same and recorded else None, opts.progress)
    except GroundBenchError as exc:
        if exc.field != "download":  # refused bytes are never resumed from; a dropped download is
            shutil.rmtree(staging, ignore_errors=True)
        raise
    with atomic_dir(tree_dir(root, s.name)) as tmp:
        for f in files:
            target = tmp / hub.relocated(s, f.path)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staging / f.path, target)  # same file system: a rename, not a second copy
            if f.path in s.unzip:
                unpack.extract(target, tmp)
                target.unlink()  # the archive's sha256 is in the record; the tree holds what it unpacks to
        tree = tree_digest(tmp)
    shutil.rmtree(staging, ignore_errors=True)
    from huggingface_hub import constants

    return _fetched_files(s, f"{constants.ENDPOINT}/datasets/{s.origin}", commit, files, tree)


def _fetch_github(root: Path, s: SourceSpec, recorded: dict[str, Any] | None, opts: FetchOptions) -> FetchResult:
    from groundbench.fetch import github

    recorded = recorded if recorded and recorded.get("kind") == GITHUB else None  # e.g. an earlier Hub copy
    pinned = recorded["revision"] if recorded and not opts.update else None
    commit = github.commit_of(opts.revision or pinned or s.revision)
    same = recorded is not None and recorded["revision"] == commit and not opts.update
    base = (opts.url or github.RAW).rstrip("/")
    staging = source_dir(root, s.name) / DOWNLOADS
    try:
        files = github.download(
            s, commit, base, staging, recorded.get("files") if same and recorded else None, opts.progress
        )
    except GroundBenchError as exc:
        if exc.field not in ("connection", "size"):  # refused bytes are never resumed from; a short download is
            shutil.rmtree(staging, ignore_errors=True)
        raise
    with atomic_dir(tree_dir(root, s.name)) as tmp:
        for f in files:
            target = tmp / f.path
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staging / f.path, target)  # same file system: a rename, not a second copy
        _check_layout(s, tmp)
        tree = tree_digest(tmp)
    shutil.rmtree(staging, ignore_errors=True)
    return _fetched_files(s, f"{base}/{s.origin}/{commit}", commit, files, tree)


def _fetched_files(s: SourceSpec, origin: str, commit: str, files: Sequence[Any], tree: dict[str, Any]) -> FetchResult:
    """The record of a tree fetched file by file at one commit (the Hub's or GitHub's): each file's size and
    sha256, no archive."""
    record = _base_record(s) | {
        "origin": origin,
        "repo": s.origin,
        "revision": commit,
        "archive": None,
        "files": {f.path: {"bytes": f.bytes, "sha256": f.sha256} for f in files},
        "tree": tree,
    }
    return FetchResult(s.name, record, "fetched")


def _fetch_manual(root: Path, s: SourceSpec, recorded: dict[str, Any] | None, opts: FetchOptions) -> FetchResult:
    if opts.from_path is None:
        raise GroundBenchError(
            "command line",
            "--from",
            f"{s.title} is distributed through a request form: {s.origin} (terms: {s.terms}); download it, "
            f"then run `groundbench fetch {s.name} --from ARCHIVE_OR_FOLDER`",
        )
    source = opts.from_path.resolve()
    if not source.exists():
        raise GroundBenchError(source, "--from", "no such archive or folder")
    archive = None
    with atomic_dir(tree_dir(root, s.name)) as tmp:
        if source.is_dir():
            _copy_folder(source, tmp)
        else:
            archive = {"name": source.name, "bytes": source.stat().st_size, "sha256": _sha256(source)}
            if opts.sha256 and archive["sha256"] != opts.sha256.lower():
                raise GroundBenchError(
                    source.name, "sha256", f"expected {opts.sha256.lower()}, got {archive['sha256']}"
                )
            before = (recorded or {}).get("archive")
            if before and not opts.update and before["sha256"] != archive["sha256"]:
                raise GroundBenchError(
                    source.name,
                    "sha256",
                    f"differs from the recorded download {before['sha256']}; pass --update to replace it",
                )
            unpack.extract(source, tmp)
        layout = _check_layout(s, tmp)
        tree = tree_digest(tmp)
    record = _base_record(s) | {
        "origin": s.origin,
        "revision": f"user download {source.name}",
        "archive": archive,
        "layout": layout,
        "tree": tree,
    }
    return FetchResult(s.name, record, "fetched")


def _copy_folder(source: Path, target: Path) -> None:
    for path in sorted(source.rglob("*")):
        rel = path.relative_to(source)
        if path.is_symlink():
            raise GroundBenchError(rel, "file", "symbolic links are not copied from a download folder")
        if path.is_dir():
            (target / rel).mkdir(parents=True, exist_ok=True)
        elif path.is_file() and path.name != ".DS_Store":
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target / rel)


def _sha256(path: Path) -> str:
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


FETCHERS: dict[str, Callable[[Path, SourceSpec, dict[str, Any] | None, FetchOptions], FetchResult]] = {
    HTTP: _fetch_http,
    HUB: _fetch_hub,
    GITHUB: _fetch_github,
    MANUAL: _fetch_manual,
}


def fetch(root: Path, name: str, opts: FetchOptions, echo: Callable[[str], None]) -> FetchResult:
    """Fetch one source into ``data/sources/<name>/tree``, write its record, and ``dvc add`` the tree."""
    s = spec(name)
    for line in licence_lines(s):  # the terms come before any byte is downloaded
        echo(line)
    remove_stale_temporaries(source_dir(root, name))  # a tree half-built by a killed fetch
    recorded = read_record(root, name)
    if (
        not opts.refresh
        and not opts.update
        and opts.revision is None
        and opts.from_path is None
        and _intact(root, recorded)
        and recorded is not None
        and recorded.get("kind") == s.kind  # a tree fetched from where the source used to live is fetched again
    ):
        assert recorded is not None
        return FetchResult(name, recorded, "up to date")
    result = FETCHERS[s.kind](root, s, recorded, opts)
    write_record(root, name, result.record)
    track(root, tree_dir(root, name))
    return result


def track(root: Path, tree: Path) -> bool:
    """``dvc add`` the tree when the root is a DVC project: ``tree.dvc`` pins its exact bytes."""
    if not (root / ".dvc").is_dir():
        return False
    from dvc.repo import Repo

    with Repo(str(root)) as repo:
        repo.add(str(tree.absolute()))  # absolute: DVC resolves a relative path against the cwd, not the root
    return True
