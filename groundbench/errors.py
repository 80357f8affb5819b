"""The one error type of the project: every bad input names its file, its field and the expectation."""

from __future__ import annotations

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
