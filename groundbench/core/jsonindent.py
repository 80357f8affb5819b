"""Indented JSON written in pieces, byte for byte what ``json.dumps`` writes, at a fraction of its cost.

``json`` encodes in C only without ``indent``; with it, every value passes through a chain of nested Python
generators, one level per depth (a 21 MB report: 2.4 million generator steps). :func:`write_indented` walks the
value with one recursive function appending strings to a list instead, and hands the text to ``write`` about a
megabyte at a time, so a large report is never held whole as text. The text is
``json.dumps(value, indent=indent, sort_keys=True, ensure_ascii=False, allow_nan=False)`` exactly
(tests/scoring/test_score_same_bytes.py compares the two); anything outside plain JSON types (a dict with a key that is
not a string, an object only ``default`` could turn into JSON) is handed to ``json``'s own encoder at its depth.

``finite=True`` writes what ``groundbench.scoring.parse.finite_json`` would have made of the value first (a
NaN or infinity as null, any mapping as an object, a tuple as a list) without building that copy.
"""

from __future__ import annotations

import json
import math
from abc import abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from json.encoder import encode_basestring  # type: ignore[attr-defined]  # the C function json itself uses
from typing import Any

FLUSH_PIECES = 1 << 16  # strings gathered before they are joined and written (about a megabyte of report)
FLUSH_CHARS = 1 << 20  # the characters of encoded items gathered before they are joined and written


class EncodedList(Sequence[Any]):
    """A list whose items are kept as their JSON text (what :func:`dumps_indented` gives each at depth 0 with
    ``indent``), not as objects: :func:`write_indented` writes that text re-indented to its depth, so a long
    list (a report's every prediction) is never rebuilt as objects to be written."""

    indent: int = 1

    @abstractmethod
    def texts(self) -> Iterator[str]:
        """Each item's text, in order."""


def write_indented(value: Any, write: Callable[[str], object], indent: int = 1, finite: bool = False) -> None:
    """Write ``json.dumps(value, indent=indent, sort_keys=True, ensure_ascii=False, allow_nan=False)`` through
    ``write``, in pieces (``finite``: non-finite floats as null, mappings as objects, as ``finite_json``)."""
    _Writer(write, " " * indent, finite).top(value)


def dumps_indented(value: Any, indent: int = 1, finite: bool = False) -> str:
    """The whole text :func:`write_indented` writes."""
    pieces: list[str] = []
    write_indented(value, pieces.append, indent, finite)
    return "".join(pieces)


def dumps_flat_object(mapping: Any, indent: int = 1, finite: bool = False) -> str:
    """:func:`dumps_indented` of a small value of plain dicts, lists and scalars (a report's record of one
    prediction), written by one short recursive function; anything else in it (a tuple, a mapping, a key that
    is not a string, a non-finite float unless ``finite``) is written by the general walk."""
    text = _small(mapping, "\n", " " * indent, finite)
    return dumps_indented(mapping, indent, finite) if text is None else text


def _small(o: Any, newline: str, pad: str, finite: bool) -> str | None:
    """The text of ``o`` whose lines start with ``newline`` (its depth's indent), None to leave it to _Writer."""
    text = _scalar(o)
    if text is not None:
        return text
    kind = type(o)
    if kind is float:  # not finite
        return "null" if finite else None
    if kind is list:
        if not o:
            return "[]"
        inner = newline + pad
        texts = [_small(v, inner, pad, finite) for v in o]
        return None if None in texts else "[" + inner + ("," + inner).join(texts) + newline + "]"  # type: ignore[arg-type]
    if kind is dict:
        if not o:
            return "{}"
        if not all(type(key) is str for key in o):
            return None
        inner = newline + pad
        pieces = []
        for key in sorted(o):
            text = _small(o[key], inner, pad, finite)
            if text is None:
                return None
            pieces.append(encode_basestring(key) + ": " + text)
        return "{" + inner + ("," + inner).join(pieces) + newline + "}"
    return None


class _Writer:
    def __init__(self, write: Callable[[str], object], indent: str, finite: bool) -> None:
        self.write, self.indent, self.finite = write, indent, finite
        self.parts: list[str] = []
        self.fallback = json.JSONEncoder(indent=indent, sort_keys=True, ensure_ascii=False, allow_nan=False)
        self.float = _floatstr_finite if finite else _floatstr_strict

    def top(self, value: Any) -> None:
        self.value(value, 0)
        self.flush()

    def flush(self) -> None:
        if self.parts:
            self.write("".join(self.parts))
            self.parts = []

    def value(self, o: Any, level: int) -> None:
        """One value at depth ``level`` (its first line is already indented)."""
        parts = self.parts
        kind = type(o)
        if kind is str:
            parts.append(encode_basestring(o))
        elif o is None:
            parts.append("null")
        elif o is True:
            parts.append("true")
        elif o is False:
            parts.append("false")
        elif kind is float or (kind is not bool and isinstance(o, float)):
            parts.append(self.float(o))
        elif kind is int:
            parts.append(int.__repr__(o))
        elif kind is list or kind is tuple:
            self.array(o, level)
        elif kind is dict:
            self.object(o, level)
        elif isinstance(o, EncodedList):
            if o.indent == len(self.indent):
                self.encoded(o, level)
            else:
                self.array(o, level)  # each item read back and written at this indent
        elif isinstance(o, str):
            parts.append(encode_basestring(o))
        elif isinstance(o, int):
            parts.append(int.__repr__(o))
        elif isinstance(o, list | tuple):
            self.array(o, level)
        elif isinstance(o, dict) or (self.finite and isinstance(o, Mapping)):
            self.object(o, level)
        else:
            self.json_encoder(o, level)

    def array(self, items: Any, level: int) -> None:
        if not items:
            self.parts.append("[]")
            return
        inner = "\n" + self.indent * (level + 1)
        parts, scalar = self.parts, _scalar
        opening = "[" + inner
        for item in items:
            text = scalar(item)
            if text is not None:
                parts.append(opening + text)
            else:
                parts.append(opening)
                self.value(item, level + 1)
                parts = self.parts  # a flush inside starts a new list
            opening = "," + inner
            if len(parts) >= FLUSH_PIECES:
                self.flush()
                parts = self.parts
        parts.append("\n" + self.indent * level + "]")

    def encoded(self, items: EncodedList, level: int) -> None:
        """The items' own text, each line indented ``level + 1`` deeper (JSON strings hold no raw newline)."""
        inner = "\n" + self.indent * (level + 1)
        first = True
        held = 0  # characters gathered: one item's text can be a kilobyte, so the pieces alone are no measure
        for text in items.texts():
            piece = ("[" if first else ",") + inner + text.replace("\n", inner)
            self.parts.append(piece)
            first = False
            held += len(piece)
            if held >= FLUSH_CHARS or len(self.parts) >= FLUSH_PIECES:
                self.flush()
                held = 0
        self.parts.append("[]" if first else "\n" + self.indent * level + "]")

    def object(self, mapping: Mapping[Any, Any], level: int) -> None:
        if not mapping:
            self.parts.append("{}")
            return
        if not all(type(key) is str for key in mapping):
            self.json_encoder(dict(mapping), level)  # keys json converts (numbers, None, booleans) or refuses
            return
        inner = "\n" + self.indent * (level + 1)
        scalar = _scalar
        opening = "{" + inner
        for key, item in sorted(mapping.items(), key=_first):
            text = scalar(item)
            if text is not None:
                self.parts.append(opening + encode_basestring(key) + ": " + text)
            else:
                self.parts.append(opening + encode_basestring(key) + ": ")
                self.value(item, level + 1)
            opening = "," + inner
        self.parts.append("\n" + self.indent * level + "}")

    def json_encoder(self, o: Any, level: int) -> None:
        """What ``json``'s own encoder writes for ``o`` at this depth (it calls ``default``, which refuses)."""
        self.parts.extend(self.fallback_iter(o, level))

    def fallback_iter(self, o: Any, level: int) -> Any:
        encoder = self.fallback
        make = json.encoder._make_iterencode  # type: ignore[attr-defined]
        return make({}, encoder.default, encode_basestring, encoder.indent, self.float, ": ", ",", True, False, False)(
            o, level
        )


def _scalar(o: Any) -> str | None:
    """The text of a plain string, null, boolean, int or finite float; None for anything else (containers,
    non-finite floats, subclasses), which the callers write themselves."""
    kind = type(o)
    if kind is str:
        return encode_basestring(o)
    if o is None:
        return "null"
    if kind is bool:
        return "true" if o else "false"
    if kind is int:
        return int.__repr__(o)
    if kind is float and math.isfinite(o):
        return float.__repr__(o)
    return None


def _first(item: tuple[str, Any]) -> str:
    return item[0]


def _floatstr_strict(o: float) -> str:
    if math.isfinite(o):
        return float.__repr__(o)
    raise ValueError("Out of range float values are not JSON compliant: " + repr(o))


def _floatstr_finite(o: float) -> str:
    return float.__repr__(o) if math.isfinite(o) else "null"
