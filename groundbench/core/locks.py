"""One run per output at a time: a run takes a lock on what it writes before it clears or writes anything.

A stage's locks are ``data/.locks/<output>.lock``; ``groundbench eval`` holds its run folder's ``.lock``.
They are ``filelock`` OS locks, released when the process ends, however it ends. A second run of the
same stage or into the same run folder refuses at once with one line instead of writing the same files
as the first (wait for the first to finish, then run again).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from groundbench.errors import GroundBenchError

LOCKS = Path("data/.locks")


@contextmanager
def exclusive(path: Path, shown: Path, reason: str) -> Iterator[None]:
    """Hold the OS lock ``path`` for the block, or refuse at once: ``shown: lock: reason``."""
    try:
        lock = FileLock(str(path), timeout=0)
        lock.acquire()
    except Timeout:
        raise GroundBenchError(shown, "lock", reason) from None
    try:
        yield
    finally:
        lock.release()


@contextmanager
def output_locks(root: Path, outputs: Iterable[str]) -> Iterator[None]:
    """Hold ``data/.locks/<output>.lock`` for each output (sorted: two runs never wait on each other in a cycle)."""
    folder = root / LOCKS
    folder.mkdir(parents=True, exist_ok=True)
    with ExitStack() as held:
        for name in sorted(set(outputs)):
            path = folder / f"{name}.lock"
            reason = f"another run is writing {name} in this project; wait for it to finish, then run again"
            held.enter_context(exclusive(path, LOCKS / path.name, reason))
        yield
