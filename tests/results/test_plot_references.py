"""Reference lines of a results figure that coincide (the majority and the blind bound, both 1.0, as on the
sample build's curated_umd) are each drawn on a part of the slot of their own and said to be equal, and the
key sits beside the panels, over no line: the figure read back artist by artist."""

from __future__ import annotations

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection
from matplotlib.transforms import Bbox

from groundbench.core.figures import render
from groundbench.results.plots import BASELINE_STYLE, FigureSpec, Panel, Point, Reference, draw


def _spec(majority: float, blind: float) -> FigureSpec:
    panel = Panel(
        "curated_umd (curated)",
        ["part_named", "image_only"],
        [Point("m", "part_named", 0.0, 0.0, 0.0, 5), Point("m", "image_only", 0.2, 0.0, 0.6, 5)],
        [
            Reference("baseline_majority", "part_named", majority),
            Reference("blind_bound", "part_named", blind),
            Reference("baseline_majority", "image_only", 0.4),
            Reference("blind_bound", "image_only", 0.8),
        ],
    )
    return FigureSpec("action_accuracy", "action_accuracy with 95% intervals", "action_accuracy", [panel])


def _lines(figure) -> list[tuple[str, float, float, float]]:  # type: ignore[no-untyped-def]
    """(colour, y, x start, x end) of every reference line drawn."""
    colours = {colour: key for key, (_, colour) in BASELINE_STYLE.items()}
    out = []
    for collection in figure.axes[0].collections:
        if not isinstance(collection, LineCollection):
            continue
        colour = "#{:02x}{:02x}{:02x}".format(*(round(255 * c) for c in collection.get_colors()[0][:3]))
        if colour not in colours:  # a point's whiskers
            continue
        for (x0, y0), (x1, _) in collection.get_segments():
            out.append((colours[colour], float(y0), float(x0), float(x1)))
    return sorted(out, key=lambda line: (line[2], line[0]))


def test_coinciding_reference_lines_are_both_visible_and_labelled() -> None:
    figure = draw(_spec(1.0, 1.0))
    lines = _lines(figure)
    at_one = [line for line in lines if line[1] == 1.0]
    assert [line[0] for line in at_one] == ["baseline_majority", "blind_bound"]
    (_, _, a0, a1), (_, _, b0, b1) = at_one
    assert a0 < a1 < b0 < b1 and b1 - b0 > 0.3 and a1 - a0 > 0.3  # side by side, neither hidden under the other
    notes = [text.get_text() for text in figure.axes[0].texts]
    assert notes == ["majority = blind bound 1.00"]
    # lines apart keep the whole slot each, and say nothing
    apart = [line for line in lines if line[1] in (0.4, 0.8)]
    assert len(apart) == 2 and all(round(x1 - x0, 6) == 0.84 for *_, x0, x1 in apart)


def test_the_key_covers_no_panel() -> None:
    figure = draw(_spec(1.0, 1.0))
    render("check", "check", figure)  # lays the figure out as `groundbench plot` saves it
    (legend,) = figure.legends
    renderer = FigureCanvasAgg(figure).get_renderer()
    key = legend.get_window_extent(renderer)
    for ax in figure.axes:
        assert not Bbox.intersection(key, ax.get_window_extent(renderer)), "the key lies over a panel"
    labels = [text.get_text() for text in legend.get_texts()]
    assert {"majority", "blind bound", "m"} <= set(labels)
