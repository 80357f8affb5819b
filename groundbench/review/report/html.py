"""The gallery's HTML pages as plain strings (pure; every value escaped, every list in a fixed order)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from html import escape
from typing import Any

from groundbench.loaders.prompts import build_prompt
from groundbench.review.preview import ORIGINAL, OTHER, TARGET, role_of
from groundbench.review.report.collect import RowSummary, flat_fields
from groundbench.review.report.plots import Plot
from groundbench.schemas.request_conditions import conditions_of

CSS = "assets/gallery.css"
JS = "assets/gallery.js"
FILTERS: tuple[tuple[str, str], ...] = (  # (facet attribute, label)
    ("stratum", "stratum"),
    ("action", "target action"),
    ("class", "target part class"),
    ("quality", "target box quality"),
    ("tags", "exclusion tag"),
    ("status", "status"),
)
KEY = (
    '<p class="key"><span class="role-target">target</span><span class="role-original">original target '
    '(re-ask)</span><span class="role-other">other candidates</span> box line: solid = exact, dashed = '
    "approximate, dotted = from-mask; grey dotted = object box; numbers = order in <code>parts</code>.</p>"
)


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def page(title: str, depth: int, body: str, script: bool = False, notice: str = "") -> str:
    """A whole page; ``notice`` (a synthetic build's warning) opens every page of the gallery."""
    # An empty inline icon: browsers would otherwise request /favicon.ico and log a 404.
    up = "../" * depth
    tail = f'<script src="{up}{JS}"></script>\n' if script else ""
    banner = f'<p class="banner" id="synthetic"><strong>{_e(notice)}</strong></p>\n' if notice else ""
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<link rel="icon" href="data:,">\n'
        f'<title>{_e(title)}</title>\n<link rel="stylesheet" href="{up}{CSS}">\n</head>\n<body>\n'
        f"{banner}{body}\n{tail}</body>\n</html>\n"
    )


def facet_attributes(summary: RowSummary) -> dict[str, str]:
    f = summary.facets
    return {
        "id": summary.example_id,
        "stratum": f.stratum,
        "action": f.action,
        "class": f.part_class,
        "quality": f.box_quality,
        "tags": json.dumps(list(f.tags)),
        "status": "excluded" if f.excluded else "included",
    }


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
        "<p>Every row of every built config, drawn over its image, with filters and a page per row. "
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
    counts: Counter[str] = Counter()
    for row in rows:
        value = facet_attributes(row)[facet]
        if facet == "tags":
            tags = json.loads(value)
            counts.update(tags or ["(none)"])
        else:
            counts[value] += 1
    options = ['<option value="">all</option>']
    options.extend(f'<option value="{_e(v)}">{_e(v)} ({counts[v]})</option>' for v in sorted(counts))
    return "".join(options)


def _figure(row: RowSummary, thumb_size: tuple[int, int]) -> str:
    attributes = " ".join(f'data-{k}="{_e(v)}"' for k, v in facet_attributes(row).items())
    f = row.facets
    classes = "row excluded" if f.excluded else "row"
    tags = f'<br><span class="tags">{_e(", ".join(f.tags))}</span>' if f.tags else ""
    reask = " · re-ask" if f.reask else ""
    # A GUI row's target is its instruction (every GUI target's action is "none").
    what = (
        f'<span class="instruction">{_e(row.instruction)}</span> · {_e(f.answer_type)} answer'
        if row.instruction
        else f"{_e(f.action)} · {_e(f.part_class)} · {_e(f.box_quality)}"
    )
    return (
        f'<figure class="{classes}" {attributes}><a href="rows/{_e(row.stem)}.html">'
        f'<img src="thumbs/{_e(row.stem)}.jpg" width="{thumb_size[0]}" height="{thumb_size[1]}" '
        f'alt="{_e(row.example_id)}"></a><figcaption><a href="rows/{_e(row.stem)}.html">{_e(row.example_id)}</a>'
        f"<br>{what}{reask}{tags}</figcaption></figure>"
    )


def config_page(
    name: str,
    stratum: str,
    rows: Sequence[RowSummary],
    thumb_sizes: dict[str, tuple[int, int]],
    plots: Sequence[Plot],
    notice: str = "",
) -> str:
    filters = "".join(
        f'<label>{_e(label)} <select id="filter-{facet}" data-facet="{facet}">{_options(facet, rows)}</select></label>'
        for facet, label in FILTERS
    )
    lines = [
        f'<p><a href="../index.html">all configs</a></p><h1>{_e(name)} <small>(stratum {_e(stratum)})</small></h1>',
        KEY,
        '<details class="plots"><summary>Distributions</summary>',
        *(_plot_figure(plot, "../") for plot in plots),
        "</details>",
        f'<div class="filters">{filters}<label>id contains <input id="search" type="search"></label>'
        f'<button id="reset" type="button">reset</button> '
        f'<strong><span id="shown">{len(rows)}</span> of <span id="total">{len(rows)}</span> rows shown</strong></div>',
        '<div class="grid" id="grid">',
        *(_figure(row, thumb_sizes[row.stem]) for row in rows),
        "</div>",
    ]
    return page(f"{name}: GroundBench audit gallery", 1, "\n".join(lines), script=True, notice=notice)


def _cell(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, list):
        return "[" + ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value) + "]"
    return str(value)


PART_COLUMNS = (
    "part_id",
    "category",
    "action",
    "box_quality",
    "bbox_xyxy",
    "point_xy",
    "joint_type",
    "mask_area",
    "motion_axis_2d",
    "motion_axis_3d",
    "secondary_actions",
)


def prompts_section(record: dict[str, Any]) -> list[str]:
    """The prompt of every condition the row is valid under, as the model receives it (the row's own
    ``prompts`` when it carries them, else built from the same templates)."""
    prompts = record.get("prompts")
    if prompts is None:
        prompts = [{"condition": c, "text": build_prompt(record, c)} for c in conditions_of(record)]
    lines = ['<h2>Prompts</h2><section id="prompts">']
    if not prompts:
        lines.append("<p>No valid condition: the row is never requested or scored.</p>")
    for prompt in prompts:
        condition = _e(prompt["condition"])
        lines.append(f'<h3>{condition}</h3><pre class="prompt" data-condition="{condition}">{_e(prompt["text"])}</pre>')
    lines.append("</section>")
    return lines


def row_page(
    record: dict[str, Any], summary: RowSummary, config: str, prev: str | None, nxt: str | None, notice: str = ""
) -> str:
    f = summary.facets
    nav = [f'<a href="../index.html">{_e(config)} gallery</a>']
    if prev:
        nav.append(f'<a id="prev" href="{_e(prev)}.html">previous row</a>')
    if nxt:
        nav.append(f'<a id="next" href="{_e(nxt)}.html">next row</a>')
    lines = [f"<p>{' · '.join(nav)}</p>"]
    if f.excluded or f.tags:
        lines.append(f'<p class="banner" id="excluded">excluded: {_e(", ".join(f.tags) or "(no tag)")}</p>')
    target = f"target {_e(record.get('target_part_id'))} ({_e(record.get('target_action'))})"
    if f.reask:
        target += (
            f" · re-ask of original target {_e(record.get('original_target_part_id'))} "
            f"({_e(record.get('original_action'))})"
        )
    lines.append(f"<h1>{_e(summary.example_id)}</h1><p>{target}</p>")
    highlighted = (record.get("render") or {}).get("highlighted_part_id")
    if highlighted:  # the image itself marks this part, so only conditions that reveal it are valid
        lines.append(f'<p id="highlighted">render highlights part {_e(highlighted)}</p>')
    if record.get("instruction"):
        lines.append(f'<p id="instruction">instruction: {_e(record.get("instruction"))}</p>')
    lines.append(f'<div class="detail"><img id="overlay" src="../detail/{_e(summary.stem)}.jpg" alt="overlay"></div>')
    lines.append(KEY)
    lines.extend(prompts_section(record))
    header = "".join(f"<th>{_e(c)}</th>" for c in ("n", "role", *PART_COLUMNS))
    lines.append(f'<h2>Candidate parts</h2><table id="parts"><tr>{header}</tr>')
    for number, part in enumerate(record.get("parts") or [], 1):
        role = role_of(record, part.get("part_id"))
        name = {TARGET: "target", ORIGINAL: "original target", OTHER: "candidate"}[role]
        cells = "".join(f'<td class="{c}">{_e(_cell(part.get(c)))}</td>' for c in PART_COLUMNS)
        lines.append(
            f'<tr class="part-{role}" data-role="{role}" data-part-id="{_e(part.get("part_id"))}"><td>{number}</td>'
            f"<td>{name}</td>{cells}</tr>"
        )
    lines.append('</table><h2>Every field</h2><table id="fields"><tr><th>field</th><th>value</th></tr>')
    lines.extend(
        f"<tr><td>{_e(key)}</td><td><code>{_e(value)}</code></td></tr>"
        for key, value in flat_fields(record)
        if key != "parts"
    )
    lines.append("</table>")
    return page(f"{summary.example_id}: GroundBench", 2, "\n".join(lines), notice=notice)
