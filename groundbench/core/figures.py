"""Figures with deterministic bytes, PNG and SVG (the gallery's plots and ``groundbench plot``'s): matplotlib's
Agg canvas with no pyplot state, fixed settings (SVG ids from a fixed salt, text kept as text, DejaVu Sans
from inside the pinned matplotlib wheel) and no dates or software names in the files, so the same figure
gives the same bytes on every machine."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

import matplotlib
from matplotlib.figure import Figure

# Fixed settings: SVG ids from a fixed salt, text kept as text (no embedded glyph paths), no dates.
RC: Any = {
    "svg.hashsalt": "groundbench",
    "svg.fonttype": "none",
    "font.family": "DejaVu Sans",  # shipped inside matplotlib, found before any system font
    "font.size": 9,
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "path.simplify": False,
}
PNG_METADATA: dict[str, str | None] = {"Software": None}
SVG_METADATA: dict[str, str | None] = {"Date": None, "Creator": None}


@dataclass(frozen=True)
class Plot:
    name: str  # file stem under plots/
    title: str
    png: bytes
    svg: bytes


def render(name: str, title: str, figure: Figure) -> Plot:
    with matplotlib.rc_context(RC):
        # The constrained layout once, for both files: with the engine left on, each savefig would lay the
        # figure out again in a draw of its own before drawing it (two layouts and four draws per plot).
        figure.draw_without_rendering()
        figure.set_layout_engine("none")
        png, svg = io.BytesIO(), io.BytesIO()
        figure.savefig(png, format="png", metadata=PNG_METADATA)
        figure.savefig(svg, format="svg", metadata=SVG_METADATA)
    return Plot(name, title, png.getvalue(), svg.getvalue())


def new_figure(width: float, height: float) -> Figure:
    with matplotlib.rc_context(RC):
        return Figure(figsize=(width, height), layout="constrained")
