"""Ctrl-C that is never lost: a SIGINT is recorded first, then acted on where acting is safe.

Python's own handler raises ``KeyboardInterrupt`` wherever the main thread happens to be. Inside an
event loop that is the middle of some library's callback; in a weakref callback or a ``__del__`` the
exception is printed as "ignored" and the program simply runs on. While :func:`interruptible` is in
force, a SIGINT is counted, and then:

- inside a running asyncio loop, the loop's main task is cancelled, as ``asyncio.run`` itself does on
  the first Ctrl-C (the library unwinds, its cancelled logs are written); a second Ctrl-C raises;
- anywhere else, ``KeyboardInterrupt`` is raised as usual.

The caller asks :attr:`Interruption.requested` once the work returns or fails, so an interrupt that some
code caught or swallowed still ends the command as an interruption; a swallowed one is not printed.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any

_RUN_UNTIL_COMPLETE = asyncio.BaseEventLoop.run_until_complete.__code__


@dataclass
class Interruption:
    """How many SIGINTs arrived while :func:`interruptible` was in force."""

    count: int = 0

    @property
    def requested(self) -> bool:
        return self.count > 0

    def handle(self, signum: int, frame: FrameType | None) -> None:
        self.count += 1
        if self.count == 1 and cancel_running_loop(frame):
            return
        raise KeyboardInterrupt


_current: Interruption | None = None


def requested() -> bool:
    """Whether the command in force was interrupted (False outside :func:`interruptible`)."""
    return _current is not None and _current.requested


def _main_task(frame: FrameType | None) -> asyncio.Future[Any] | None:
    """The future ``run_until_complete`` drives on this thread's stack (the task ``asyncio.run`` would cancel)."""
    while frame is not None:
        if frame.f_code is _RUN_UNTIL_COMPLETE:
            future = frame.f_locals.get("future")
            return future if isinstance(future, asyncio.Future) else None
        frame = frame.f_back
    return None


def cancel_running_loop(frame: FrameType | None) -> bool:
    """Cancel the main task of the asyncio loop running on this thread, if there is one to cancel."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return False
    task = _main_task(frame)
    if task is None or task.done():
        return False
    task.cancel()
    loop.call_soon_threadsafe(lambda: None)  # wake the loop's selector, as asyncio.Runner does
    return True


def _quiet_when_recorded(previous: Callable[[Any], object]) -> Callable[[Any], object]:
    """An unraisable-exception hook that stays silent about a KeyboardInterrupt already recorded."""

    def hook(unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt) and requested():
            return
        previous(unraisable)

    return hook


@contextmanager
def interruptible() -> Iterator[Interruption]:
    """Record SIGINT for the block (main thread only: elsewhere Python delivers no signal anyway)."""
    global _current
    interruption = Interruption()
    if threading.current_thread() is not threading.main_thread():
        yield interruption
        return
    outer, previous_hook = _current, sys.unraisablehook
    previous = signal.signal(signal.SIGINT, interruption.handle)
    _current = interruption
    sys.unraisablehook = _quiet_when_recorded(previous_hook)
    try:
        yield interruption
    finally:
        signal.signal(signal.SIGINT, previous)
        sys.unraisablehook = previous_hook
        _current = outer
