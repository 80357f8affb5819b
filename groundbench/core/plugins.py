"""Code named by a "module:function" string (the registry's converters and sample writers), loaded when run.

A stage imports only the plug-ins it runs, so its process (and its dvc.yaml code deps, which follow the
plug-ins each stage declares: ``groundbench dvc-deps``) never includes another source's code."""

from __future__ import annotations

import importlib
from typing import Any

from groundbench.errors import GroundBenchError


def split_ref(ref: str) -> tuple[str, str]:
    """``"pkg.module:function"`` -> (module, function); a malformed reference is an error."""
    module, sep, function = ref.partition(":")
    if not sep or not module or not function.isidentifier():
        raise GroundBenchError("groundbench/core/registry.py", ref, "expected a plug-in reference 'module:function'")
    return module, function


def load(ref: str) -> Any:
    """The object ``ref`` names, imported now."""
    module, function = split_ref(ref)
    try:
        loaded = importlib.import_module(module)
    except ImportError as exc:
        raise GroundBenchError("groundbench/core/registry.py", ref, f"cannot import {module}: {exc}") from exc
    try:
        return getattr(loaded, function)
    except AttributeError:
        raise GroundBenchError("groundbench/core/registry.py", ref, f"{module} defines no {function}") from None
