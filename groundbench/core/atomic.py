"""Atomic writes: every output is written beside its target and renamed into place.

A reader (or a build killed half-way) therefore sees either the previous complete file or the new
complete file, never a partial one. Directories are replaced the same way: built under a temporary
sibling name and swapped in with renames.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _tmp_sibling(target: Path, suffix: str) -> Path:
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=suffix, dir=target.parent)
    os.close(fd)
    os.chmod(name, 0o666 & ~_umask())  # mkstemp makes 0600; published files are world-readable
    return Path(name)


@contextlib.contextmanager
def atomic_file(target: Path, mode: str = "wb") -> Iterator[IO]:  # type: ignore[type-arg]
    """Open a temporary sibling of ``target``; rename it onto ``target`` only on success."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = _tmp_sibling(target, ".tmp")
    try:
        with open(tmp, mode) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_bytes(target: Path, data: bytes) -> None:
    with atomic_file(target, "wb") as handle:
        handle.write(data)


def write_text(target: Path, text: str) -> None:
    write_bytes(target, text.encode("utf-8"))


@contextlib.contextmanager
def atomic_dir(target: Path) -> Iterator[Path]:
    """Yield an empty temporary directory that replaces ``target`` when the block succeeds."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    os.chmod(tmp, 0o777 & ~_umask())
    try:
        yield tmp
        old = None
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=target.parent))
            os.rmdir(old)
            os.replace(target, old)
        os.replace(tmp, target)
        if old is not None:
            shutil.rmtree(old)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def remove_stale_temporaries(folder: Path) -> None:
    """Delete leftovers of a build that was killed (``.name.*.tmp`` / ``.old``)."""
    if not folder.is_dir():
        return
    for entry in folder.iterdir():
        if entry.name.startswith(".") and (entry.name.endswith(".tmp") or entry.name.endswith(".old")):
            if entry.is_dir():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
