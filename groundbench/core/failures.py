"""What the command line says when a run fails: one line, never a stack (unless asked for with --debug).

Every failure a user can cause or meet maps to one line and an exit status: our own
:class:`GroundBenchError` (bad input), an ``OSError`` (disk full, read-only, permission, missing
path) with a hint where one exists, Ctrl-C (130) and SIGTERM (143). Outputs are written atomically
(:mod:`groundbench.core.atomic`), so an interrupted or failed run leaves the last complete outputs
in place and the same command, run again, completes them.
"""

from __future__ import annotations

import errno
import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

from groundbench.errors import GroundBenchError

DEBUG_VARIABLE = "GROUNDBENCH_DEBUG"
RERUN = "nothing half-written is kept; run the same command again"

# errno -> what the user can do about it (a path is always named before it).
HINTS = {
    errno.ENOSPC: "free space on that file system (or choose another --out / --root), then run the same command again",
    errno.EDQUOT: "the disk quota is used up: free space (or choose another --out / --root), then run again",
    errno.EROFS: "the file system is read-only: choose a writable --out / --root",
    errno.EACCES: "check its permissions (or choose another --out / --root)",
    errno.EPERM: "check its permissions (or choose another --out / --root)",
    errno.ENOENT: "check the path",
    errno.EMFILE: "too many open files: raise the limit (ulimit -n) or use fewer workers",
}
# Under HOME (or a cache variable): the caches of datasets, huggingface_hub and inspect, not an output.
CACHE_HINT = (
    "the libraries' caches live there: make it writable or point HF_HOME, XDG_CACHE_HOME and XDG_DATA_HOME "
    "at a writable folder"
)


class Terminated(BaseException):
    """SIGTERM, raised in the main thread so that every ``finally`` and atomic write unwinds as for Ctrl-C."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C in a command that keeps what it did so far: its message says what was kept (exit 130)."""


def debug_requested(flag: bool) -> bool:
    return flag or os.environ.get(DEBUG_VARIABLE, "").strip().lower() in ("1", "true", "yes")


def describe_os_error(exc: OSError) -> str:
    """``<path>: <reason>; <hint>`` for an OS error (the path of the file it was about, when known)."""
    # os.strerror: pyarrow's own wording ("Error writing bytes to file. Detail: [errno 28] ...") says less
    reason = os.strerror(exc.errno) if exc.errno else (exc.strerror or str(exc) or type(exc).__name__)
    paths = [str(p) for p in (exc.filename, exc.filename2) if p is not None]
    line = f"{' -> '.join(paths)}: {reason}" if paths else reason
    hint = HINTS.get(exc.errno) if exc.errno is not None else None
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM) and any(_in_caches(Path(p)) for p in paths):
        hint = CACHE_HINT
    return f"{line}; {hint}" if hint else line


def _in_caches(path: Path) -> bool:
    """Whether ``path`` lies where libraries keep caches and state (datasets, huggingface_hub, inspect)."""
    places = [os.environ.get(name) for name in ("HF_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME")]
    home = Path(os.environ.get("HOME") or Path.home())
    places += [str(home / ".cache"), str(home / ".local"), str(home / ".config")]
    absolute = path.absolute()
    return any(place and absolute.is_relative_to(Path(place).absolute()) for place in places)


def one_line(exc: BaseException) -> tuple[str, int]:
    """The line to print (without the ``error:`` prefix) and the exit status, for a failure of a command."""
    if isinstance(exc, GroundBenchError):
        return str(exc), 2
    if isinstance(exc, Interrupted):
        return str(exc), 130
    if isinstance(exc, KeyboardInterrupt):
        return f"interrupted (Ctrl-C): {RERUN}", 130
    if isinstance(exc, Terminated):
        return f"terminated (SIGTERM): {RERUN}", 128 + signal.SIGTERM
    if isinstance(exc, OSError):
        return describe_os_error(exc), 2
    message = " ".join(str(exc).split())
    detail = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return f"internal error ({detail}); run with --debug (or {DEBUG_VARIABLE}=1) for the stack, and report it", 1


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated


@contextmanager
def sigterm_unwinds() -> Iterator[None]:
    """While the block runs, SIGTERM raises :class:`Terminated` (only possible in the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def safe_streams() -> None:
    """Characters the terminal's encoding lacks (e.g. "τ" under LANG=C) are escaped instead of crashing."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", None) == "strict":
            reconfigure(errors="backslashreplace")
