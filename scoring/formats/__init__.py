"""Declared answer formats: how a model's raw answer is read, and the frame its numbers are in.

A format is a syntax (``syntax``: each family's official reading, and the lenient recoveries beside it) plus
a coordinate frame (``registry``: pixels, a 0-1 or 0-1000 grid, or Qwen's ``smart_resize`` frame from
``resize``) mapped back to the row's own pixels (``read``). The official success rule never changes: a
format only decides what is handed to it. ``names()`` and ``listing()`` are what a listing command prints.
"""

from __future__ import annotations

from typing import Any

from groundbench.scoring.formats.registry import DEFAULT, FAMILIES, AnswerFormat, names, parse_format

__all__ = ["DEFAULT", "AnswerFormat", "listing", "names", "parse_format"]


def listing() -> list[dict[str, Any]]:
    """Every format: name, syntax, frame, parameters (with defaults), its documented "no target" answer (read as a
    refusal) and where its convention is documented."""
    return [
        {
            "name": f.name,
            "syntax": f.syntax,
            "frame": f.frame,
            "params": {p.name: p.default for p in f.params},
            "refusal": f.refusal or "none",
            "source": f.source,
        }
        for f in FAMILIES.values()
    ]
