"""The dataset card and croissant.json: parsed back offline, every number recomputed from the shards.

The recomputation here is independent of groundbench.stages.facts: it reads the published shards with
pyarrow and counts with plain Python.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import math
import re
import shutil
import statistics
import tomllib
from collections import Counter
from email.message import Message
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pytest
import yaml
from huggingface_hub import DatasetCard, DatasetCardData

from groundbench.cards.project import ProjectInfo, _people
from groundbench.cards.render import GALLERY_LINE, GALLERY_LINE_PUBLISHED, bibtex_entries
from groundbench.cards.sources import SOURCES, source_key
from groundbench.schemas.baselines_features import BASELINE_FEATURES, baselines_arrow_schema
from groundbench.schemas.conditions import ALL_CONDITIONS, HIGHLIGHT_SAFE
from groundbench.stages import assemble as assemble_stage
from groundbench.stages.croissant import validate_croissant
from tests.conftest import REPO, build_all, run_cli

GUI_CONFIGS = ("gui_screenspot", "gui_screenspot_pro", "gui_screenspot_v2", "gui_sheets", "gui_text")
CONFIGS = ("bulk_umd", "curated_umd", *GUI_CONFIGS)
GUI_SOURCES = ("pointerbench", "screenspot", "screenspot_v2", "screenspot_pro")
BASELINES = "baselines"  # the derived config: its own features, one row per (config, stratum, condition, baseline)
BASELINES_HEADING = "## Baselines per config, stratum and condition (the `baselines` config)"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, umd_sample: Path) -> Path:
    """UMD from its sample, every GUI source from a small generated sample, GAPartNet set to null."""
    root = tmp_path_factory.mktemp("card") / "project"
    (root / "data" / "audits").mkdir(parents=True)
    shutil.copy(REPO / "data/audits/curated_umd.yaml", root / "data/audits/curated_umd.yaml")
    for lock in ("requirements.lock", "requirements-build.lock"):  # the card records what built it
        shutil.copy(REPO / lock, root / lock)
    source = root.parent / "umd_source"
    shutil.copytree(umd_sample, source)
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params["sources"]["umd"] = str(source)
    params["umd"]["workers"] = 1
    params["sources"]["gapartnet"] = None
    params["sample"]["gui"].update(examples_per_suite=5, frames=["1024x768", "1920x1080"], screenspot_rows=3, workers=1)
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    assert run_cli(root, "generate-gui", "--quiet") == 0
    for source in (*GUI_SOURCES, "gapartnet"):
        assert run_cli(root, "convert", source, "--quiet") == 0
    assert run_cli(root, "bake", "gui_sheets", "gui_text", "gui_pro", *GUI_CONFIGS[:3]) == 0
    assert run_cli(root, "bake", "curated_gapartnet", "bulk_gapartnet") == 0
    build_all(root)
    return root


def _table(config: str, root: Path) -> pa.Table:
    files = sorted((root / "data/groundbench/data" / config).glob("*.parquet"))
    return pa.concat_tables([pq.read_table(f) for f in files])


def _section(text: str, heading: str) -> str:
    match = re.search(rf"^{re.escape(heading)}\n(.*?)(?=^#{{1,3}} |\Z)", text, re.S | re.M)
    assert match, heading
    return match.group(1)


def _rows(block: str) -> list[list[str]]:
    """Cells of every row of the first Markdown table in ``block`` (header and rule lines dropped)."""
    return _tables(block)[0]


def _tables(block: str) -> list[list[list[str]]]:
    """Every Markdown table in ``block``: its rows' cells (header and rule lines dropped)."""
    tables: list[list[str]] = []
    previous = False
    for line in block.splitlines():
        is_row = line.startswith("|")
        if is_row and not previous:
            tables.append([])
        if is_row:
            tables[-1].append(line)
        previous = is_row
    return [[[cell.strip().strip("`") for cell in line.strip("|").split("|")] for line in t[2:]] for t in tables]


def _expected(root: Path, config: str) -> dict:
    rows = _table(config, root).drop_columns(["image"]).to_pylist()
    target = [next((p for p in r["parts"] if p["part_id"] == r["target_part_id"]), {}) for r in rows]
    counts = {
        "target action": Counter(r["target_action"] or "(none)" for r in rows),
        "target part class": Counter(t.get("category") or "(none)" for t in target),
        "box check by target part class": Counter(
            f"{t.get('category') or '(none)'}: "
            + (
                "box_projection_mismatch"
                if "box_projection_mismatch" in r["exclusion_tags"]
                else t.get("box_quality") or "(none)"
            )
            for r, t in zip(rows, target, strict=True)
        ),
        "object category": Counter(r["object_category"] or "(none)" for r in rows),
        "render": Counter((r["render"] or {}).get("kind") or "(none)" for r in rows),
    }
    lines = [json.loads(line) for line in (root / f"data/manifests/{config}.jsonl").read_text().splitlines()]
    manifest = [line for line in lines if "producer" in line]  # its image lines (not its shard and row lines)
    files = sorted((root / "data/groundbench/data" / config).glob("*.parquet"))
    digests = sorted({d for r in rows for d in r["provenance"]["source_sha256"]})
    return {
        "rows": rows,
        "counts": counts,
        "box": Counter(t.get("box_quality") or "(none)" for t in target),
        "tags": Counter(tag for r in rows for tag in r["exclusion_tags"]),
        "excluded": sum(r["excluded"] for r in rows),
        "images": len(manifest),
        "image_bytes": sum(m["bytes"] for m in manifest),
        "shard_bytes": sum(f.stat().st_size for f in files),
        "shards": {f"data/{config}/{f.name}": hashlib.sha256(f.read_bytes()).hexdigest() for f in files},
        "source_checksum": hashlib.sha256("\n".join(digests).encode()).hexdigest(),
        "source_files": len(digests),
    }


def test_card_parses_back_offline_with_the_declared_metadata(built: Path) -> None:
    card = DatasetCard.load(built / "data/groundbench/README.md")
    assert isinstance(card.data, DatasetCardData)
    data = card.data.to_dict()
    assert data["pretty_name"] == "GroundBench"
    assert data["version"] == yaml.safe_load((built / "params.yaml").read_text())["dataset"]["version"]
    assert data["license"] == "other" and data["size_categories"] == ["n<1K"]
    assert {"robotics", "object-detection"} <= set(data["task_categories"])
    assert sorted(c["config_name"] for c in data["configs"]) == sorted([*CONFIGS, BASELINES])
    # the default (curated_gapartnet) is not built here: the first built record config, never `baselines`
    assert [c["config_name"] for c in data["configs"] if c.get("default")] == ["bulk_umd"]
    for info in data["dataset_info"]:
        assert info["splits"][0]["num_examples"] == _table(info["config_name"], built).num_rows
        names = [f["name"] for f in info["features"]]
        if info["config_name"] == BASELINES:
            assert names == list(BASELINE_FEATURES)
        else:
            assert "example_id" in names and "image" in names


# A Hub dataset id of GroundBench as the docs and the card write it (load_dataset, --data, --dataset, --repo-id).
HUB_ID = re.compile(
    r"""(?:load_dataset\(|--data |--dataset |--repo-id |datasets/)["']?(?!data/)([\w<>.-]+/groundbench)\b"""
)  # data/groundbench: a local folder


def _repo_id() -> str:
    url = yaml.safe_load((REPO / "params.yaml").read_text())["dataset"]["url"]
    return str(url).removeprefix("https://huggingface.co/datasets/")


def test_the_card_names_one_repo_id_and_the_projects_repository_maintainers_and_contact(built: Path) -> None:
    text = (built / "data/groundbench/README.md").read_text()
    assert set(HUB_ID.findall(text)) == {_repo_id()}  # the Quickstart, How to load, results export, BibTeX
    assert len(HUB_ID.findall(text)) >= 5
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    section = text.split("## Code, maintainers and contact\n")[1].split("\n## ")[0]
    assert f"- Code repository: {project['urls']['Repository']} " in section
    assert f"- Maintainers: {', '.join(m['name'] for m in project['maintainers'])}\n" in section
    assert f"- Contact: an issue at {project['urls']['Issues']}\n" in section
    creator = json.loads((built / "data/groundbench/croissant.json").read_text())["creator"]
    assert creator["name"] == ", ".join(a["name"] for a in project["authors"])
    assert creator["url"] == project["urls"]["Repository"]


def test_maintainers_addresses_are_the_contact_when_given() -> None:
    fields = Message()  # core metadata, as importlib.metadata reads it from an installed package
    fields["Maintainer"] = "A Person"
    fields["Maintainer-email"] = "B Person <b@example.org>, c@example.org"
    assert _people(fields, "Maintainer") == ("A Person", "B Person <b@example.org>", "c@example.org")
    info = ProjectInfo("https://code", "https://code/issues", ("x",), _people(fields, "Maintainer"))
    assert info.contact == "B Person <b@example.org>, c@example.org, or an issue at https://code/issues"


def test_the_docs_name_the_same_repo_id() -> None:
    found = {
        (path.name, hub_id)
        for path in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), REPO / "cards/body.md"]
        for hub_id in HUB_ID.findall(path.read_text())
        if path.name != "reliability.md"  # generated from the tests' Hub stand-in (org/groundbench)
    }
    assert found and {hub_id for _, hub_id in found} == {_repo_id()}, found


def test_every_number_in_the_card_equals_the_shards(built: Path) -> None:
    _check_every_number(built, CONFIGS)


def _check_every_number(built: Path, names: tuple[str, ...]) -> None:
    text = (built / "data/groundbench/README.md").read_text()
    expected = {config: _expected(built, config) for config in names}
    configs = {row[0]: row for row in _rows(_section(text, "## Configs"))}
    assert set(configs) == {*names, BASELINES}
    derived = _table(BASELINES, built)
    derived_bytes = sum(f.stat().st_size for f in (built / "data/groundbench/data" / BASELINES).glob("*.parquet"))
    assert configs[BASELINES][1] == "all"
    assert [int(n) for n in configs[BASELINES][4:]] == [derived.num_rows, 0, 0, 0, derived_bytes]

    for config, e in expected.items():
        _, _source, _stratum, _what, rows, excluded, images, image_bytes, shard_bytes = configs[config]
        assert [int(rows), int(excluded), int(images), int(image_bytes), int(shard_bytes)] == [
            len(e["rows"]),
            e["excluded"],
            e["images"],
            e["image_bytes"],
            e["shard_bytes"],
        ]
        facets: dict[str, Counter[str]] = {}
        for facet, value, count in _rows(_section(text, f"### `{config}`")):
            facets.setdefault(facet, Counter())[value] = int(count)
        assert facets == e["counts"]
        target_boxes, qualities = _tables(_section(text, "## Boxes"))
        box = {v: int(n) for c, v, n in qualities if c == config}
        assert box == dict(e["box"])
        stratum = {r["stratum"] for r in e["rows"]}
        assert [row[1:2] for row in target_boxes if row[0] == config] == [sorted(stratum)]
        flags = {v: int(n) for c, v, n in _rows(_section(text, "## Flags")) if c == config}
        assert flags == dict(Counter(f for r in e["rows"] for f in r["flags"]))
        left_out, clutter = _tables(_section(text, "## Left out"))
        expected_left: dict[str, dict[str, set[str]]] = {}
        for r in e["rows"]:
            for item in (r["extras"]["gapartnet"] or {}).get("left_out") or []:
                expected_left.setdefault(r["object_id"], {}).setdefault(item["reason"], set()).add(item["part_id"])
        got_left = {row[1]: [int(row[2]), int(row[3])] for row in left_out if row[0] == config}
        assert got_left == {
            o: [len(v.get("never_visible", ())), len(v.get("below_floor", ()))] for o, v in expected_left.items()
        }
        if config.endswith("_umd"):
            skipped = {(r["object_id"], n) for r in e["rows"] for n in r["extras"]["umd"]["skipped_files"]}
            assert [int(row[1]) for row in clutter if row[0] == config] == [len(skipped)]
        tags = {v: int(n) for c, v, n in _rows(_section(text, "## Exclusion reasons")) if c == config}
        assert tags == dict(e["tags"])
        for c, key, count, mean, low, high in _rows(_section(text, "## Baselines")):
            if c != config:
                continue
            values = [r["baselines"][key] for r in e["rows"] if r["baselines"] and r["baselines"][key] is not None]
            assert int(count) == len(values)
            if not values:
                assert [mean, low, high] == ["", "", ""]
                continue
            assert [mean, low, high] == [f"{sum(values) / len(values):.4f}", f"{min(values):.4f}", f"{max(values):.4f}"]
        provenance = {row[0]: row for row in _rows(_section(text, "## Provenance"))}[config]
        assert int(provenance[2]) == e["source_files"] and provenance[3] == e["source_checksum"]
        manifest = (built / f"data/manifests/{config}.jsonl").read_bytes()
        assert provenance[4] == hashlib.sha256(manifest).hexdigest()
    lock = hashlib.sha256((built / "requirements.lock").read_bytes()).hexdigest()
    assert f"`requirements.lock` sha256: `{lock}`" in text
    build_lock = hashlib.sha256((built / "requirements-build.lock").read_bytes()).hexdigest()
    assert f"`requirements-build.lock` (the build extra) sha256:\n  `{build_lock}`" in text


def _target_type(row: dict) -> str:
    gui = row["extras"]["gui"]
    return gui["data_type"] or gui["ui_type"] or gui["element_type"] or "unknown"


def _tally(values: list[str]) -> dict[str, int]:
    return dict(Counter(values))


def _parse_tally(cell: str) -> dict[str, int]:
    return {} if cell == "(none)" else {k: int(v) for k, v in (item.split(": ") for item in cell.split("; "))}


def _gui_expected(rows: list[dict]) -> dict:
    """One group's GUI facts, recomputed with plain Python and numpy from the shard rows."""
    areas, widths, heights, hits = [], [], [], 0
    for r in rows:
        x0, y0, x1, y1 = next(p for p in r["parts"] if p["part_id"] == r["target_part_id"])["bbox_xyxy"]
        w, h = r["width"], r["height"]
        areas.append(100 * (x1 - x0) * (y1 - y0) / (w * h))
        widths.append(100 * (x1 - x0) / w)
        heights.append(100 * (y1 - y0) / h)
        hits += r["answer_type"] == "point" and x0 <= w / 2 <= x1 and y0 <= h / 2 <= y1
    return {
        "summary": [
            str(len(rows)),
            str(sum(r["excluded"] for r in rows)),
            _tally([r["answer_type"] for r in rows]),
            f"{statistics.median(areas):.4f}",
            _tally([r["extras"]["gui"]["language"] or "unknown" for r in rows]),
            _tally([f"{r['width']}x{r['height']}" for r in rows]),
            f"{hits / len(rows):.4f}",
        ],
        "width": [f"{v:.4f}" for v in np.percentile(widths, [0, 25, 50, 75, 100])],
        "height": [f"{v:.4f}" for v in np.percentile(heights, [0, 25, 50, 75, 100])],
    }


def test_gui_facts_in_the_card_equal_the_shards(built: Path) -> None:
    text = (built / "data/groundbench/README.md").read_text()
    summary, sizes = _tables(_section(text, "## GUI suites"))
    printed = {
        (r[0], r[1]): [r[2], r[3], _parse_tally(r[4]), r[5], _parse_tally(r[6]), _parse_tally(r[7]), r[8]]
        for r in summary
    }
    printed_sizes = {(r[0], r[1], r[2]): r[3:] for r in sizes}
    expected_keys = set()
    for config in GUI_CONFIGS:
        rows = _expected(built, config)["rows"]
        groups: dict[str, list[dict]] = {"(all)": rows}
        for row in rows:
            groups.setdefault(_target_type(row), []).append(row)
        assert len(groups) > 1
        for kind, group in groups.items():
            expected_keys.add((config, kind))
            e = _gui_expected(group)
            assert printed[(config, kind)] == e["summary"], (config, kind)
            assert printed_sizes[(config, kind, "width")] == e["width"], (config, kind)
            assert printed_sizes[(config, kind, "height")] == e["height"], (config, kind)
    assert set(printed) == expected_keys  # no GUI facts for the UMD configs, none missing
    # Point rows at two frame sizes: the sample's own frames, each with the same number of rows.
    assert printed[("gui_sheets", "(all)")][5] == {"1024x768": 5, "1920x1080": 5}


def test_card_names_the_configs_a_build_lacks_and_why(built: Path) -> None:
    text = (built / "data/groundbench/README.md").read_text()
    present, absent = _tables(_section(text, "## Configs"))
    from groundbench.core.registry import CONFIGS as REGISTRY

    assert {r[0] for r in present} == {*CONFIGS, BASELINES}  # the derived config is listed too
    reasons = dict(absent)
    assert set(reasons) == {c.name for c in REGISTRY} - set(CONFIGS)
    assert "pointerbench-pro" in reasons["gui_pro"] and "embedded sample" in reasons["gui_pro"]
    null = "sources.gapartnet is null in params.yaml; "
    null += "not fetched (run `groundbench fetch gapartnet --from ARCHIVE_OR_FOLDER`)"
    assert reasons["curated_gapartnet"] == reasons["bulk_gapartnet"] == null


def _cell(value: float | None) -> str:
    return "—" if value is None else f"{value:.4f}"


def test_the_baselines_table_equals_the_baselines_config(built: Path) -> None:
    text = (built / "data/groundbench/README.md").read_text()
    rows = _table(BASELINES, built).to_pylist()
    assert len(rows) == len({r["baseline_id"] for r in rows}) > 0
    assert {r["config"] for r in rows} == set(CONFIGS)
    cells: dict[tuple[str, str, str], dict[str, dict]] = {}
    for r in rows:
        cells.setdefault((r["config"], r["stratum"], r["condition"]), {})[r["baseline"]] = r
    printed = _rows(_section(text, BASELINES_HEADING))
    assert len(printed) == len(cells)
    for line in printed:
        config, stratum, condition, n, majority, bound, loo, singletons, leakage, tau = line[:10]
        image_hit, object_hit, best_hit, region, keys = line[10:]
        b = cells[(config, stratum, condition)]
        if "center_click" in b:  # GUI suites: only the centre-click rate applies
            c = b["center_click"]
            assert config in GUI_CONFIGS and condition == "gui" and int(n) == c["n"]
            assert line[4:14] == ["—"] * 10
            refuse = f"; always refuse {_cell(b['always_refuse']['value'])}" if "always_refuse" in b else ""
            assert keys == f"center click {_cell(c['value'])}{refuse}"
            continue
        assert int(n) == b["text_only_blind_bound"]["n"] == b["majority_action"]["n"]
        m = b["majority_action"]
        assert majority == f"{_cell(m['value'])} ({m['detail']})"
        assert bound == _cell(b["text_only_blind_bound"]["value"])
        assert loo == _cell(b["text_only_blind_estimate_loo"]["value"])
        assert singletons == b["singleton_keys"]["detail"]
        assert leakage == ("**yes**" if b["text_only_blind_bound"]["leakage"] else "no")
        assert tau == _cell(b["localization_tau"]["value"])
        assert image_hit == _cell(b["image_center_hit_rate_at_tau"]["value"])
        assert object_hit == _cell(b["object_center_hit_rate_at_tau"]["value"])
        assert best_hit == _cell(b["best_constant_hit_rate_at_tau"]["value"])
        names = ("image_center", "object_center", "best_constant")
        geometry = b["image_center_in_target_region"]["detail"]
        rates = " / ".join(_cell(b[f"{name}_in_target_region"]["value"]) for name in names)
        assert region == f"{rates} ({geometry})"
        assert geometry in ("mask", "box") or geometry.startswith("mask (")
        assert keys == (", ".join(b["text_only_blind_bound"]["supplied_keys"]) or "(none)")
    # the majority baseline recomputed from the record rows themselves (not excluded, condition valid)
    for config in CONFIGS:
        records = [r for r in _expected(built, config)["rows"] if not r["excluded"]]
        for condition in {c for r in records for c in r["conditions"]}:
            scored = [r for r in records if condition in r["conditions"]]
            counts = Counter(r["target_action"] for r in scored)
            stratum = scored[0]["stratum"]
            assert cells[(config, stratum, condition)]["majority_action"]["value"] == pytest.approx(
                max(counts.values()) / len(scored)
            )


def test_conditions_per_stratum_follow_the_design(built: Path) -> None:
    text = (built / "data/groundbench/README.md").read_text()
    block = _section(text, "## Conditions")
    block = block[block.index("| config | stratum | valid conditions |") :]
    for config, stratum, valid in _rows(block):
        kinds = {r["render"]["kind"] for r in _expected(built, config)["rows"]}
        if stratum == "suite":  # GUI suites are scored by their own success rule
            assert valid == "(none)" and all(r["conditions"] == [] for r in _expected(built, config)["rows"])
            continue
        expected = set(HIGHLIGHT_SAFE) if kinds == {"highlighted"} else set(ALL_CONDITIONS)
        assert set(valid.split(", ")) == expected


def test_licences_and_citations_cover_every_source(built: Path) -> None:
    text = (built / "data/groundbench/README.md").read_text()
    entries = bibtex_entries()
    assert {
        "groundbench",
        "geng2023gapartnet",
        "xiang2020sapien",
        "myers2015affordance",
        "sacco2026pointerbench",
        "cheng2024seeclick",
        "li2025screenspotpro",
    } <= set(entries)
    for info in SOURCES.values():
        assert all(key in entries for key in info.citations)
    assert "NOT CATALOGUED" not in text
    licences = {row[1]: row for row in _rows(_section(text, "## Licences"))}
    assert licences["baselines"][0].startswith("GroundBench baselines") and "Apache-2.0" in licences["baselines"][2]
    for config in CONFIGS:
        for source in {r["source"] for r in _expected(built, config)["rows"]}:
            assert source_key(source) is not None
    for source in GUI_SOURCES:
        info = SOURCES[source]
        assert info.licence and info.citations and all(key in entries for key in info.citations)
    assert SOURCES["groundbench_gui"].citations == ()  # generated suites: nothing third-party to cite
    citation = _section(text, "## Citation")
    assert "@misc{groundbench," in citation and "@inproceedings{myers2015affordance," in citation
    dataset = yaml.safe_load((built / "params.yaml").read_text())["dataset"]
    year, version = str(dataset["date_published"])[:4], dataset["version"]
    assert f"year         = {{{year}}}" in citation and f"version      = {{{version}}}" in citation
    for key in ("sacco2026pointerbench", "cheng2024seeclick", "wu2025osatlas", "li2025screenspotpro"):
        assert key not in citation  # the GUI configs come from the generated sample: no GUI source was read
    assert "geng2023gapartnet" not in citation  # only sources that contributed rows are cited
    licences = {row[0]: row for row in _rows(_section(text, "## Licences"))}
    generated = licences[SOURCES["groundbench_gui"].title]
    assert set(generated[1].replace("`", "").split(", ")) == set(GUI_CONFIGS)


def test_croissant_validates_and_its_records_match_the_shards(built: Path, tmp_path: Path) -> None:
    import mlcroissant as mlc

    folder = built / "data/groundbench"
    assert validate_croissant(folder / "croissant.json") == []
    document = json.loads((folder / "croissant.json").read_text())
    assert document["version"] == yaml.safe_load((built / "params.yaml").read_text())["dataset"]["version"]
    objects = {d["contentUrl"]: d["sha256"] for d in document["distribution"] if d["@type"] == "cr:FileObject"}
    derived_files = sorted((folder / "data" / BASELINES).glob("*.parquet"))
    assert objects == {
        **{k: v for config in CONFIGS for k, v in _expected(built, config)["shards"].items()},
        **{f"data/{BASELINES}/{f.name}": hashlib.sha256(f.read_bytes()).hexdigest() for f in derived_files},
    }
    assert [r["name"] for r in document["recordSet"]] == [*CONFIGS, BASELINES]
    derived_set = document["recordSet"][-1]
    assert [f["name"] for f in derived_set["field"]] == list(BASELINE_FEATURES)
    assert derived_set["key"] == {"@id": f"{BASELINES}/baseline_id"}

    dataset = mlc.Dataset(jsonld=str(folder / "croissant.json"))  # straight from the published Parquet files
    for config in CONFIGS:
        records = list(dataset.records(config))
        table = _table(config, built)
        assert len(records) == table.num_rows
        ids = [r[f"{config}/example_id"].decode() for r in records]
        assert ids == table.column("example_id").to_pylist()
        for record, row in zip(records, table.drop_columns(["image"]).to_pylist(), strict=True):
            assert record[f"{config}/width"] == row["width"]
            assert record[f"{config}/excluded"] == row["excluded"]
            assert record[f"{config}/object_bbox_xyxy"] == row["object_bbox_xyxy"]
            assert [p.decode() for p in record[f"{config}/conditions"]] == row["conditions"]
            parts = record[f"{config}/parts"]
            assert [p[f"{config}/parts/part_id"].decode() for p in parts] == [p["part_id"] for p in row["parts"]]
            assert [p[f"{config}/parts/point_xy"] for p in parts] == [p["point_xy"] for p in row["parts"]]
            baselines = record[f"{config}/baselines"]
            assert baselines[f"{config}/baselines/image_center_distance"] == row["baselines"]["image_center_distance"]
            assert record[f"{config}/image"].size == (row["width"], row["height"])
    records = list(dataset.records(BASELINES))
    table = _table(BASELINES, built).to_pylist()
    assert len(records) == len(table)
    for record, row in zip(records, table, strict=True):
        assert record[f"{BASELINES}/baseline_id"].decode() == row["baseline_id"]
        value = record[f"{BASELINES}/value"]
        assert value == row["value"] or (row["value"] is None and (value is None or math.isnan(value)))
        assert record[f"{BASELINES}/n"] == row["n"]
        assert [k.decode() for k in record[f"{BASELINES}/supplied_keys"]] == row["supplied_keys"]


def test_check_card_passes_and_catches_a_hand_edit(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(built, "check-card") == 0
    readme = built / "data/groundbench/README.md"
    original = readme.read_text()
    try:
        edited = original.replace("| `curated_umd` | umd | curated |", "| `curated_umd` | umd | curated | x", 1)
        readme.write_text(edited)
        assert run_cli(built, "check-card") == 1
        assert "differs from the card regenerated" in capsys.readouterr().out
    finally:
        readme.write_text(original)


def test_card_links_the_local_gallery_and_the_check_accepts_the_published_form(built: Path) -> None:
    readme = built / "data/groundbench/README.md"
    original = readme.read_text()
    assert GALLERY_LINE in original.split("\n") and "local checkout" in GALLERY_LINE
    assert run_cli(built, "report", "--quiet") == 0
    target = (readme.parent / "../report/index.html").resolve()  # the link, resolved from the card
    assert target == (built / "data/report/index.html").resolve() and target.is_file()
    try:
        readme.write_text(original.replace(GALLERY_LINE, GALLERY_LINE_PUBLISHED))  # as `publish` uploads it
        assert run_cli(built, "check-card") == 0
    finally:
        readme.write_text(original)


def test_check_card_recomputes_the_baselines_config(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A baselines config that does not match the rows beside it is caught even when the card was
    written from it (card and Croissant agree with the wrong values; the recomputation does not)."""
    root = tmp_path / "tampered"
    shutil.copytree(built, root)
    computed = assemble_stage.baselines_table

    def wrong(root: Path, version: str) -> pa.Table:
        rows = computed(root, version).to_pylist()
        for row in rows:
            if row["baseline_id"] == "bulk_umd/bulk/image_only/majority_action":
                row["value"] = 0.5
        return pa.Table.from_pylist(rows, schema=baselines_arrow_schema(version))

    monkeypatch.setattr(assemble_stage, "baselines_table", wrong)  # what assemble publishes, card included
    assert run_cli(root, "assemble") == 0
    monkeypatch.undo()
    capsys.readouterr()
    assert run_cli(root, "check-card") == 1
    out = capsys.readouterr().out
    # image_only holds one row per frame: the grasp region's where the frame has one (28 of the 36 frames)
    assert "bulk_umd/bulk/image_only/majority_action: value: expected 0.7777777777777778, found 0.5" in out
    assert "differs from the card regenerated" not in out


def test_version_bump_writes_a_computed_changelog_and_stamps_everything(built: Path, tmp_path: Path) -> None:
    from groundbench.schemas.features import dataset_version_of

    root = tmp_path / "bump"
    shutil.copytree(built, root)
    before = datetime.datetime.now(datetime.UTC).date().isoformat()
    assert run_cli(root, "version", "bump", "minor") == 0  # first bump: no index for 0.1.0 yet
    assert "version: 0.2.0" in (root / "params.yaml").read_text()
    after = datetime.datetime.now(datetime.UTC).date().isoformat()
    # the new version's release date: the day the bump ran (either side of a midnight it straddles)
    assert str(yaml.safe_load((root / "params.yaml").read_text())["dataset"]["date_published"]) in {before, after}
    assert (root / "data/versions/0.2.0.rows.tsv.gz").is_file()
    # Change the data: drop one bulk row, alter one curated row, then bump again.
    shards = root / "data/shards"
    for config, edit in (("bulk_umd", "drop"), ("curated_umd", "alter")):
        path = sorted((shards / config).glob("*.arrow"))[0]
        table = ipc.open_file(str(path)).read_all()
        if edit == "drop":
            table = table.slice(1)
        else:
            ids = table.column("example_id").to_pylist()
            values = [1.0 if i == 0 else v for i, v in enumerate(table.column("width").to_pylist())]
            table = table.set_column(table.schema.get_field_index("width"), "width", pa.array(values, pa.int32()))
            assert ids
        with pa.OSFile(str(path), "wb") as sink, ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)
    assert run_cli(root, "version", "bump", "patch") == 0
    log = (root / "CHANGELOG-data.md").read_text()
    assert log.index("## 0.2.1") < log.index("## 0.2.0")
    entry = log[log.index("## 0.2.1") : log.index("## 0.2.0")]
    assert "| `bulk_umd` | 0 | 1 | 0 | 69 |" in entry and "| `curated_umd` | 0 | 0 | 1 | 4 |" in entry
    assert run_cli(root, "assemble") == 0
    card = DatasetCard.load(root / "data/groundbench/README.md")
    assert card.data.to_dict()["version"] == "0.2.1"
    assert json.loads((root / "data/groundbench/croissant.json").read_text())["version"] == "0.2.1"
    files = list((root / "data/groundbench/data").rglob("*"))
    assert files and all(f.suffix == ".parquet" for f in files if f.is_file())  # only Parquet data files
    for shard in (root / "data/groundbench/data").rglob("*.parquet"):
        assert dataset_version_of(pq.read_schema(shard)) == "0.2.1"


GAPARTNET_CONFIGS = ("bulk_gapartnet", "contrast_gapartnet", "counterfactual_gapartnet", "curated_gapartnet")
REASK_CONFIGS = ("contrast_gapartnet", "counterfactual_gapartnet")


@pytest.fixture(scope="module")
def built_gapartnet(tmp_path_factory: pytest.TempPathFactory, gapartnet_rendered: Path) -> Path:
    """The GAPartNet sample with both re-ask configs, built stage by stage as dvc.yaml does."""
    root = tmp_path_factory.mktemp("card_gapartnet") / "project"
    sample = gapartnet_rendered  # rendered once per test run; read only
    (root / "data" / "audits").mkdir(parents=True)
    shutil.copy(REPO / "data/audits/curated_gapartnet.yaml", root / "data/audits/curated_gapartnet.yaml")
    shutil.copy(REPO / "data/audits/contrast_pool.yaml", root / "data/audits/contrast_pool.yaml")
    for lock in ("requirements.lock", "requirements-build.lock"):  # the card records what built it
        shutil.copy(REPO / lock, root / lock)
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params["sources"]["umd"] = None
    params["sources"]["gapartnet"] = {"assets": str(sample / "assets"), "renders": str(sample / "renders")}
    params["gapartnet"]["workers"] = 1
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    assert run_cli(root, "convert", "gapartnet", "--quiet") == 0
    assert run_cli(root, "derive", "counterfactual", "--quiet") == 0
    assert run_cli(root, "derive", "contrast", "--quiet") == 0
    assert run_cli(root, "bake", *GAPARTNET_CONFIGS) == 0
    assert run_cli(root, "store") == 0 and run_cli(root, "assemble") == 0
    return root


def _reask_tables(text: str) -> list[list[list[str]]]:
    """The re-ask section's tables (summary, rows per object, transitions), each as rows of cells."""
    block = _section(text, "## Re-asks")
    tables: list[list[str]] = []
    current: list[str] = []
    for line in block.splitlines():
        if line.startswith("|"):
            current.append(line)
        elif current:
            tables.append(current)
            current = []
    if current:
        tables.append(current)
    return [_rows("\n".join(t)) for t in tables]


def test_every_number_in_the_gapartnet_card_equals_the_shards(built_gapartnet: Path) -> None:
    _check_every_number(built_gapartnet, GAPARTNET_CONFIGS)
    assert run_cli(built_gapartnet, "check-card") == 0


def test_reask_numbers_in_the_card_equal_the_shards_and_the_summaries(built_gapartnet: Path) -> None:
    text = (built_gapartnet / "data/groundbench/README.md").read_text()
    summary_table, per_object, transitions = _reask_tables(text)
    assert [row[0] for row in summary_table] == list(REASK_CONFIGS)
    for config in REASK_CONFIGS:
        rows = _expected(built_gapartnet, config)["rows"]
        kept = [r for r in rows if not r["excluded"]]
        informative = sum(r["extras"]["reask"]["informative"] for r in rows)
        objects = Counter(r["object_id"] for r in rows)
        expected = [
            config,
            str(len(rows)),
            str(len(objects)),
            str(informative),
            f"{informative / len(rows):.4f}",
            str(len(rows) - len(kept)),
            str(len({r["object_id"] for r in kept})),
            str(len(kept)),
        ]
        assert next(row for row in summary_table if row[0] == config) == expected
        got = {row[1]: row[2:] for row in per_object if row[0] == config}
        assert got == {
            o: [
                str(n),
                str(sum(r["extras"]["reask"]["informative"] for r in rows if r["object_id"] == o)),
                str(sum(r["excluded"] for r in rows if r["object_id"] == o)),
            ]
            for o, n in objects.items()
        }
        all_t = Counter(r["extras"]["reask"]["transition"] for r in rows)
        pool_t = Counter(r["extras"]["reask"]["transition"] for r in kept)
        got_t = {row[1]: (int(row[2]), int(row[3])) for row in transitions if row[0] == config}
        assert got_t == {t: (n, pool_t[t]) for t, n in all_t.items()}
        # the stage's own summary agrees with the shards and the card
        folder = "gapartnet_" + config.split("_")[0]
        summary = json.loads((built_gapartnet / "data/interim" / folder / "summary.json").read_text())
        assert [summary["rows"], summary["informative"], summary["pool"]["objects"], summary["pool"]["pairs"]] == [
            len(rows),
            informative,
            int(expected[6]),
            int(expected[7]),
        ]
    curated = _expected(built_gapartnet, "curated_gapartnet")["rows"]
    single = sorted(r["object_id"] for r in curated if len(r["parts"]) == 1)
    assert single == ["900004", "900005"]
    assert f"with a single candidate part yield no re-ask: {', '.join(single)}" in text
    # curated keeps the planted wrong-frame target, flagged; the other configs exclude its mismatches
    flags = {(c, f): int(n) for c, f, n in _rows(_section(text, "## Flags"))}
    assert flags[("curated_gapartnet", "box_projection_mismatch")] == 1
    assert ("bulk_gapartnet", "box_projection_mismatch") not in flags
    assert "`data/audits/contrast_pool.yaml`" in text


def test_croissant_yields_every_record_set_of_the_gapartnet_build(built_gapartnet: Path) -> None:
    """The nested `extras` struct (a list of structs inside a struct) and the prompts load through mlcroissant."""
    import mlcroissant as mlc

    folder = built_gapartnet / "data/groundbench"
    assert validate_croissant(folder / "croissant.json") == []
    dataset = mlc.Dataset(jsonld=str(folder / "croissant.json"))
    for config in (*GAPARTNET_CONFIGS, BASELINES):
        records = list(dataset.records(config))
        table = _table(config, built_gapartnet)
        assert len(records) == table.num_rows > 0
        if config == BASELINES:
            assert [r[f"{config}/baseline_id"].decode() for r in records] == table.column("baseline_id").to_pylist()
            continue
        for record, row in zip(records, table.drop_columns(["image"]).to_pylist(), strict=True):
            assert record[f"{config}/example_id"].decode() == row["example_id"]
            parts = record[f"{config}/extras/gapartnet/parts"]
            key = f"{config}/extras/gapartnet/parts/part_id"
            assert [p[key].decode() for p in parts] == [p["part_id"] for p in row["extras"]["gapartnet"]["parts"]]
            gapartnet = record[f"{config}/extras/gapartnet"]
            assert gapartnet[f"{config}/extras/gapartnet/view_id"].decode() == row["extras"]["gapartnet"]["view_id"]
            texts = [p[f"{config}/prompts/text"].decode() for p in record[f"{config}/prompts"]]
            assert texts == [p["text"] for p in row["prompts"]]
            if row["extras"]["reask"] is not None:
                reask = record[f"{config}/extras/reask"]
                assert reask[f"{config}/extras/reask/pair_id"].decode() == row["extras"]["reask"]["pair_id"]
            assert record[f"{config}/image"].size == (row["width"], row["height"])


def test_field_descriptions_come_from_the_schema(built: Path) -> None:
    from groundbench.schemas.baselines_features import BASELINE_DOC
    from groundbench.schemas.features import PUBLISHED_FEATURES, description

    document = json.loads((built / "data/groundbench/croissant.json").read_text())

    def walk(fields: list[dict], config: str) -> list[str]:
        paths = []
        for field in fields:
            path = field["@id"].removeprefix(f"{config}/").replace("/", ".")
            expected = BASELINE_DOC.get(path) if config == BASELINES else description(path)
            assert expected and field["description"] == expected, path
            paths.append(path)
            paths += walk(field.get("subField", []), config)
        return paths

    for record_set in document["recordSet"]:
        walk(record_set["field"], record_set["name"])
    assert document["datePublished"] and document["url"].startswith("https://")
    assert document["license"] and any(key.startswith("rai:") for key in document)
    # the card's Data Fields table lists exactly the published fields, with the same descriptions
    text = (built / "data/groundbench/README.md").read_text()
    table = {row[0]: row for row in _rows(_section(text, "## Data Fields"))}
    expected: list[str] = []

    def dotted(prefix: str, feature: object) -> None:
        from groundbench.schemas.types import List

        for name, sub in feature.items():  # type: ignore[attr-defined]
            path = f"{prefix}.{name}" if prefix else name
            expected.append(path)
            inner = sub.feature if isinstance(sub, List) else sub
            if isinstance(inner, dict):
                dotted(path, inner)

    dotted("", PUBLISHED_FEATURES)
    assert list(table) == expected
    assert all(table[path][2] == description(path).replace("|", "/") for path in expected)


def test_check_card_catches_a_changed_teaser(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    teaser = built / "data/groundbench/assets/teaser.png"
    original = teaser.read_bytes()
    assert original.startswith(b"\x89PNG") and "(assets/teaser.png)" in (teaser.parents[1] / "README.md").read_text()
    try:
        teaser.write_bytes(original + b"x")
        assert run_cli(built, "check-card") == 1
        assert "teaser.png: missing or differs" in capsys.readouterr().out
    finally:
        teaser.write_bytes(original)
