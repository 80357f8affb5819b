"""Hand-made rows that exercise what the UMD build lacks: re-asks, excluded rows with tags, box
qualities other than from-mask, highlighted renders, GUI rows (instruction, answer type, neighbours),
and a row without an image. Built with the real schema (``new_record`` + ``arrow_schema``)."""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import yaml
from PIL import Image, ImageDraw

from groundbench.schemas.features import arrow_schema, new_record

if TYPE_CHECKING:
    from groundbench.review.report.build import ConfigSource


def _png(width: int, height: int, shapes: list[tuple[list[float], tuple[int, int, int]]]) -> bytes:
    image = Image.new("RGB", (width, height), (210, 215, 225))
    draw = ImageDraw.Draw(image)
    for box, color in shapes:
        draw.rectangle(box, fill=color)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _part(part_id: str, category: str, action: str, box: list[float], quality: str, joint: str) -> dict[str, Any]:
    return {
        "part_id": part_id,
        "category": category,
        "action": action,
        "bbox_xyxy": box,
        "point_xy": [(box[0] + box[2]) / 2, (box[1] + box[3]) / 2],
        "box_quality": quality,
        "joint_type": joint,
        "motion_axis_3d": [],
        "motion_axis_2d": [],
        "mask_area": None,
        "secondary_actions": [],
    }


CABINET_PARTS = [
    _part("link_0", "hinge_door", "pull", [40.0, 40.0, 200.0, 300.0], "exact", "revolute"),
    _part("link_1", "slider_drawer", "pull", [220.0, 40.0, 380.0, 150.0], "approximate", "prismatic"),
    _part("link_2", "slider_button", "push", [300.0, 200.0, 330.0, 230.0], "exact", "prismatic"),
]


def _cabinet(example_id: str, stratum: str, **fields: Any) -> dict[str, Any]:
    image = _png(400, 320, [([40, 40, 200, 300], (150, 110, 80)), ([220, 40, 380, 150], (120, 90, 70))])
    base: dict[str, Any] = {
        "example_id": example_id,
        "source": "gapartnet",
        "stratum": stratum,
        "object_id": "StorageFurniture_45135",
        "object_category": "StorageFurniture",
        "image": {"bytes": image, "path": None},
        "image_sha256": "0" * 64,
        "width": 400,
        "height": 320,
        "render": {"kind": "clean", "highlighted_part_id": None, "camera": None},
        "object_bbox_xyxy": [30.0, 30.0, 390.0, 310.0],
        "parts": CABINET_PARTS,
        "target_part_id": "link_0",
        "target_action": "pull",
    }
    base.update(fields)
    return new_record(**base)


def gapartnet_rows() -> list[dict[str, Any]]:
    return [
        _cabinet(
            "gapartnet/bulk/45135/link_1",
            "bulk",
            target_part_id="link_1",
            render={"kind": "highlighted", "highlighted_part_id": "link_1", "camera": None},
            exclusion_tags=["box_projection_mismatch"],
            excluded=True,
        ),
        _cabinet(
            "gapartnet/bulk/45135/link_2",
            "bulk",
            target_part_id="link_2",
            target_action="push",
            render={"kind": "highlighted", "highlighted_part_id": "link_2", "camera": None},
        ),
        _cabinet(
            "gapartnet/counterfactual/45135/link_2",
            "counterfactual",
            target_part_id="link_2",
            target_action="push",
            original_target_part_id="link_0",
            original_action="pull",
        ),
        _cabinet("gapartnet/curated/45135", "curated"),
        _cabinet(
            "gapartnet/curated/45136",
            "curated",
            image=None,
            object_id="StorageFurniture_45136",
            exclusion_tags=["no_render", "closed_pose_ambiguous"],
            excluded=True,
        ),
    ]


def gui_rows() -> list[dict[str, Any]]:
    image = _png(
        800,
        500,
        [([0, 0, 800, 40], (60, 60, 70)), ([600, 8, 690, 32], (40, 120, 220)), ([700, 8, 790, 32], (200, 200, 200))],
    )
    parts = [
        _part("target", "button", "none", [600.0, 8.0, 690.0, 32.0], "exact", "none"),
        _part("neighbour_1", "button", "none", [700.0, 8.0, 790.0, 32.0], "exact", "none"),
        _part("neighbour_2", "text", "none", [20.0, 10.0, 200.0, 30.0], "approximate", "none"),
    ]
    rows = []
    for number, answer in enumerate(("point", "box")):
        rows.append(
            new_record(
                example_id=f"gui/sheets/{number:04d}",
                source="groundbench_gui",
                stratum="suite",
                object_id=f"sheet_{number}",
                object_category="spreadsheet",
                image={"bytes": image, "path": None},
                image_sha256="1" * 64,
                width=800,
                height=500,
                render={"kind": "screenshot", "highlighted_part_id": None, "camera": None},
                parts=parts,
                target_part_id="target",
                target_action="none",
                instruction="Click the Share button in the top bar",
                answer_type=answer,
                success_rule={
                    "kind": "point_in_box" if answer == "point" else "box_overlap",
                    "coverage_min": None if answer == "point" else 0.5,
                    "precision_min": None if answer == "point" else 0.5,
                },
            )
        )
    return rows


def table(rows: list[dict[str, Any]]) -> pa.Table:
    return pa.Table.from_pylist(rows, schema=arrow_schema())


def build_umd_project(root: Path, umd_sample: Path) -> Path:
    """A project root whose UMD source is the embedded sample, converted and baked (one worker); made once
    per test run, copied to ``root`` for the others (tests/support/builds.py)."""
    from tests.conftest import REPO, run_cli
    from tests.support.builds import run_stages

    (root / "data" / "audits").mkdir(parents=True)
    shutil.copy(REPO / "data" / "audits" / "curated_umd.yaml", root / "data" / "audits" / "curated_umd.yaml")
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params["sources"]["umd"] = str(umd_sample)
    params["umd"]["workers"] = 1
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    stages = (("convert", "umd", "--quiet"), ("bake", "curated_umd", "bulk_umd"), ("assemble",))
    run_stages(root, stages, lambda where, command: run_cli(where, *command))  # preview/sheet read the published folder
    return root


def build_gapartnet_project(root: Path, rendered: Path) -> Path:
    """Add the GAPartNet sample (CPU-rendered, as `make build` has it; ``rendered`` is the run's one rendering,
    what `groundbench sample gapartnet` writes) converted and baked to ``root``: curated_gapartnet and
    bulk_gapartnet with the planted box_projection_mismatch rows."""
    from tests.conftest import REPO, run_cli
    from tests.support.builds import copy_tree

    (root / "data" / "audits").mkdir(parents=True, exist_ok=True)
    audit = Path("data") / "audits" / "curated_gapartnet.yaml"
    shutil.copy(REPO / audit, root / audit)
    params = yaml.safe_load((root / "params.yaml").read_text())
    params["sources"]["gapartnet"] = {"assets": "sample", "renders": "sample"}
    params["gapartnet"]["workers"] = 1
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    copy_tree(rendered, root / params["sample"]["root"] / "gapartnet")
    assert run_cli(root, "convert", "gapartnet", "--quiet") == 0
    assert run_cli(root, "bake", "curated_gapartnet", "bulk_gapartnet") == 0
    return root


def built_sources(root: Path, names: tuple[str, ...]) -> list[ConfigSource]:
    """Built configs of the project at ``root`` as the report stage reads them: shards, and each image's path
    in the store from the config's manifest."""
    from groundbench.core.manifests import read_manifest
    from groundbench.core.registry import BY_NAME
    from groundbench.review.report.build import ConfigSource

    sources = []
    for name in names:
        manifest = read_manifest(root / "data/manifests" / f"{name}.jsonl")
        images = {sha: entry.store_path() for sha, entry in manifest.items()}
        info = BY_NAME[name]
        sources.append(ConfigSource(name, info.stratum, info.source, root / "data/shards" / name, images))
    return sources


def gapartnet_sources(root: Path) -> list[ConfigSource]:
    """The built GAPartNet configs of a project made by :func:`build_gapartnet_project`."""
    return built_sources(root, ("curated_gapartnet", "bulk_gapartnet"))


def handmade_sources(root: Path) -> list[ConfigSource]:
    """The hand-made rows as two configs the report reads like built ones: shards written by the pipeline's
    ShardWriter under ``root/handmade/``, their images in the store ``root/data/images`` where the store stage
    puts an image (a manifest entry's ``store_path``)."""
    from groundbench.core.manifests import ManifestEntry, Producer
    from groundbench.core.shards import ShardWriter
    from groundbench.review.report.build import ConfigSource

    sources = []
    for name, stratum, source, rows in (
        ("handmade_gapartnet", "bulk", "gapartnet", gapartnet_rows()),
        ("handmade_gui", "suite", "groundbench_gui", gui_rows()),
    ):
        folder = root / "handmade" / name
        folder.parent.mkdir(parents=True, exist_ok=True)
        with ShardWriter(folder, 2**28, 256) as writer:
            for row in rows:
                writer.add(row)
        images = {}
        for row in rows:
            data = (row.get("image") or {}).get("bytes")
            if data:
                sha = row["image_sha256"]
                entry = ManifestEntry(sha, len(data), row["width"], row["height"], "PNG", "", Producer("tests", "0"))
                (root / "data/images" / entry.store_path()).parent.mkdir(parents=True, exist_ok=True)
                (root / "data/images" / entry.store_path()).write_bytes(data)
                images[sha] = entry.store_path()
        sources.append(ConfigSource(name, stratum, source, folder, images))
    return sources


def gallery_sources(root: Path) -> list[ConfigSource]:
    """The built UMD configs plus hand-made ones (mixed GAPartNet-like strata, a GUI suite). The project's
    image store must be built first (`groundbench store`): the hand-made images are added to it."""
    return built_sources(root, ("curated_umd", "bulk_umd")) + handmade_sources(root)
