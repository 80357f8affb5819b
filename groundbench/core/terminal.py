"""A terminal or a log: progress bars only on a terminal, result tables as wide as the reader asks.

A progress bar redraws itself with carriage returns; in a log (``make build``, CI, ``2> file``) every redraw
is kept, so bars are drawn only when stderr is a terminal: ours ask tqdm for that (``disable=None``), the
libraries' are turned off by :func:`quiet_progress`. Result tables go to standard output at ``$COLUMNS``
columns when it is set, else the terminal's width, else (piped, ``COLUMNS`` unset) :data:`PIPED_WIDTH`:
rich's 80 would wrap the score table's columns into unreadable cells.
"""

from __future__ import annotations

import os
import sys
from typing import IO

from rich.console import Console, ConsoleDimensions

PIPED_WIDTH = 160
# Read by each library when it is imported: huggingface_hub, datasets, and tqdm for any bar whose
# code does not choose `disable` itself.
PROGRESS_ENV = ("HF_HUB_DISABLE_PROGRESS_BARS", "HF_DATASETS_DISABLE_PROGRESS_BARS", "TQDM_DISABLE")


def is_terminal(stream: IO[str] | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError, OSError):  # closed, or a stand-in without a file
        return False


def interactive() -> bool:
    """Is stderr, where progress bars draw, a terminal?"""
    return is_terminal(sys.stderr)


def quiet_progress() -> None:
    """Outside a terminal, turn the libraries' progress bars off: the variables for those imported later,
    their own disable functions for ``datasets`` and ``huggingface_hub`` when already imported."""
    if interactive():
        return
    for name in PROGRESS_ENV:
        os.environ.setdefault(name, "1")
    if "datasets" in sys.modules:
        import datasets

        datasets.disable_progress_bars()
    if "huggingface_hub" in sys.modules:
        from huggingface_hub.utils import disable_progress_bars

        disable_progress_bars()


def result_width(stream: IO[str] | None) -> int:
    """``$COLUMNS`` when set, else the terminal's width, else :data:`PIPED_WIDTH`."""
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if stream is not None and is_terminal(stream):
        try:
            return os.get_terminal_size(stream.fileno()).columns or PIPED_WIDTH
        except (AttributeError, ValueError, OSError):
            pass
    return PIPED_WIDTH


class ResultConsole(Console):
    """Standard output for result tables; the width is decided at each print, so ``$COLUMNS`` set after
    start-up (or a redirected ``sys.stdout``) counts, which rich's own Console fixes when it is made."""

    @property
    def size(self) -> ConsoleDimensions:
        return ConsoleDimensions(result_width(self.file), super().size.height)

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        Console.size.fset(self, new_size)  # type: ignore[attr-defined]
