"""Distribution plots with matplotlib (Agg, no pyplot state), each as PNG and SVG with deterministic bytes.

Strata are never pooled: the action plot has one panel per stratum and one bar per config in it.
Geometry is relative to the image (target box centre / image size, box width / image width, ...),
so configs with different image sizes share axes. GUI suites are configs of stratum ``suite`` and get
the same per-config plots.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import matplotlib
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, MaxNLocator, NullFormatter, NullLocator

from groundbench.core.figures import RC, Plot, new_figure, render
from groundbench.review.report.collect import RowSummary
from groundbench.schemas.vocab import ACTIONS, BOX_QUALITIES, EXCLUSION_TAGS, NO_ACTION, STRATA

QUALITY_COLORS = {"exact": "#1b9e77", "approximate": "#d95f02", "from-mask": "#7570b3"}
LOG_BINS = np.logspace(-4, 0, 25)


@dataclass(frozen=True)
class ConfigRows:
    name: str
    stratum: str
    rows: tuple[RowSummary, ...]


def _stratum_order(strata: Sequence[str]) -> list[str]:
    known = [s for s in STRATA if s in strata]
    return known + sorted(set(strata) - set(known))


def constant_actions(configs: Sequence[ConfigRows]) -> dict[str, tuple[str, int]]:
    """stratum -> (its one target action, rows) for each stratum whose rows all share one action (the GUI
    suites: every action is ``none``): a panel would show one bar, so it gets a line under the figure."""
    out = {}
    for stratum in _stratum_order([c.stratum for c in configs]):
        actions = Counter(r.facets.action for c in configs if c.stratum == stratum for r in c.rows)
        if len(actions) == 1:
            ((action, rows),) = actions.items()
            out[stratum] = (action, rows)
    return out


def actions_by_stratum(configs: Sequence[ConfigRows]) -> Plot:
    """Target actions per stratum (:func:`actions_figure`), as PNG and SVG."""
    with matplotlib.rc_context(RC):
        figure = actions_figure(configs)
        return render("actions_by_stratum", "Target action per stratum (configs side by side)", figure)


def actions_figure(configs: Sequence[ConfigRows]) -> Figure:
    """Target actions: one panel per stratum whose rows have more than one action, one bar group per config;
    excluded rows hatched on top. A stratum of one action is said in a line under the panels."""
    with matplotlib.rc_context(RC):
        constant = constant_actions(configs)
        notes = [f"stratum {s}: every row's target action is {a} ({n} rows)" for s, (a, n) in constant.items()]
        strata = [s for s in _stratum_order([c.stratum for c in configs]) if s not in constant]
        if not strata:  # nothing varies (or no rows): the lines alone
            figure = new_figure(8, 0.4 * max(1, len(notes)) + 0.6)
            ax = figure.subplots()
            ax.axis("off")
            ax.text(0.5, 0.5, "\n".join(notes) or "(no rows)", ha="center", va="center")
            return figure
        present = {r.facets.action for c in configs if c.stratum in strata for r in c.rows}
        actions = [a for a in (*ACTIONS, NO_ACTION) if a in present] + sorted(present - {*ACTIONS, NO_ACTION})
        figure = new_figure(8, 2.4 * len(strata) + 0.6 + 0.2 * len(notes))
        axes = figure.subplots(len(strata), 1, squeeze=False)[:, 0]
        if notes:
            figure.supxlabel("\n".join(notes))
        x = np.arange(len(actions))
        for ax, stratum in zip(axes, strata, strict=True):
            members = [c for c in configs if c.stratum == stratum]
            width = 0.8 / max(1, len(members))
            for index, config in enumerate(members):
                kept = Counter(r.facets.action for r in config.rows if not r.facets.excluded)
                dropped = Counter(r.facets.action for r in config.rows if r.facets.excluded)
                offset = x - 0.4 + width * (index + 0.5)
                included = [kept[a] for a in actions]
                bars = ax.bar(offset, included, width, label=f"{config.name} (n={len(config.rows)})")
                ax.bar(
                    offset,
                    [dropped[a] for a in actions],
                    width,
                    bottom=included,
                    color=bars.patches[0].get_facecolor() if bars.patches else None,
                    alpha=0.4,
                    hatch="//",
                )
            ax.set_title(f"stratum {stratum}: target action per row (hatched = excluded rows)")
            ax.set_xticks(x, actions, rotation=30, ha="right")
            ax.set_ylabel("rows")
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_ylim(bottom=0, top=max(1.0, ax.get_ylim()[1]))
            if members:
                ax.legend(fontsize=8)
        return figure


def target_centres(config: ConfigRows) -> Plot:
    """Where targets sit: 2-D histogram of the target box centre relative to the image."""
    with matplotlib.rc_context(RC):
        figure = new_figure(4.6, 4.0)
        ax = figure.subplots()
        centres = np.array([r.centre for r in config.rows if r.centre is not None], dtype=float).reshape(-1, 2)
        counts, _, _ = np.histogram2d(centres[:, 1], centres[:, 0], bins=16, range=[[0, 1], [0, 1]])
        image = ax.imshow(counts, extent=(0, 1, 1, 0), cmap="viridis", interpolation="nearest")
        figure.colorbar(image, ax=ax, label="rows")
        ax.set_xlabel("x / image width")
        ax.set_ylabel("y / image height (down)")
        ax.set_title(f"{config.name}: target centres (n={len(centres)})")
        return render(f"{config.name}/centres", f"{config.name}: target-centre heatmap", figure)


def target_sizes(config: ConfigRows) -> Plot:
    """Target box width, height and area relative to the image, on log axes (GUI targets are tiny)."""
    with matplotlib.rc_context(RC):
        figure = new_figure(9, 2.8)
        axes = figure.subplots(1, 3)
        sizes = np.array([r.size for r in config.rows if r.size is not None], dtype=float).reshape(-1, 2)
        series = (
            ("width / image width", sizes[:, 0]),
            ("height / image height", sizes[:, 1]),
            ("area / image area", sizes[:, 0] * sizes[:, 1]),
        )
        for ax, (label, values) in zip(axes, series, strict=True):
            ax.hist(np.clip(values, LOG_BINS[0], 1.0), bins=LOG_BINS, color="#377eb8")
            ax.set_xscale("log")
            # Plain decimal labels at the decades: mathtext labels cost seconds per figure.
            ax.xaxis.set_major_locator(FixedLocator([1e-4, 1e-3, 1e-2, 1e-1, 1.0]))
            ax.set_xticks([1e-4, 1e-3, 1e-2, 1e-1, 1.0], ["0.0001", "0.001", "0.01", "0.1", "1"])
            ax.xaxis.set_minor_locator(NullLocator())
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_xlabel(label)
            ax.set_ylabel("rows")
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        figure.suptitle(f"{config.name} ({config.stratum}): target box size (n={len(sizes)})")
        return render(f"{config.name}/sizes", f"{config.name}: target area, width and height", figure)


def box_qualities(configs: Sequence[ConfigRows]) -> Plot:
    """Box quality per config: of the targets, and of every candidate part."""
    with matplotlib.rc_context(RC):
        names = [c.name for c in configs] or ["(no configs)"]
        figure = new_figure(9, 0.5 * len(names) + 1.6)
        axes = figure.subplots(1, 2, sharey=True)
        present = {q for c in configs for r in c.rows for q in (r.facets.box_quality, *r.part_qualities)}
        qualities = [q for q in BOX_QUALITIES if q in present] + sorted(present - set(BOX_QUALITIES))
        y = np.arange(len(names))
        for ax, title, per_row in (
            (axes[0], "target parts", lambda r: [r.facets.box_quality]),
            (axes[1], "all candidate parts", lambda r: list(r.part_qualities)),
        ):
            left = np.zeros(len(names))
            for quality in qualities:
                counts = np.array([sum(per_row(r).count(quality) for r in c.rows) for c in configs] or [0], dtype=float)
                ax.barh(y, counts, left=left, label=quality, color=QUALITY_COLORS.get(quality, "#999999"))
                left += counts
            ax.set_title(f"box quality: {title}")
            ax.set_xlabel("count")
        axes[0].set_yticks(y, names)
        axes[0].invert_yaxis()
        if qualities:
            axes[1].legend(fontsize=8, loc="lower right")
        return render("box_quality", "Box quality per config", figure)


def exclusions(configs: Sequence[ConfigRows]) -> Plot:
    """Rows per exclusion tag and config (a row may carry several tags) and excluded rows in total,
    as an annotated table-like heatmap: one line per config, so many configs stay readable."""
    with matplotlib.rc_context(RC):
        names = [f"{c.name} (n={len(c.rows)})" for c in configs] or ["(no configs)"]
        labels = [*EXCLUSION_TAGS, "excluded rows"]
        counts = np.zeros((len(names), len(labels)), dtype=int)
        for i, config in enumerate(configs):
            tags = Counter(t for r in config.rows for t in r.facets.tags)
            counts[i] = [tags[t] for t in EXCLUSION_TAGS] + [sum(r.facets.excluded for r in config.rows)]
        figure = new_figure(8, 0.45 * len(names) + 1.8)
        ax = figure.subplots()
        ax.imshow(counts > 0, cmap="Reds", vmin=0, vmax=2.5, aspect="auto")
        for (i, j), value in np.ndenumerate(counts):
            ax.text(j, i, str(value), ha="center", va="center", color="black" if value == 0 else "#7f0000")
        ax.set_xticks(np.arange(len(labels)), labels, rotation=25, ha="right")
        ax.set_yticks(np.arange(len(names)), names)
        ax.set_title("rows per exclusion tag (a row may carry several)")
        return render("exclusions", "Exclusion tags per config", figure)


def all_plots(configs: Sequence[ConfigRows]) -> tuple[list[Plot], dict[str, list[Plot]]]:
    """(overview plots, per-config plots)."""
    overview = [actions_by_stratum(configs), box_qualities(configs), exclusions(configs)]
    per_config = {c.name: [target_centres(c), target_sizes(c)] for c in configs}
    return overview, per_config
