"""The anonymous temporary files ``score`` keeps its bulk in (the report's records, the scored items), and the one
line a failure to write them gives: they live in ``TMPDIR``, which no command option names, so the error does."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

from groundbench.errors import GroundBenchError


def scratch_error(exc: OSError) -> GroundBenchError:
    """An OS error writing a temporary file (a full disk, most often) as one error naming the folder and the way
    out (``raise scratch_error(exc) from exc``)."""
    reason = os.strerror(exc.errno) if exc.errno else str(exc)
    return GroundBenchError(
        tempfile.gettempdir(),
        "TMPDIR",
        f"expected room for score's temporary files, got: {reason}; free space there or point TMPDIR at a folder "
        "with room, then run the same command again",
    )


@contextmanager
def writing() -> Iterator[None]:
    """The block's OS errors as :func:`scratch_error`'s."""
    try:
        yield
    except OSError as exc:
        raise scratch_error(exc) from exc


def scratch_file() -> IO[bytes]:
    """A file the operating system deletes when it is closed (already unlinked: nothing is left on disk)."""
    with writing():
        return tempfile.TemporaryFile("w+b")


def read_at(file: IO[bytes], offset: int, size: int) -> bytes:
    """Up to ``size`` bytes of ``file`` from ``offset``, what was written to it so far included."""
    with writing():
        file.flush()
    return os.pread(file.fileno(), size, offset)
