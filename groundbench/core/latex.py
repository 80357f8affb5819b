"""Text set in a LaTeX table cell: LaTeX's special characters escaped, and the few symbols GroundBench's tables
print (a dash for an empty cell, ≥, τ, the · between two counts) written as LaTeX draws them."""

from __future__ import annotations

LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "—": "---",
    "≥": r"$\geq$",
    "τ": r"$\tau$",
    "·": r"$\cdot$",
}


def tex(text: str) -> str:
    return "".join(LATEX_SPECIAL.get(ch, ch) for ch in text)
