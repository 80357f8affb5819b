"""Parse one UMD frame and build its records (pure apart from reading the frame's own files)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from groundbench.converters.umd.labels import parse_label, parse_rank
from groundbench.converters.umd.layout import Frame
from groundbench.converters.umd.regions import Region, labelled_rect, object_box, regions_of, secondary_actions
from groundbench.converters.umd.splits import ToolSplits
from groundbench.converters.umd.version import CONVERTER, CONVERTER_VERSION
from groundbench.converters.umd.vocab import UMD_CATEGORIES, UMD_LABELS
from groundbench.core.images import ImageInfo, inspect_image
from groundbench.core.manifests import ManifestEntry, Producer, sha256_bytes
from groundbench.core.paths import relative_to
from groundbench.errors import GroundBenchError
from groundbench.schemas.conditions import valid_conditions
from groundbench.schemas.features import new_record

SOURCE = "umd"


@dataclass(frozen=True)
class ParsedFrame:
    """What the records of one frame need; label arrays stay in the worker."""

    frame: Frame
    rgb: bytes
    image: ImageInfo
    source_paths: tuple[str, ...]
    source_sha256: tuple[str, ...]
    gt_type: str | None
    regions: tuple[Region, ...]
    object_box: tuple[float, float, float, float] | None
    secondary: dict[str, tuple[str, ...]]  # action -> lower-ranked actions (every frame with a rank file)

    @property
    def hand_labelled(self) -> bool:
        if self.gt_type is not None:
            return self.gt_type == "manual"
        return self.frame.index % 3 == 1  # README: every third frame, starting at frame 1

    def area_of(self, action: str) -> int:
        return next((r.area for r in self.regions if r.action == action), 0)


def parse_frame(root: Path, frame: Frame, max_pixels: int, with_ranks: bool = True) -> ParsedFrame:
    """Read a frame's files: RGB header, depth header, label map and, when present, the rank map.

    ``with_ranks=False`` hashes the rank file without decoding it (the curated frame choice needs
    only areas); every row that is written carries the secondary affordances its rank file gives.
    """
    rgb = frame.rgb.read_bytes()
    rgb_rel = relative_to(root, frame.rgb)
    image = inspect_image(rgb, rgb_rel, max_pixels)
    if image.format != "JPEG":
        raise GroundBenchError(rgb_rel, "image format", f"expected JPEG, got {image.format}")
    shape = (image.height, image.width)
    paths = [rgb_rel]
    hashes = [sha256_bytes(rgb)]
    if frame.depth is not None:
        depth = frame.depth.read_bytes()
        depth_rel = relative_to(root, frame.depth)
        info = inspect_image(depth, depth_rel, max_pixels)
        if info.format != "PNG" or (info.height, info.width) != shape:
            raise GroundBenchError(
                depth_rel,
                "depth",
                f"expected a {shape[1]}x{shape[0]} PNG, got {info.format} {info.width}x{info.height}",
            )
        paths.append(depth_rel)
        hashes.append(sha256_bytes(depth))
    label_bytes = frame.label.read_bytes()
    label_rel = relative_to(root, frame.label)
    label = parse_label(label_bytes, label_rel, shape)
    paths.append(label_rel)
    hashes.append(sha256_bytes(label_bytes))
    rect = labelled_rect(label.labels)  # the object's box, shared by regions_of and the record
    secondary: dict[str, tuple[str, ...]] = {}
    if frame.rank is not None:
        rank_bytes = frame.rank.read_bytes()
        rank_rel = relative_to(root, frame.rank)
        paths.append(rank_rel)
        hashes.append(sha256_bytes(rank_bytes))
        if with_ranks:
            ranks = parse_rank(rank_bytes, rank_rel, shape)
            x, y, w, h = rect  # every labelled pixel lies in the object's box: compare there only
            labels, box_ranks = label.labels[y : y + h, x : x + w], ranks[y : y + h, x : x + w]
            present = np.unique(labels)
            secondary = {UMD_LABELS[int(k)]: secondary_actions(labels, box_ranks, int(k)) for k in present if k > 0}
    return ParsedFrame(
        frame=frame,
        rgb=rgb,
        image=image,
        source_paths=tuple(paths),
        source_sha256=tuple(hashes),
        gt_type=label.gt_type,
        regions=tuple(regions_of(label.labels, rect)),
        object_box=object_box(rect),
        secondary=secondary,
    )


def manifest_entry(parsed: ParsedFrame) -> ManifestEntry:
    return ManifestEntry(
        sha256=parsed.source_sha256[0],
        bytes=len(parsed.rgb),
        width=parsed.image.width,
        height=parsed.image.height,
        format=parsed.image.format,
        source_path=parsed.source_paths[0],
        producer=Producer(name=CONVERTER, version=CONVERTER_VERSION),
    )


def _part(region: Region, secondary: tuple[str, ...]) -> dict[str, object]:
    # A region's box is its mask's tight box: the visible box; UMD has no 3-D box to project.
    return {
        "part_id": region.action,
        "category": f"{region.action}_region",
        "action": region.action,
        "bbox_xyxy": list(region.bbox_xyxy),
        "point_xy": list(region.point_xy),
        "box_quality": "from-mask",
        "joint_type": "rigid",
        "motion_axis_3d": [],
        "motion_axis_2d": list(region.axis_xy),
        "mask_area": region.area,
        "secondary_actions": list(secondary),
        "visible_bbox_xyxy": list(region.bbox_xyxy),
        "projected_bbox_xyxy": None,
        "mask_pieces": region.pieces,
        "mask_rle": list(region.mask_rle),
    }


def region_flags(region: Region, min_region_pixels: int) -> list[str]:
    """Informational flags of a target region (rows are kept): split into pieces, below the pixel floor."""
    flags = []
    if region.pieces >= 2:
        flags.append("region_split")
    if region.area < min_region_pixels:
        flags.append("below_pixel_floor")
    return flags


def _record(
    parsed: ParsedFrame,
    splits: ToolSplits,
    example_id: str,
    stratum: str,
    target: Region,
    min_region_pixels: int,
    conditions: tuple[str, ...] | None = None,
) -> dict[str, object]:
    frame = parsed.frame
    return new_record(
        example_id=example_id,
        source=SOURCE,
        stratum=stratum,
        object_id=frame.tool,
        object_category=frame.category,
        image={"bytes": parsed.rgb, "path": f"{parsed.source_sha256[0]}.{parsed.image.extension}"},
        image_sha256=parsed.source_sha256[0],
        width=parsed.image.width,
        height=parsed.image.height,
        render={"kind": "photo", "highlighted_part_id": None, "camera": None},
        object_bbox_xyxy=list(parsed.object_box) if parsed.object_box else None,
        parts=[_part(r, parsed.secondary.get(r.action, ())) for r in parsed.regions],
        target_part_id=target.action,
        target_action=target.action,
        conditions=list(valid_conditions(stratum, "photo") if conditions is None else conditions),
        flags=region_flags(target, min_region_pixels),
        provenance={
            "source_paths": list(parsed.source_paths),
            "source_sha256": list(parsed.source_sha256),
            "converter": CONVERTER,
            "converter_version": CONVERTER_VERSION,
        },
        extras={
            "umd": {
                "tool_id": frame.tool,
                "frame_index": frame.index,
                "labelling": "hand" if parsed.hand_labelled else "automatic",
                "labelling_evidence": "gt_type" if parsed.gt_type is not None else "frame_rule",
                "category_id": splits.category_id or UMD_CATEGORIES[frame.category],
                "category_split": splits.category_split,
                "novel_split": splits.novel_split,
                "heldout_folds": list(splits.heldout_folds),
                "has_label_rank": frame.rank is not None,
                "skipped_files": list(frame.skipped),
            }
        },
    )


# Conditions that name no target (task-free): the same image and prompt for every row of a frame.
TASK_FREE_CONDITIONS = ("image_only", "object_named")


def task_free_row(regions: tuple[Region, ...] | list[Region]) -> Region:
    """The one region of a frame whose row keeps the task-free conditions: the grasp region (the
    curated stratum's target) when the frame has one, else the first region in example-id order."""
    grasp = [r for r in regions if r.action == "grasp"]
    return grasp[0] if grasp else min(regions, key=lambda r: r.action)


def bulk_records(parsed: ParsedFrame, splits: ToolSplits, min_region_pixels: int) -> list[dict[str, object]]:
    """One row per affordance region present in the frame; every region is a candidate part.

    ``image_only`` and ``object_named`` supply no target, so the frame's rows would all ask the same
    prompt about the same image while hiding different targets: they are valid on one row per frame
    only (:func:`task_free_row`); the other rows keep the conditions that name or show their target.
    """
    frame = parsed.frame
    prefix = f"umd/bulk/{frame.tool}/{frame.index:08d}"
    every = valid_conditions("bulk", "photo")
    targeted = tuple(c for c in every if c not in TASK_FREE_CONDITIONS)
    keeper = task_free_row(parsed.regions) if parsed.regions else None
    return [
        _record(
            parsed,
            splits,
            f"{prefix}/{region.action}",
            "bulk",
            region,
            min_region_pixels,
            every if region is keeper else targeted,
        )
        for region in parsed.regions
    ]


def curated_record(parsed: ParsedFrame, splits: ToolSplits, min_region_pixels: int) -> dict[str, object]:
    """The tool's representative frame; target = the grasp region, its point verified in the mask."""
    grasp = next((r for r in parsed.regions if r.action == "grasp"), None)
    if grasp is None:
        raise GroundBenchError(parsed.source_paths[-1], "gt_label", f"{parsed.frame.stem} has no grasp region")
    if not grasp.point_in_mask:
        raise GroundBenchError(parsed.source_paths[-1], "gt_label", f"grasp point {grasp.point_xy} outside the mask")
    return _record(parsed, splits, f"umd/curated/{parsed.frame.tool}", "curated", grasp, min_region_pixels)
