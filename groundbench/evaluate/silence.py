"""A model server that stopped answering ends the run, not each row in turn.

Each row's request is retried by inspect (``--max-retries``), every try bounded by ``--attempt-timeout``; a
server that hangs or cannot be reached would otherwise hold every row for all of its tries, one batch of
``--max-connections`` rows after another (hours over a config). So when a row's request fails because no
reply came (every try timed out) or the server could not be reached, and no other row was answered while
it was being asked, the server is taken to have stopped answering: the rows not yet asked are not sent
(they stay unanswered, for the rerun) and the command names the cause, how long it waited and the flag
that bounds the wait. A server that answers slowly or fails some rows with an HTTP error is not this: its
rows are asked as before.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

# One try of a request waits this long for the reply (--attempt-timeout): a slow model answers well within it
# (a grounding answer is a few dozen tokens; two minutes of prefill and queueing are already a sick server).
ATTEMPT_TIMEOUT = 120
# A request whose tries time out is tried this many times at most, whatever --max-retries allows: a hung
# server ends a run in minutes. inspect stops retrying once its `timeout` (the whole request's bound) has
# passed at the end of a try; half a try more than one try's worth lets the second try start and stops after it.
TRIES_WITHOUT_REPLY = 2


def request_timeout(attempt_timeout: int | None) -> int | None:
    """inspect's ``timeout`` for a request whose tries wait ``attempt_timeout`` each (whole seconds)."""
    return None if attempt_timeout is None else math.ceil((TRIES_WITHOUT_REPLY - 0.5) * attempt_timeout)


# Exceptions (by class name, anywhere in the chain) meaning no reply came: inspect's per-try timeout, the
# openai SDK's and httpx's connection failures. By name: the provider's client package is optional.
NO_REPLY = ("AttemptTimeoutError", "APITimeoutError", "TimeoutException")
UNREACHABLE = ("APIConnectionError", "ConnectError", "ConnectionRefusedError", "ConnectionResetError")


class NotAsked(RuntimeError):
    """A row not sent because the server had stopped answering (recorded by inspect as the row's error)."""


@dataclass(frozen=True)
class Silence:
    unreachable: bool  # the server could not be reached (else: it took every try without replying)
    waited: float  # seconds the row that showed it was waited for, over all its tries
    cause: str  # the last exception of that row, on one line


@dataclass
class Watch:
    """One command's view of the server: when a row was last answered, and whether it stopped answering."""

    last_answer: float = -math.inf
    silence: Silence | None = None
    not_asked: int = 0

    def answered(self) -> None:
        self.last_answer = time.monotonic()

    def failed(self, exc: BaseException, started: float) -> None:
        """A row's request failed after its tries: the server stopped answering, if no reply is the cause and no
        row was answered meanwhile."""
        found = without_reply(exc)
        if found is None or self.last_answer >= started or self.silence is not None:
            return
        kind, last = found
        cause = " ".join(f"{type(last).__name__}: {last}".split())
        self.silence = Silence(kind == "unreachable", time.monotonic() - started, cause[:200])

    def refuse(self) -> None:
        """Refuse to send a row once the server stopped answering."""
        if self.silence is not None:
            self.not_asked += 1
            raise NotAsked("not asked: the model server had stopped answering (see the command's error line)")


_WATCHES: dict[str, Watch] = {}


def watch(answers_folder: str) -> Watch:
    return _WATCHES.setdefault(answers_folder, Watch())


def forget(answers_folder: str) -> Watch | None:
    """The watch of a run folder's last command, forgotten (the next command starts afresh)."""
    return _WATCHES.pop(answers_folder, None)


def no_reply(exc: BaseException) -> str | None:
    """``"timeout"`` or ``"unreachable"`` when an exception (a tenacity ``RetryError``: its last try) means no
    reply came from the server; None for anything else (an HTTP error is a reply)."""
    found = without_reply(exc)
    return None if found is None else found[0]


def without_reply(exc: BaseException) -> tuple[str, BaseException] | None:
    """:func:`no_reply`'s kind, and the exception in the chain that says so (what the error line names)."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        current = todo.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        names = {cls.__name__ for cls in type(current).__mro__}
        if names & set(NO_REPLY):  # first: the openai SDK's APITimeoutError is an APIConnectionError
            return "timeout", current
        if names & set(UNREACHABLE):
            return "unreachable", current
        last = getattr(current, "last_attempt", None)  # tenacity's RetryError: the exception of its last try
        if last is not None and hasattr(last, "exception"):
            todo.append(last.exception())
        todo += [current.__cause__, current.__context__]
    return None


def stopped_answering(silence: Silence, attempt_timeout: int | None, max_retries: int, not_asked: int) -> str:
    """The cause of the unanswered rows, with the way out, as one clause of the command's error line."""
    waited = f"{silence.waited:.0f} s"
    if silence.unreachable:
        what = (
            f"the model server could not be reached ({silence.cause}; tried for {waited}, with --max-retries "
            f"{max_retries})"
        )
        way = "start the server or check --model-base-url / the provider's *_BASE_URL"
    else:
        per_try = "no --attempt-timeout" if attempt_timeout is None else f"--attempt-timeout {attempt_timeout} s"
        what = f"the model server stopped answering (a request got no reply in {waited}: each try waited {per_try})"
        way = "check the server (or raise --attempt-timeout for a model that needs longer per answer)"
    skipped = f"; {not_asked} rows were not sent after it" if not_asked else ""
    return f"{what}{skipped}: {way}"
