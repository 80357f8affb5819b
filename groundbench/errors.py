"""The one error type of the project: every bad input names its file, its field and the expectation."""

from __future__ import annotations

from collections.abc import Sequence
from difflib import get_close_matches
from pathlib import Path


class GroundBenchError(Exception):
    """A source, artifact or parameter that does not meet its expectation.

    ``path`` is the offending file (relative to its root where known), ``field`` the key, variable
    or column inside it, and ``reason`` what was expected and what was found.
    """

    def __init__(self, path: str | Path, field: str, reason: str) -> None:
        self.path = str(path)
        self.field = field
        self.reason = reason
        super().__init__(f"{self.path}: {self.field}: {self.reason}")

    def __reduce__(self) -> tuple[type, tuple[str, str, str]]:
        # Workers raise it in another process; pickling must rebuild all three parts.
        return (GroundBenchError, (self.path, self.field, self.reason))


def unknown_name(
    where: str | Path, kind: str, given: str, valid: Sequence[str], also: str = "", close_to: Sequence[str] = ()
) -> GroundBenchError:
    """The error for a name that is not one of ``valid`` (a config, condition, answer format, ...), worded one
    way everywhere: the name given, the closest valid one when there is one (case aside: ``GUI`` -> ``gui``),
    then every valid name (``also`` adds to that list, e.g. a rule that makes more names; ``close_to``: more
    names the closest may be, such as the names that rule makes). Raised by the caller: ``raise unknown_name(...)``."""
    close = closest_name(given, [*valid, *close_to])
    hint = f"; did you mean {close!r}?" if close else ""
    names = ", ".join(valid) or "none"
    return GroundBenchError(where, kind, f"unknown {kind} {given!r}{hint} ({kind}s: {names}{also})")


def closest_name(given: str, valid: Sequence[str]) -> str | None:
    """The valid name ``given`` most likely misspells, compared case-insensitively, or None."""
    lowered = {name.lower(): name for name in reversed(valid)}  # the first of names equal but for case wins
    close = get_close_matches(str(given).lower(), list(lowered), n=1, cutoff=0.75)
    return lowered[close[0]] if close else None
