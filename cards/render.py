"""Render the dataset card body from the built data's facts (never hand-edited).

Every table is plain Markdown with integers printed without separators and floats with four
decimals (:func:`fmt_float`), so the card test can parse them back and compare them with numbers
it recomputes from the shards.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from importlib import resources
from string import Template
from typing import TYPE_CHECKING, Any

from groundbench.cards.notice import synthetic_notice
from groundbench.cards.project import project_info
from groundbench.cards.sources import BIBTEX, GENERATED_GUI_SOURCE, GROUNDBENCH_CITATION, SOURCES, catalogue_key
from groundbench.schemas.conditions import ALL_CONDITIONS, CONDITIONS

if TYPE_CHECKING:
    from groundbench.stages.facts import DatasetFacts

# The DVC-built card cannot hold the git commit: a commit hash inside a DVC-tracked output would
# change with every commit, so `dvc repro` could never reproduce the committed dvc.lock. The line
# below is replaced by `groundbench publish` (publish.py) in the copy it uploads.
GIT_COMMIT_PLACEHOLDER = "Git commit: recorded when this version is published (in the Hub commit and tag messages)."
GIT_COMMIT_LINE = "Git commit: `{commit}`"
# The audit gallery (`groundbench report`) is written to data/report/, beside this folder, and is
# not part of the published dataset: the relative link resolves only in a local checkout. So
# `groundbench publish` swaps the line for GALLERY_LINE_PUBLISHED (no dead link on the Hub), and
# the card check accepts either. Each is one line, so both swaps are line-for-line.
GALLERY_LINE = (
    "Audit gallery of every config (overlays, filters, every row by its id, distribution plots): "
    "[report/index.html](../report/index.html), written beside this folder by `make build`. "
    "The link works only in a local checkout of the GroundBench repository; the gallery is not uploaded."
)
GALLERY_LINE_PUBLISHED = (
    "Audit gallery of every config (overlays, filters, every row by its id, distribution plots): not uploaded; "
    "`make build` in a checkout of the GroundBench repository writes it to `data/report/index.html`."
)


def fmt_float(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}"


def _text(name: str) -> str:
    return resources.files("groundbench.cards").joinpath(name).read_text(encoding="utf-8")


def bibtex_entries() -> dict[str, str]:
    """Entries of cards/citations.bib, then those the source folders' specs bring, keyed by citation key
    (comment lines dropped)."""
    text = "\n".join(line for line in _text("citations.bib").splitlines() if not line.startswith("%"))
    text = "\n".join([text, *BIBTEX])
    entries: dict[str, str] = {}
    for chunk in re.split(r"\n(?=@)", text.strip()):
        match = re.match(r"@\w+\{([^,]+),", chunk.strip())
        if match:
            entries[match.group(1)] = chunk.strip()
    return entries


def _rows(lines: list[str], empty_columns: int) -> str:
    return "\n".join(lines) if lines else "| (none) |" + " |" * (empty_columns - 1)


def _count_section(name: str, facets: dict[str, dict[str, int]]) -> str:
    lines = [f"### `{name}`", "", "| facet | value | rows |", "| --- | --- | ---: |"]
    for facet, counts in facets.items():
        lines.extend(f"| {facet} | {value} | {count} |" for value, count in counts.items())
    return "\n".join(lines)


def reask_section(facts: DatasetFacts) -> str:
    """Re-ask configs: rows per object, informative count and share, transitions, the frozen pool."""
    configs = [c for c in facts.configs if "reask" in c.facts]
    if not configs:
        return "(no re-ask config built)"
    lines = [
        "| config | rows | objects | informative rows | informative share | excluded rows "
        "| frozen pool objects | frozen pool pairs |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for c in configs:
        r = c.facts["reask"]
        lines.append(
            f"| `{c.name}` | {r.rows} | {len(r.rows_per_object)} | {r.informative} | {fmt_float(r.informative_share)} "
            f"| {c.excluded} | {r.pool_objects} | {r.pool_pairs} |"
        )
    lines += ["", "Rows per object (an object with many parts yields many rows):", ""]
    lines += ["| config | object | rows | informative | excluded |", "| --- | --- | ---: | ---: | ---: |"]
    for c in configs:
        r = c.facts["reask"]
        lines.extend(
            f"| `{c.name}` | {o} | {n} | {r.informative_per_object[o]} | {r.excluded_per_object[o]} |"
            for o, n in r.rows_per_object.items()
        )
    lines += ["", "Transitions (original action → requested action), all rows and the frozen pool:", ""]
    lines += ["| config | transition | rows | frozen pool rows |", "| --- | --- | ---: | ---: |"]
    for c in configs:
        r = c.facts["reask"]
        lines.extend(f"| `{c.name}` | {t} | {n} | {r.pool_transitions.get(t, 0)} |" for t, n in r.transitions.items())
    for c in configs:
        if c.stratum != "counterfactual":
            continue
        curated = [s for s in facts.configs if s.source == c.source and s.stratum == "curated"]
        for source in curated:
            objects = ", ".join(source.single_part_objects) or "(none)"
            lines += [
                "",
                f"- `{c.name}`: objects of `{source.name}` with a single candidate part yield no re-ask: {objects}",
            ]
    return "\n".join(lines)


# The box a row's target is scored against (``parts.bbox_xyxy`` of the target part), per source.
TARGET_BOX = {
    "umd": "`bbox_xyxy` = the visible box (tight box of the region's label mask, `from-mask`)",
    "gapartnet": (
        "`bbox_xyxy` = the projected box where it agrees with the mask (`exact`: it holds at least "
        "`gapartnet.coverage_min` of the mask's pixels and its IoU with the visible box is at least "
        "`gapartnet.iou_min`), else the visible box (`from-mask`)"
    ),
}
HIDDEN_PART = "; a requested part hidden in the image: the projected box (`approximate`, row excluded)"
GUI_TARGET_BOX = (
    "`bbox_xyxy` = the source's target box, clamped to the frame where it left it (flag `box_clamped`) for drawing; "
    "scored against the box as annotated, `extras.gui.eval_bbox`"
)


def target_box_of(source: str, stratum: str) -> str:
    text = TARGET_BOX.get(source.split("_")[0], GUI_TARGET_BOX)
    return text + (HIDDEN_PART if stratum in ("counterfactual", "contrast") else "")


def left_out_section(facts: DatasetFacts) -> str:
    """GAPartNet objects whose annotated parts yield no bulk row, per reason (never visible, below the floor)."""
    lines = ["| config | object | never visible | below the floor | parts |", "| --- | --- | ---: | ---: | --- |"]
    for c in facts.configs:
        for object_id, reasons in c.facts.get("left_out", {}).items():
            parts = "; ".join(f"{reason}: {', '.join(links)}" for reason, links in reasons.items())
            lines.append(
                f"| `{c.name}` | {object_id} | {len(reasons.get('never_visible', []))} "
                f"| {len(reasons.get('below_floor', []))} | {_cell(parts)} |"
            )
    return "\n".join(lines) if len(lines) > 2 else "\n".join([*lines, "| (none) | | | | |"])


# The facts a source folder adds (``ConfigCard.facts``) that the sections above print by name; any other
# fact goes in the Source facts table, so a new source's facts reach the card with no edit here.
SHOWN_FACTS = frozenset({"gui", "reask", "left_out", "skipped_files", "row_kind", "languages"})


def source_facts_section(facts: DatasetFacts) -> str:
    """The folders' other facts as one table, led by its heading and a blank line ("" when there are none:
    the template's placeholder then leaves the card as it was)."""
    rows = []
    for c in facts.configs:
        for name, value in c.facts.items():
            if name in SHOWN_FACTS:
                continue
            pairs = value.items() if isinstance(value, Mapping) else [("", value)]
            rows += [f"| `{c.name}` | {_cell(name)} | {_cell(key)} | {_cell(item)} |" for key, item in pairs]
    if not rows:
        return ""
    head = [
        "",
        "## Source facts",
        "",
        "What each config's source folder adds to the facts above (`converters/<name>/facts.py` of the GroundBench "
        "repository), by name.",
        "",
        "| config | fact | key | value |",
        "| --- | --- | --- | ---: |",
    ]
    return "\n".join([*head, *rows, ""])


def _cell(value: object) -> str:
    """A source-given string inside a Markdown table cell (a pipe or newline would break the row)."""
    return str(value).replace("|", "/").replace("\n", " ")


def _tally(counts: dict[str, int]) -> str:
    return "; ".join(f"{_cell(key)}: {count}" for key, count in counts.items()) or "(none)"


GUI_DIMENSIONS = (("width", "target_width_pct"), ("height", "target_height_pct"))
QUANTILES = ("min", "p25", "median", "p75", "max")


def gui_sections(facts: DatasetFacts) -> tuple[str, str]:
    """The GUI suites' two tables (per config and target type; "(all)" first), or a note when none is built."""
    summary: list[str] = []
    sizes: list[str] = []
    for c in facts.configs:
        gui = c.facts.get("gui")
        if gui is None:
            continue
        groups = [("(all)", gui["all"]), *gui["by_target_type"].items()]
        for kind, g in groups:
            summary.append(
                f"| `{c.name}` | {_cell(kind)} | {g['rows']} | {g['excluded']} | {_tally(g['answer_types'])} "
                f"| {fmt_float(g['median_target_area_pct'])} | {_tally(g['languages'])} | {_tally(g['frames'])} "
                f"| {fmt_float(g['center_click_hit_rate'])} |"
            )
            for dimension, key in GUI_DIMENSIONS:
                q = g[key] or {}
                values = " | ".join(fmt_float(q.get(name)) for name in QUANTILES)
                sizes.append(f"| `{c.name}` | {_cell(kind)} | {dimension} | {values} |")
    return _rows(summary, 9), _rows(sizes, 8)


def _share(count: int, total: int) -> str:
    return f"{count} of {total} rows ({fmt_float(count / total)})"


def imbalance_lines(facts: DatasetFacts) -> list[str]:
    """Per config, the largest target-action and object-category (GUI: target-type) groups and their shares."""
    lines = []
    for c in facts.configs:
        if not c.rows:
            continue
        parts = []
        if "gui" not in c.facts:
            action, count = next(iter(c.by_action.items()))
            actions = len(c.by_action)
            parts.append(
                f"target action `{action}` in {_share(count, c.rows)}, {actions} action{'s' * (actions != 1)} in all"
            )
            category, count = next(iter(c.by_object_category.items()))
            parts.append(f"object category `{category}` in {_share(count, c.rows)}")
        else:
            kinds = {k: g["rows"] for k, g in c.facts["gui"]["by_target_type"].items()}
            kind, count = max(kinds.items(), key=lambda item: (item[1], item[0])) if kinds else ("(none)", 0)
            parts.append(f"target type `{_cell(kind)}` in {_share(count, c.rows)}")
        lines.append(f"- `{c.name}`: " + "; ".join(parts) + ".")
    return lines


def limitation_lines(facts: DatasetFacts) -> list[str]:
    """Limitations that follow from this build's own data."""
    configs = facts.configs
    lines = [
        f"- `{c.name}`: all {c.rows} rows share the target action `{next(iter(c.by_action))}`, so the "
        "majority-action baseline is 1.00 there; it says nothing about action discrimination."
        for c in configs
        if len(c.by_action) == 1 and c.rows and "gui" not in c.facts  # GUI rows have no action to discriminate
    ]
    generated = sorted(c.name for c in configs if GENERATED_GUI_SOURCE in c.row_sources)
    if generated:
        lines.append(
            "- " + ", ".join(f"`{n}`" for n in generated) + ": built from GroundBench's generated GUI suites "
            "(synthetic screenshots in PointerBench / ScreenSpot / OSWorld-G / UI-Vision file formats), not from the "
            "published PointerBench, ScreenSpot, OSWorld-G or UI-Vision data; scores on them are not comparable with "
            "published results."
        )
    projected = sorted(c.name for c in configs if c.source == "gapartnet" and c.rows)
    if projected:
        lines.append(
            "- " + ", ".join(f"`{n}`" for n in projected) + ": a GAPartNet part's box is its posed 3-D box "
            "projected into the image. `exact` means only that this projection agrees with the part's own "
            "instance mask (IoU and coverage at or above the thresholds in params.yaml); it is still the "
            "projection of a 3-D box, usually larger than the visible part. `from-mask` boxes are the mask's "
            "tight box; `box_projection_mismatch` rows are excluded."
        )
    if facts.synthetic:
        lines.append(
            "- " + ", ".join(f"`{n}`" for n in facts.synthetic) + ": synthetic embedded samples, made by "
            "GroundBench's code in the sources' file formats; they test the pipeline, not models."
        )
    return lines


def sources_read(facts: DatasetFacts) -> dict[str, list[str]]:
    """Catalogue key of every source a built config read -> those configs (a sample config: the sample)."""
    used: dict[str, list[str]] = {}
    for c in facts.configs:
        synthetic = c.name in facts.synthetic
        for source in c.row_sources or [c.source]:
            key = catalogue_key(source, synthetic) or source
            used.setdefault(key, []).append(c.name)
    derived = facts.baselines
    if derived is not None:
        used.setdefault(catalogue_key(derived.source, False) or derived.source, []).append(derived.name)
    return {key: sorted(set(names)) for key, names in sorted(used.items())}


def licence_rows(facts: DatasetFacts) -> list[tuple[str, str, str]]:
    """(source title, its configs, its licence or terms) for every source the build read."""
    rows = []
    for key, names in sources_read(facts).items():
        info = SOURCES.get(key)
        title = info.title if info else key
        licence = info.licence if info else "NOT CATALOGUED: add this source to cards/sources.py"
        rows.append((title, ", ".join(f"`{n}`" for n in names), licence))
    return rows


def citation_keys(facts: DatasetFacts) -> list[str]:
    """GroundBench, then the entries of every source the build read (a synthetic sample cites nothing)."""
    keys = [GROUNDBENCH_CITATION]
    for key in sources_read(facts):
        info = SOURCES.get(key)
        for citation in info.citations if info else ():
            if citation not in keys:
                keys.append(citation)
    return keys


def groundbench_citation(facts: DatasetFacts) -> str:
    """GroundBench's own BibTeX entry with this version's year, version and URL."""
    return Template(bibtex_entries()[GROUNDBENCH_CITATION]).substitute(
        year=facts.date_published[:4], version=facts.version, url=facts.url
    )


def rai_facts(facts: DatasetFacts) -> dict[str, str]:
    """Croissant Responsible-AI fields, each from what the build itself knows."""
    limitations = [line.removeprefix("- ") for line in limitation_lines(facts)]
    settings = "; ".join(f"{s}: {v}" for s, v in sorted(facts.source_settings.items()))
    return {
        "dataCollection": "Converted by deterministic converters from the sources listed under license, read in "
        f"their released on-disk formats ({settings}).",
        "dataCollectionType": "Secondary data (existing datasets converted)"
        + ("; synthetic embedded samples generated by GroundBench's code" if facts.synthetic else ""),
        "dataAnnotationProtocol": "Annotations are the sources' own; curated strata were audited by hand against "
        "written rules (audits/*.yaml); bulk strata are converted automatically and unaudited; rows failing a "
        "check are kept, tagged and excluded.",
        "dataPreprocessingProtocol": "Boxes re-expressed as absolute [x0, y0, x1, y1] pixels on the pixel-edge "
        "plane; GAPartNet 3-D boxes projected and checked against the part's own mask; per-row baselines computed.",
        "dataUseCases": "Evaluating where vision-language models fail at grounding (object parts and actions, GUI "
        "targets); not for training.",
        "dataLimitations": " ".join(limitations) or "See the card's Limitations section.",
        "dataBiases": " ".join(line.removeprefix("- ") for line in imbalance_lines(facts))
        or "See the card's Limitations section.",
        "personalSensitiveInformation": "None known: object photographs, renders of object models and screenshots.",
    }


def _number(value: object) -> str:
    return "—" if value is None else fmt_float(value) if isinstance(value, float) else str(value)


def baselines_section(rows: Sequence[Mapping[str, Any]] | None) -> str:
    """The `baselines` config as a table: one line per (config, stratum, condition)."""
    if rows is None:
        return _text("baselines.md").strip().split("\n\n")[0] + "\n\nThe `baselines` config was not built."
    cells: dict[tuple[str, str, str], dict[str, Mapping[str, Any]]] = {}
    for row in rows:
        cells.setdefault((row["config"], row["stratum"], row["condition"]), {})[row["baseline"]] = row
    lines = []
    for (config, stratum, condition), b in sorted(cells.items()):
        if "center_click" in b:
            c = b["center_click"]
            dashes = " — |" * 10
            cell = f"center click {_number(c['value'])}"
            if "always_refuse" in b:  # rows without a target: what refusing everywhere scores beside it
                cell += f"; always refuse {_number(b['always_refuse']['value'])}"
            lines.append(f"| `{config}` | {stratum} | {condition} | {c['n']} |{dashes} {cell} |")
            continue
        bound = b["text_only_blind_bound"]
        keys = ", ".join(bound["supplied_keys"]) or "(none)"

        def value(name: str, cell: Mapping[str, Mapping[str, Any]] = b) -> str:
            return _number(cell[name]["value"]) if name in cell else "—"

        region = " / ".join(value(f"{n}_in_target_region") for n in ("image_center", "object_center", "best_constant"))
        geometry = b.get("image_center_in_target_region", {}).get("detail")
        region += f" ({geometry})" if geometry else ""
        singletons = b["singleton_keys"]["detail"] if "singleton_keys" in b else "—"
        lines.append(
            f"| `{config}` | {stratum} | {condition} | {bound['n']} "
            f"| {_number(b['majority_action']['value'])} ({b['majority_action']['detail']}) "
            f"| {_number(bound['value'])} | {value('text_only_blind_estimate_loo')} | {singletons} "
            f"| {'**yes**' if bound['leakage'] else 'no'} "
            f"| {value('localization_tau')} | {value('image_center_hit_rate_at_tau')} "
            f"| {value('object_center_hit_rate_at_tau')} | {value('best_constant_hit_rate_at_tau')} "
            f"| {region} | {keys} |"
        )
    return _text("baselines.md").strip().format(rows=_rows(lines, 15))


def source_provenance_section(records: list[dict]) -> str:
    """Origin, revision and checksum of each fetched source the build read (data/sources/<source>/provenance.json)."""
    from groundbench.fetch.provenance import checksum

    if not records:
        return "- Fetched sources read: none (every source read is an embedded sample or a local tree)"
    rows = [
        f"| {r['title']} | {_cell(r['origin'])} | `{r['revision']}` | `{checksum(r)}` | "
        f"{r['tree']['files']} files, {r['tree']['bytes']:,} bytes, tree sha256 `{r['tree']['sha256']}` | "
        f"{_cell(r['licence'])} |"
        for r in records
    ]
    header = (
        "| fetched source | origin | revision | checksum | unpacked tree | licence (recorded at fetch) |\n"
        "| --- | --- | --- | --- | --- | --- |"
    )
    return header + "\n" + "\n".join(rows)


def render_body(facts: DatasetFacts) -> str:
    configs = facts.configs
    config_rows = [
        f"| `{c.name}` | {c.source} | {c.stratum} | {c.row} | {c.rows} | {c.excluded} | {c.images} "
        f"| {c.image_bytes} | {c.shard_bytes} |"
        for c in configs
    ]
    derived = facts.baselines
    if derived is not None:  # aggregates, not records: no images, no exclusions
        config_rows.append(
            f"| `{derived.name}` | {derived.source} | {derived.stratum} | {derived.row} | {derived.rows} | 0 | 0 "
            f"| 0 | {derived.shard_bytes} |"
        )
    count_sections = [
        _count_section(
            c.name,
            {
                "target action": c.by_action,
                "target part class": c.by_part_class,
                "box check by target part class": c.by_class_box_check,
                "object category": c.by_object_category,
                "render": c.by_render_kind,
            },
        )
        for c in configs
    ]
    condition_rows = [
        f"| {name} | {', '.join(sorted(CONDITIONS[name])) or '(image only)'} |" for name in ALL_CONDITIONS
    ]
    validity_rows = [f"| `{c.name}` | {c.stratum} | {', '.join(c.valid_conditions) or '(none)'} |" for c in configs]
    baseline_rows = [
        f"| `{c.name}` | {key} | {s.count} | {fmt_float(s.mean)} | {fmt_float(s.minimum)} | {fmt_float(s.maximum)} |"
        for c in configs
        for key, s in c.baselines.items()
    ]
    box_rows = [f"| `{c.name}` | {q} | {n} |" for c in configs for q, n in c.by_box_quality.items()]
    target_box_rows = [f"| `{c.name}` | {c.stratum} | {target_box_of(c.source, c.stratum)} |" for c in configs]
    flag_rows = [f"| `{c.name}` | {f} | {n} |" for c in configs for f, n in c.by_flag.items()]
    clutter_rows = [f"| `{c.name}` | {c.facts['skipped_files']} |" for c in configs if "skipped_files" in c.facts]
    exclusion_rows = [f"| `{c.name}` | {t} | {n} |" for c in configs for t, n in c.by_exclusion_tag.items()]
    licences = [f"| {title} | {names} | {licence} |" for title, names, licence in licence_rows(facts)]
    absent_rows = [f"| `{name}` | {_cell(reason)} |" for name, reason in sorted(facts.absent.items())]
    gui_summary_rows, gui_size_rows = gui_sections(facts)
    provenance_rows = [
        f"| `{c.name}` | {', '.join(c.converters)} | {c.source_files} | `{c.source_checksum}` | `{c.manifest_sha256}` |"
        for c in configs
    ]
    entries = bibtex_entries()
    citations = "\n\n".join(
        groundbench_citation(facts) if key == GROUNDBENCH_CITATION else entries[key] for key in citation_keys(facts)
    )
    settings = "; ".join(f"{s}: {v}" for s, v in sorted(facts.source_settings.items())) or "(none)"
    project = project_info()
    return Template(_text("body.md")).substitute(
        version=facts.version,
        format_version=facts.format_version,
        total_rows=facts.total_rows,
        config_rows=_rows(config_rows, 9),
        absent_rows=_rows(absent_rows, 2),
        gui_summary_rows=gui_summary_rows,
        gui_size_rows=gui_size_rows,
        count_sections="\n\n".join(count_sections) or "(no config built)",
        condition_rows="\n".join(condition_rows),
        validity_rows=_rows(validity_rows, 3),
        baseline_rows=_rows(baseline_rows, 6),
        baselines_config=baselines_section(None if derived is None else derived.entries),
        box_rows=_rows(box_rows, 3),
        target_box_rows=_rows(target_box_rows, 3),
        flag_rows=_rows(flag_rows, 3),
        left_out_section=left_out_section(facts),
        clutter_rows=_rows(clutter_rows, 2),
        exclusion_rows=_rows(exclusion_rows, 3),
        reask_section=reask_section(facts),
        source_facts=source_facts_section(facts),
        default=facts.default,
        limitation_rows="\n".join(limitation_lines(facts)),
        imbalance_rows="\n".join(imbalance_lines(facts)) or "- (no record config built)",
        licence_rows=_rows(licences, 3),
        provenance_rows=_rows(provenance_rows, 5),
        source_provenance=source_provenance_section(facts.source_provenance),
        source_settings=settings,
        lock_sha256=facts.lock_sha256,
        build_lock_sha256=facts.build_lock_sha256,
        git_commit_line=GIT_COMMIT_PLACEHOLDER,
        gallery_line=GALLERY_LINE,
        citations=citations,
        synthetic_notice=synthetic_notice(facts.synthetic, markdown=True),
        repo_id=repo_id_of(facts.url),
        repository=project.repository,
        maintainers=", ".join(project.maintainers),
        contact=project.contact,
        field_rows="\n".join(field_rows()),
        examples=examples_section(facts),
        audit_links=", ".join(f"[audits/{file}](audits/{file}) (`{config}`)" for file, config in facts.audits)
        or "(no curated config in this build)",
    )


def _type_name(feature: Any) -> str:
    from groundbench.schemas.types import Image, List, Value

    if isinstance(feature, Value):
        return feature.dtype
    if isinstance(feature, Image):
        return "image"
    if isinstance(feature, List):
        inner = _type_name(feature.feature)
        return f"list<{inner}>[{feature.length}]" if feature.length != -1 else f"list<{inner}>"
    return "struct"


def field_rows() -> list[str]:
    """The Data Fields table: every field of a published record (dotted paths), its type and description."""
    from groundbench.schemas.features import PUBLISHED_FEATURES, description
    from groundbench.schemas.types import List

    lines: list[str] = []

    def walk(prefix: str, feature: Any) -> None:
        for name, sub in feature.items():
            path = f"{prefix}.{name}" if prefix else name
            lines.append(f"| `{path}` | {_type_name(sub)} | {_cell(description(path) or '')} |")
            inner = sub.feature if isinstance(sub, List) else sub
            if isinstance(inner, dict):
                walk(path, inner)

    walk("", PUBLISHED_FEATURES)
    return lines


EXAMPLE_LIST_ITEMS = 2  # list entries shown in an example instance (the rest are counted)
EXAMPLE_TEXT_CHARS = 400  # longer text (a prompt) is cut here in an example


def _compact(value: Any) -> Any:
    """A row made readable: nulls dropped, floats to 4 decimals, lists of records cut to their first
    entries plus a count, long text cut."""
    if isinstance(value, dict):
        return {k: _compact(v) for k, v in value.items() if v is not None and v != [] and v != {}}
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, str) and len(value) > EXAMPLE_TEXT_CHARS:
        return value[:EXAMPLE_TEXT_CHARS] + f"... ({len(value)} characters)"
    if isinstance(value, list):
        if all(isinstance(v, (int, float, str)) for v in value):
            return [_compact(v) for v in value]
        shown = [_compact(v) for v in value[:EXAMPLE_LIST_ITEMS]]
        more = len(value) - EXAMPLE_LIST_ITEMS
        return [*shown, f"... {more} more"] if more > 0 else shown
    return value


def _example_json(value: Any) -> str:
    """Indented JSON with every list of plain values on one line."""
    import json

    text = json.dumps(value, indent=2, ensure_ascii=False)
    return re.sub(
        r"\[\n\s*((?:(?:-?[\d.e+-]+|\"[^\"\n]*\"|true|false|null),\n\s*)*(?:-?[\d.e+-]+|\"[^\"\n]*\"|true|false|null))\n\s*\]",
        lambda m: "[" + re.sub(r",\n\s*", ", ", m.group(1)) + "]",
        text,
    )


def examples_section(facts: DatasetFacts) -> str:
    """One example row per record type (object, GUI, re-ask), from the first included row of a config."""
    blocks = []
    for kind, row in facts.examples.items():
        shown = dict(_compact({k: v for k, v in row.items() if k != "image"}))
        shown = {"image": f"<{row['width']}x{row['height']} image, sha256 {row['image_sha256'][:12]}...>", **shown}
        text = _example_json(shown)
        blocks.append(f"### {kind}\n\n```json\n{text}\n```")
    return "\n\n".join(blocks) or "(no record config built)"


HUB_DATASETS = "https://huggingface.co/datasets/"


def repo_id_of(url: str) -> str:
    """The Hub repo id of the dataset URL (``ORG/NAME``), else a placeholder."""
    return url.removeprefix(HUB_DATASETS).strip("/") if url.startswith(HUB_DATASETS) else "<org>/groundbench"
