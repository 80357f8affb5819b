"""GroundBench: a versioned dataset package for locating VLM grounding failures."""

from __future__ import annotations


def __getattr__(name: str) -> str:
    """``__version__``: pyproject.toml's version, read from the installed package's metadata when first asked
    for (every stage process imports this package; few of them need the version)."""
    if name == "__version__":
        from importlib.metadata import version

        return version("groundbench")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
