"""JSON text that can always be written as UTF-8.

A model's reply may hold a lone surrogate (``"\\ud800"`` in otherwise valid JSON, as broken tokenizers emit):
Python keeps it in a ``str``, but it has no UTF-8 form, so text dumped with ``ensure_ascii=False`` cannot be
written. Such a value is dumped with ``\\u`` escapes instead, which JSON reads back to the same text; any other
value keeps its characters as they are (same answers, same bytes as before).
"""

from __future__ import annotations

import json
from typing import Any


def dumps_utf8(value: Any, **options: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, **options)``, escaped (``ensure_ascii=True``) when that text has no
    UTF-8 form."""
    text = json.dumps(value, ensure_ascii=False, **options)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: escape it, losslessly
        return json.dumps(value, ensure_ascii=True, **options)
    return text
