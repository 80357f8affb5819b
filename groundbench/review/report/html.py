"""The gallery's HTML pages as plain strings (pure; every value escaped, every list in a fixed order).

A config's page is a shell: its filters (with counts), pager and the empty grid; ``gallery.js`` draws the
rows from the config's index and opens a row's view (``#<example_id>``) from its details file."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from html import escape

from groundbench.core.figures import Plot
from groundbench.review.report.collect import RowSummary

CSS = "assets/gallery.css"
SCRIPTS = ("assets/overlay.js", "assets/gallery.js")
FILTERS: tuple[tuple[str, str], ...] = (  # (facet, label); gallery.js reads the same facets off the index
    ("stratum", "stratum"),
    ("action", "target action"),
    ("class", "target part class"),
    ("quality", "target box quality"),
    ("tags", "exclusion tag"),
    ("status", "status"),
)
NO_TAG = "(none)"  # the tag filter's value for rows without exclusion tags
KEY = (
    '<p class="key"><span class="role-target">target</span><span class="role-original">original target '
    '(re-ask)</span><span class="role-other">other candidates</span> box line: solid = exact, dashed = '
    "approximate, dotted = from-mask; grey dotted = object box; numbers = order in <code>parts</code>; "
    "GUI thumbnails show the target only.</p>"
)


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def page(title: str, depth: int, body: str, scripts: Sequence[str] = (), notice: str = "") -> str:
    """A whole page; ``notice`` (a synthetic build's warning) opens every page of the gallery. ``scripts``:
    paths relative to the page, loaded in order at the end of the body."""
    # An empty inline icon: browsers would otherwise request /favicon.ico and log a 404.
    up = "../" * depth
    tail = "".join(f'<script src="{_e(src)}"></script>\n' for src in scripts)
    banner = f'<p class="banner" id="synthetic"><strong>{_e(notice)}</strong></p>\n' if notice else ""
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<link rel="icon" href="data:,">\n'
        f'<title>{_e(title)}</title>\n<link rel="stylesheet" href="{up}{CSS}">\n</head>\n<body>\n'
        f"{banner}{body}\n{tail}</body>\n</html>\n"
    )


def facet_values(summary: RowSummary, facet: str) -> tuple[str, ...]:
    """The values of one filter facet a row has (a row has every exclusion tag it carries, or ``NO_TAG``)."""
    f = summary.facets
    if facet == "tags":
        return f.tags or (NO_TAG,)
    if facet == "status":
        return ("excluded" if f.excluded else "included",)
    return ({"stratum": f.stratum, "action": f.action, "class": f.part_class, "quality": f.box_quality}[facet],)


def _plot_figure(plot: Plot, up: str) -> str:
    return (
        f'<figure><img src="{up}plots/{_e(plot.name)}.png" alt="{_e(plot.title)}">'
        f'<figcaption>{_e(plot.title)} (<a href="{up}plots/{_e(plot.name)}.svg">SVG</a>)</figcaption></figure>'
    )


def index_page(
    configs: Sequence[tuple[str, str, str, Sequence[RowSummary]]], overview: Sequence[Plot], notice: str = ""
) -> str:
    """configs: (name, stratum, source, rows)."""
    lines = [
        "<h1>GroundBench audit gallery</h1>",
        "<p>Every row of every built config, drawn over its image from the image store (<code>../images/</code>), "
        "with filters and a view per row (<code>&lt;config&gt;/index.html#&lt;example_id&gt;</code>). "
        "Strata are never pooled: each config belongs to one stratum.</p>",
        KEY,
        '<table id="configs"><tr><th>config</th><th>stratum</th><th>source</th><th class="num">rows</th>'
        '<th class="num">excluded</th><th class="num">re-asks</th></tr>',
    ]
    for name, stratum, source, rows in configs:
        excluded = sum(r.facets.excluded for r in rows)
        reasks = sum(r.facets.reask for r in rows)
        lines.append(
            f'<tr><td><a href="{_e(name)}/index.html">{_e(name)}</a></td><td>{_e(stratum)}</td><td>{_e(source)}</td>'
            f'<td class="num">{len(rows)}</td><td class="num">{excluded}</td><td class="num">{reasks}</td></tr>'
        )
    lines.append("</table>")
    # Collapsed, as on the config pages: the plots are a click away and push nothing below the fold.
    lines.append('<details class="plots"><summary>Distributions</summary>')
    lines.extend(_plot_figure(plot, "") for plot in overview)
    lines.append("</details>")
    return page("GroundBench audit gallery", 0, "\n".join(lines), notice=notice)


def _options(facet: str, rows: Sequence[RowSummary]) -> str:
    counts = Counter(value for row in rows for value in facet_values(row, facet))
    options = ['<option value="">all</option>']
    options.extend(f'<option value="{_e(v)}">{_e(v)} ({counts[v]})</option>' for v in sorted(counts))
    return "".join(options)


def config_page(name: str, stratum: str, rows: Sequence[RowSummary], plots: Sequence[Plot], notice: str = "") -> str:
    filters = "".join(
        f'<label>{_e(label)} <select id="filter-{facet}" data-facet="{facet}">{_options(facet, rows)}</select></label>'
        for facet, label in FILTERS
    )
    lines = [
        '<section id="gallery">',
        f'<p><a href="../index.html">all configs</a></p><h1>{_e(name)} <small>(stratum {_e(stratum)})</small></h1>',
        KEY,
        '<details class="plots"><summary>Distributions</summary>',
        *(_plot_figure(plot, "../") for plot in plots),
        "</details>",
        '<noscript><p class="banner">This gallery draws its rows with JavaScript; turn it on to see them.</p>'
        "</noscript>",
        f'<div class="filters">{filters}<label>id contains <input id="search" type="search"></label>'
        f'<button id="reset" type="button">reset</button> '
        f'<strong><span id="shown">{len(rows)}</span> of <span id="total">{len(rows)}</span> rows shown</strong> '
        '<span class="pager"><button id="page-prev" type="button">previous page</button> '
        'page <span id="page">1</span> of <span id="pages">1</span> '
        '<button id="page-next" type="button">next page</button></span></div>',
        '<div class="grid" id="grid"></div>',
        "</section>",
        '<section id="detail" hidden></section>',
    ]
    scripts = [f"../{src}" for src in SCRIPTS] + ["rows.js"]
    return page(f"{name}: GroundBench audit gallery", 1, "\n".join(lines), scripts=scripts, notice=notice)
