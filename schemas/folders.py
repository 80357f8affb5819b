"""The source folders (``converters/__init__.py`` lists them) and the record columns each one declares.

A folder's ``columns.py`` exports ``COLUMNS = FolderColumns(...)``: the row ``source`` values its rows may
carry and its ``extras`` fields (each a struct of the source's own per-row facts, with the descriptions the
card and the Croissant file print). ``schemas/features.py`` composes the one record schema from every listed
folder's columns, in listing order, so every config's shards share it: a folder's columns module is part of
every stage that writes or reads records (its ``spec.py`` is not).

Folders are named by string and loaded here by import name, never imported statically: the converters
import the schemas, so the schemas must not import them back.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass, field
from typing import Any

from groundbench.errors import GroundBenchError

LISTING = "groundbench.converters"  # its FOLDERS: the package of every source folder, in order
SPEC = "spec"  # converters/<name>/spec.py: SPEC, what the folder's sources are (groundbench.core.spec.Folder)
COLUMNS = "columns"  # converters/<name>/columns.py: COLUMNS, what its rows add to the record (FolderColumns)


@dataclass(frozen=True)
class Extras:
    """One field of the record's ``extras`` struct: a source's own facts of a row (null on other rows)."""

    name: str  # extras.<name>
    fields: dict[str, Any]  # its columns, as schemas/types.py features
    description: str  # what extras.<name> holds (the card's Data Fields table)
    docs: dict[str, str]  # each field's description (a field without one fails the card test)
    nested: dict[str, dict[str, str]] = field(default_factory=dict)  # a nested struct's fields: its name -> docs
    # Set beside the row's own source extras rather than instead of them, and when ("on re-asks"); "" = instead.
    alongside: str = ""


@dataclass(frozen=True)
class FolderColumns:
    """What ``converters/<name>/columns.py`` exports as ``COLUMNS``."""

    sources: tuple[str, ...]  # the row `source` values its rows may carry (schemas/rules.py checks them)
    extras: tuple[Extras, ...] = ()


def listed() -> dict[str, str]:
    """Folder name -> its package (``umd`` -> ``groundbench.converters.umd``), in listing order."""
    packages: tuple[str, ...] = importlib.import_module(LISTING).FOLDERS
    return {package.rpartition(".")[2]: package for package in packages}


def module_of(package: str, part: str) -> str:
    """The import name of a folder's ``spec`` or ``columns`` module."""
    return f"{package}.{part}"


@functools.cache
def folder_columns() -> tuple[FolderColumns, ...]:
    """Every listed folder's columns, in listing order."""
    found = []
    for name, package in listed().items():
        where = f"converters/{name}/columns.py"
        try:
            module = importlib.import_module(module_of(package, COLUMNS))
        except ImportError as exc:
            raise GroundBenchError(where, "file", f"every listed source folder needs one ({exc})") from exc
        columns = getattr(module, "COLUMNS", None)
        if not isinstance(columns, FolderColumns):
            raise GroundBenchError(where, "COLUMNS", "expected a groundbench.schemas.folders.FolderColumns")
        found.append(columns)
    return tuple(found)


def extras() -> tuple[Extras, ...]:
    return tuple(e for f in folder_columns() for e in f.extras)


def row_sources() -> tuple[str, ...]:
    """The row ``source`` values any folder's rows may carry, in listing order."""
    return tuple(dict.fromkeys(s for f in folder_columns() for s in f.sources))


def extras_description() -> str:
    """The card's line for the ``extras`` struct, naming its fields."""
    instead = ", ".join(e.name for e in extras() if not e.alongside)
    beside = "".join(f", plus {e.name} {e.alongside}" for e in extras() if e.alongside)
    return f"Source-specific facts; exactly one of {instead} is set{beside}."
