"""One run per output at a time: a stage takes a lock on what it writes before it clears or writes anything.

The locks are ``data/.locks/<output>.lock`` (``filelock``, an OS lock: released when the process
ends, however it ends). A second run of the same stage refuses at once with one line instead of
writing the same temporaries as the first (wait for the first to finish, then run again).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from groundbench.errors import GroundBenchError

LOCKS = Path("data/.locks")


@contextmanager
def output_locks(root: Path, outputs: Iterable[str]) -> Iterator[None]:
    """Hold ``data/.locks/<output>.lock`` for each output (sorted: two runs never wait on each other in a cycle)."""
    folder = root / LOCKS
    folder.mkdir(parents=True, exist_ok=True)
    with ExitStack() as held:
        for name in sorted(set(outputs)):
            path = folder / f"{name}.lock"
            try:
                held.enter_context(FileLock(str(path), timeout=0))
            except Timeout:
                raise GroundBenchError(
                    LOCKS / path.name,
                    "lock",
                    f"another run is writing {name} in this project; wait for it to finish, then run again",
                ) from None
        yield
