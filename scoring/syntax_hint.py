"""One hint line when most of a model's answers are malformed in its declared format but parse in another
declared one (never applied: the user decides, as for ``FRAME?`` in ``scoring/formats/warning.py``).

For each model whose malformed answers (with a raw response) outnumber half of its scored lines, the first
:data:`~groundbench.scoring.predictions.SAMPLE` of them are read again, strictly (the family's own syntax, no
lenient recovery), in every other format of ``scoring/formats/registry.py``; the formats that read at least half
of that sample, most first, are named. A bounded sample keeps the cost flat whatever the file's size. Families
sharing one syntax (``qwen2.5-vl`` and ``qwen3-vl``; ``pixels``, ``norm1`` and ``norm1000``) read alike: their
frames tell them apart, which the syntax cannot, so all are named.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from groundbench.scoring.formats import AnswerFormat, names, parse_format
from groundbench.scoring.parse import MALFORMED
from groundbench.scoring.predictions import BadLine, ReadLine, answer_of

NAMED = 4  # formats named in full; the rest are counted


def _reads(read: ReadLine, fmt: AnswerFormat) -> bool:
    try:
        answer = answer_of(read.line, read.key.condition, read.row, True, fmt)
    except BadLine:
        return False
    return answer.status != MALFORMED


def _readers(sample: Sequence[ReadLine], declared: AnswerFormat) -> tuple[list[str], int]:
    """(the other formats reading the most of ``sample``, how many they read), or ([], 0) below half of it."""
    counts: Counter[str] = Counter()
    for name in names():
        if name != declared.name:
            fmt = parse_format(name)
            counts[name] = sum(_reads(read, fmt) for read in sample)
    best = max(counts.values(), default=0)
    if 2 * best < len(sample) or best == 0:
        return [], 0
    return [name for name in names() if counts.get(name) == best], best


def syntax_hint(
    scored: Mapping[str, int],
    bad_lines: Mapping[str, int],
    malformed: Mapping[str, Sequence[ReadLine]],
    formats: Mapping[str, AnswerFormat],
) -> str | None:
    """The hint line (the first model it applies to, and how many more), or None. ``scored``: each model's scored
    lines; ``bad_lines``: how many of them are malformed; ``malformed``: the first of those lines."""
    flagged = []
    for model, sample in sorted(malformed.items()):
        bad = bad_lines.get(model, 0)
        if 2 * bad <= scored.get(model, 0) or model not in formats:
            continue
        readers, read = _readers(sample, formats[model])
        if readers:
            flagged.append((model, bad, readers, read, len(sample)))
    if not flagged:
        return None
    model, bad, readers, read, checked = flagged[0]
    shown = ", ".join(readers[:NAMED]) + (f" and {len(readers) - NAMED} more" if len(readers) > NAMED else "")
    more = f" ({len(flagged) - 1} more models look the same)" if len(flagged) > 1 else ""
    return (
        f"SYNTAX? {model}: {bad} of {scored[model]} answers are malformed read as {formats[model].spec}, and {read} "
        f"of the first {checked} of them parse as {shown}: if the model answers in that syntax, score with "
        f"--answer-format NAME (the one whose frame the model answers in; `groundbench profiles` lists them){more}"
    )
