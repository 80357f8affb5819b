"""Atomic writes: every output is written beside its target and renamed into place.

A reader (or a build killed half-way) therefore sees either the previous complete file or the new
complete file, never a partial one. Directories are replaced the same way: built under a temporary
sibling name and swapped in with renames.

Each temporary's name carries its writer (``.<target>.<pid>@<host>.<random>.tmp``), so the cleanup
of leftovers (:func:`remove_stale_temporaries`) removes only those of this process that are no
longer being written and those of processes that have ended: a concurrent run's folder in
progress is never touched.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

# Which machine wrote a temporary (a folder may be shared): only this host's process ids can be checked.
HOST = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]
TEMPORARY = re.compile(r"^\..+\.(?P<pid>\d+)@(?P<host>[0-9a-f]{8})\.[^.]+\.(?:tmp|old)$")
_ACTIVE: set[str] = set()  # temporaries this process is writing now (absolute paths)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _prefix(target: Path) -> str:
    return f".{target.name}.{os.getpid()}@{HOST}."


def _tmp_sibling(target: Path, suffix: str) -> Path:
    fd, name = tempfile.mkstemp(prefix=_prefix(target), suffix=suffix, dir=target.parent)
    os.close(fd)
    os.chmod(name, 0o666 & ~_umask())  # mkstemp makes 0600; published files are world-readable
    return Path(name)


def _name_failed_output(exc: BaseException, target: Path, tmp: Path | None = None) -> None:
    """An OS error without a file name (pyarrow's, an fsync's), or naming the hidden temporary or a file
    inside it, is about the output being written: name that output instead (the path the user knows)."""
    if not isinstance(exc, OSError):
        return
    name = None if exc.filename is None else str(exc.filename)
    if name is None or Path(name).name.startswith(_prefix(target)):
        exc.filename = str(target)
    elif tmp is not None and name.startswith(f"{tmp}{os.sep}"):
        exc.filename = str(target) + name[len(str(tmp)) :]


@contextlib.contextmanager
def atomic_file(target: Path, mode: str = "wb") -> Iterator[IO]:  # type: ignore[type-arg]
    """Open a temporary sibling of ``target``; rename it onto ``target`` only on success."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = _tmp_sibling(target, ".tmp")
    except OSError as exc:
        _name_failed_output(exc, target)
        raise
    _ACTIVE.add(str(tmp))
    try:
        with open(tmp, mode) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        _name_failed_output(exc, target)
        raise
    finally:
        _ACTIVE.discard(str(tmp))


def write_bytes(target: Path, data: bytes) -> None:
    with atomic_file(target, "wb") as handle:
        handle.write(data)


def write_text(target: Path, text: str) -> None:
    write_bytes(target, text.encode("utf-8"))


@contextlib.contextmanager
def atomic_dir(target: Path) -> Iterator[Path]:
    """Yield an empty temporary directory that replaces ``target`` when the block succeeds."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=_prefix(target), suffix=".tmp", dir=target.parent))
    except OSError as exc:
        _name_failed_output(exc, target)
        raise
    _ACTIVE.add(str(tmp))
    old: Path | None = None
    try:
        os.chmod(tmp, 0o777 & ~_umask())
        yield tmp
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=_prefix(target), suffix=".old", dir=target.parent))
            _ACTIVE.add(str(old))
            os.rmdir(old)
            os.replace(target, old)
        os.replace(tmp, target)
        if old is not None:
            shutil.rmtree(old)
    except BaseException as exc:
        if old is not None and old.is_dir():
            if target.exists():  # swapped; only the previous output's removal was cut short (e.g. Ctrl-C)
                shutil.rmtree(old, ignore_errors=True)
            else:  # the swap failed half-way: the previous output goes back under its name
                os.replace(old, target)
        shutil.rmtree(tmp, ignore_errors=True)
        _name_failed_output(exc, target, tmp)
        raise
    finally:
        _ACTIVE.discard(str(tmp))
        _ACTIVE.discard(str(old))


@contextlib.contextmanager
def scratch_dir(parent: Path, name: str) -> Iterator[Path]:
    """A working folder in ``parent``, named as the temporaries are and removed when the block ends; one that
    a killed process left is removed by the next :func:`remove_stale_temporaries` of ``parent``."""
    tmp = Path(tempfile.mkdtemp(prefix=_prefix(parent / name), suffix=".tmp", dir=parent))
    _ACTIVE.add(str(tmp))
    try:
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        _ACTIVE.discard(str(tmp))


def _alive(pid: int) -> bool:
    """Whether process ``pid`` of this host still runs (a zombie, killed and not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state not in ("Z", "X")


def is_stale(entry: Path) -> bool:
    """A temporary left behind: this process's own but no longer being written, or one of an ended process.

    Names without a writer (from an older version) or of another host are never taken for stale.
    """
    match = TEMPORARY.match(entry.name)
    if match is None or match["host"] != HOST:
        return False
    pid = int(match["pid"])
    if pid == os.getpid():
        return str(entry.absolute()) not in _ACTIVE
    return not _alive(pid)


def remove_stale_temporaries(folder: Path) -> None:
    """Delete leftovers of a run that was killed (``.name.<pid>@<host>.*.tmp`` / ``.old``; see :func:`is_stale`)."""
    if not folder.is_dir():
        return
    for entry in folder.iterdir():
        if is_stale(entry):
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
