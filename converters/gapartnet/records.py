"""Analyse one object's views and build its records (pure apart from reading the object's own files).

Instance ids are tied to links by evidence (``instances.py``: the bbox pickle, else masks matched to
projected boxes). Per view and visible GAPart: pose its rest box to the view's ``joint_qpos``,
project it, and check it against the part's own instance mask (automatic box verification, the
paper's "draw the box and look" done for every row). Every part keeps both boxes: the visible box
(tight box of its mask, ``visible_bbox_xyxy``) and the projected box (amodal,
``projected_bbox_xyxy``); ``bbox_xyxy`` is the best honest one of the two:

* ``exact`` when the projection covers the mask (at least ``coverage_min`` of its pixels) and its
  IoU with the visible box is at least ``iou_min``: the projected box is used;
* ``from-mask`` otherwise: the visible box is used. When the projection misses the mask
  (``mismatch``: the box is in another frame, e.g. GAPartNet's slider_button boxes) a bulk,
  counterfactual or contrast row is tagged ``box_projection_mismatch`` and excluded, while a curated
  row keeps its audited target with the mask's box and the same name as an informational flag.

Parts never visible in any view, or whose largest mask stays below ``min_mask_pixels``, yield no
bulk row; every row of the object lists them (``extras.gapartnet.left_out``) with the reason.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from groundbench.converters.gapartnet.actions import GAPARTNET_ACTIONS_VERSION, action_of
from groundbench.converters.gapartnet.annotations import LinkAnnotation, parse_link_annotations
from groundbench.converters.gapartnet.audit import AuditEntry
from groundbench.converters.gapartnet.geometry import (
    Box,
    link_transforms,
    mask_coverage,
    motion_axis_in_view,
    pose_corners,
    projected_box,
)
from groundbench.converters.gapartnet.instances import Assignment, assign_by_overlap, from_pickle
from groundbench.converters.gapartnet.layout import LINK_ANNOTATION, URDF, ObjectFolder, View
from groundbench.converters.gapartnet.mechanics import Mechanics, mechanics_of
from groundbench.converters.gapartnet.params import GapartnetParams
from groundbench.converters.gapartnet.urdf import Urdf, parse_urdf
from groundbench.converters.gapartnet.version import CONVERTER, CONVERTER_VERSION
from groundbench.converters.gapartnet.views import (
    ViewMeta,
    parse_bbox_pickle,
    parse_metafile,
    parse_segmentation,
)
from groundbench.core.geometry import box_iou, interior_point, mask_box
from groundbench.core.images import inspect_image
from groundbench.core.manifests import ManifestEntry, Producer, sha256_bytes
from groundbench.core.paths import relative_to
from groundbench.errors import GroundBenchError
from groundbench.schemas.conditions import valid_conditions
from groundbench.schemas.features import new_record
from groundbench.schemas.mask_rle import encode_in_box

SOURCE = "gapartnet"
MISMATCH_TAG = "box_projection_mismatch"
AMBIGUOUS_TAG = "instance_ambiguous"
AUDIT_EXCLUDED_TAG = "audit_excluded"
SPLIT_FLAG = "region_split"
FLOOR_FLAG = "below_pixel_floor"
NEVER_VISIBLE = "never_visible"
BELOW_FLOOR = "below_floor"
HIGHLIGHT_COLOUR = (255, 40, 40)
# Every bulk row is a new highlighted image, so its encoding dominates the conversion. Measured on
# 800x800 images (docs/benchmark.md): Pillow's PNG encoder tries every row filter on every row, which
# costs more than the deflate itself at a low level. OpenCV's libpng with the Up filter alone and
# zlib level 1 encodes a flat render ~3.7x and a photograph ~1.6x faster than Pillow at level 1, at
# about the same size (+11% / -4%). The bytes are those of the libpng and zlib the pinned
# opencv-python-headless wheel bundles: deterministic for the lock file; another build writes other
# (equally valid, same pixels) bytes.
HIGHLIGHT_PNG_PARAMS = (cv2.IMWRITE_PNG_COMPRESSION, 1, cv2.IMWRITE_PNG_FILTER, cv2.IMWRITE_PNG_FILTER_UP)
HIGHLIGHT_METHOD = (
    "target instance mask blended 50% with RGB(255,40,40) (rounded half up), its inner boundary "
    "(mask minus its 3x3 erosion) painted RGB(255,0,0); PNG by OpenCV (libpng), filter Up, zlib level 1"
)


@dataclass(frozen=True)
class PartInView:
    link: str
    category: str
    instance_id: int
    area: int
    bbox: Box
    point: tuple[float, float]
    quality: str
    projected: Box | None
    iou: float
    coverage: float
    mismatch: bool
    mechanics: Mechanics
    axis_camera: tuple[float, ...]
    axis_2d: tuple[float, ...]
    visible: Box | None = None  # tight box of the mask; None without a mask
    pieces: int | None = None  # connected pieces of the mask (8-connectivity); None without a mask
    assignment: str | None = None  # how the instance id was tied to the link (instances.py)
    overlap: float | None = None
    ambiguous: bool = False
    mask_rle: tuple[int, ...] | None = None  # the mask over ``visible`` (schemas/mask_rle.py); None without a mask


@dataclass
class AnalysedView:
    view: View
    meta: ViewMeta
    rgb: bytes
    rgb_rel: str
    paths: list[str]
    hashes: list[str]
    parts: list[PartInView]
    object_box: Box | None
    masks: dict[str, np.ndarray] = field(default_factory=dict)
    unassigned: tuple[int, ...] = ()  # instance ids with pixels that no part's box reached


@dataclass(frozen=True)
class Task:
    assets: Path
    renders: Path
    obj: ObjectFolder
    views: tuple[View, ...]
    audit: AuditEntry | None
    audit_path: str
    settings: GapartnetParams


@dataclass
class ObjectResult:
    object_id: str
    bulk: list[dict[str, object]]
    curated: list[dict[str, object]]
    manifest_bulk: dict[str, ManifestEntry]
    manifest_curated: dict[str, ManifestEntry]
    parts: list[tuple[str, str, str, bool]]  # (part class, action, box quality, mismatch) per bulk row
    views: int
    left_out: list[dict[str, object]] = field(default_factory=list)  # extras.gapartnet.left_out
    unassigned: int = 0  # instance masks (over all views) that no part's box reached


def _read(root: Path, path: Path) -> tuple[bytes, str]:
    return path.read_bytes(), relative_to(root, path)


def _posed_boxes(
    meta: ViewMeta, annotations: tuple[LinkAnnotation, ...], rest: dict[str, np.ndarray], posed: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """Posed world corners of every annotated GAPart at the view's pose."""
    return {
        a.link_name: pose_corners(a.bbox, rest[a.link_name], posed[a.link_name])
        for a in annotations
        if a.is_gapart and a.bbox is not None and a.link_name in rest
    }


def instance_assignment(
    view: View,
    renders: Path,
    meta: ViewMeta,
    corners: dict[str, np.ndarray],
    instance: np.ndarray,
    settings: GapartnetParams,
) -> Assignment:
    """Instance id -> link: from ``bbox/<view>.pkl`` when present, else by mask-to-projected-box overlap."""
    if "bbox" in view.files:
        data, rel = _read(renders, view.files["bbox"])
        return from_pickle({p.instance_id: link for link, p in parse_bbox_pickle(data, rel).items()})
    ids = sorted(int(i) for i in np.unique(instance) if i >= 0)
    if ids and len(ids) > len(corners):
        raise GroundBenchError(
            view.name, "instance_segmentation", f"{len(ids)} instances but only {len(corners)} GAParts"
        )
    masks = {}
    for i in ids:
        rows, cols = np.nonzero(instance == i)
        masks[i] = (rows, cols)
    boxes = {link: projected_box(meta.camera, c) for link, c in corners.items()}
    shape = (meta.height, meta.width)
    return assign_by_overlap(masks, boxes, shape, settings.instance_coverage_min, settings.instance_ambiguity_margin)


def mask_pieces(mask: np.ndarray) -> int:
    """Connected pieces of a mask (8-connectivity), counted on the mask's own box."""
    x, y, w, h = cv2.boundingRect(mask.view(np.uint8))
    count, _ = cv2.connectedComponents(np.ascontiguousarray(mask[y : y + h, x : x + w]).view(np.uint8), connectivity=8)
    return int(count) - 1


def analyse_view(task: Task, urdf: Urdf, annotations: tuple[LinkAnnotation, ...], view: View) -> AnalysedView:
    renders, settings = task.renders, task.settings
    meta_bytes, meta_rel = _read(renders, view.files["metafile"])
    meta = parse_metafile(meta_bytes, meta_rel)
    rgb, rgb_rel = _read(renders, view.files["rgb"])
    info = inspect_image(rgb, rgb_rel, settings.max_image_pixels)
    shape = (meta.height, meta.width)
    if (info.height, info.width) != shape or info.format != "PNG":
        raise GroundBenchError(
            rgb_rel, "image", f"expected a {meta.width}x{meta.height} PNG, got {info.format} {info.width}x{info.height}"
        )
    seg_bytes, seg_rel = _read(renders, view.files["segmentation"])
    semantic, instance = parse_segmentation(seg_bytes, seg_rel, shape, settings.max_image_pixels * 8)
    paths, hashes = [rgb_rel, seg_rel, meta_rel], [sha256_bytes(rgb), sha256_bytes(seg_bytes), sha256_bytes(meta_bytes)]
    if "bbox" in view.files:
        paths.append(relative_to(renders, view.files["bbox"]))
        hashes.append(sha256_bytes(view.files["bbox"].read_bytes()))
    unknown = [q for q in meta.joint_qpos if q not in urdf.joints]
    if unknown:
        raise GroundBenchError(meta_rel, f"joint_qpos.{unknown[0]}", "names no joint of the object's URDF")
    rest, posed = link_transforms(urdf, {}), link_transforms(urdf, meta.joint_qpos)
    by_link = {a.link_name: a for a in annotations}
    posed_corners = _posed_boxes(meta, annotations, rest, posed)
    assignment = instance_assignment(view, renders, meta, posed_corners, instance, settings)
    # Pixel counts of the ids present; a bincount would allocate one slot per id up to the largest,
    # which a hostile id (2**31 - 1 in the mask, 10**30 in the pickle) turns into gigabytes.
    ids, sizes = np.unique(instance[instance >= 0], return_counts=True)
    counts = {int(i): int(n) for i, n in zip(ids, sizes, strict=True)}
    parts: list[PartInView] = []
    masks: dict[str, np.ndarray] = {}
    for instance_id in sorted(assignment.links):
        tie = assignment.links[instance_id]
        link = tie.link
        if counts.get(instance_id, 0) == 0:
            continue  # not visible in this view: absent, not an error
        annotation = by_link.get(link)
        if annotation is None or not annotation.is_gapart or annotation.bbox is None:
            raise GroundBenchError(
                seg_rel, "instance_segmentation", f"instance {instance_id} is link {link!r}, not an annotated GAPart"
            )
        mask = instance == instance_id
        area = counts[instance_id]
        tight = mask_box(mask)
        assert tight is not None
        corners = posed_corners[link]
        projected = projected_box(meta.camera, corners)
        coverage = mask_coverage(mask, projected, area) if projected else 0.0
        iou = box_iou(projected, tight) if projected else 0.0
        mismatch = coverage < settings.coverage_min
        exact = not mismatch and iou >= settings.iou_min
        mechanics = mechanics_of(urdf, link, meta.joint_qpos, posed)
        axis_camera, axis_2d = motion_axis_in_view(meta.camera, corners, mechanics.axis_world)
        parts.append(
            PartInView(
                link=link,
                category=annotation.category,
                instance_id=instance_id,
                area=area,
                bbox=projected if exact and projected else tight,
                point=interior_point(mask),
                quality="exact" if exact else "from-mask",
                projected=projected,
                iou=iou,
                coverage=coverage,
                mismatch=mismatch,
                mechanics=mechanics,
                axis_camera=axis_camera,
                axis_2d=axis_2d,
                visible=tight,
                pieces=mask_pieces(mask),
                mask_rle=tuple(encode_in_box(mask, tight)),  # a slice of the frame: cost of the box only
                assignment=tie.method,
                overlap=tie.overlap,
                ambiguous=tie.ambiguous,
            )
        )
        masks[link] = mask
    del semantic
    return AnalysedView(
        view, meta, rgb, rgb_rel, paths, hashes, parts, mask_box(instance != -2), masks, assignment.unassigned
    )


def decode_rgb(rgb: bytes) -> np.ndarray:
    """A render's pixels as an H x W x 3 uint8 array (decoded once per view, then shared by its highlights)."""
    with Image.open(io.BytesIO(rgb)) as opened:
        return np.asarray(opened.convert("RGB"))


def highlight(pixels: np.ndarray, mask: np.ndarray) -> bytes:
    """The target-highlighted image, made deterministically from the instance mask (HIGHLIGHT_METHOD)."""
    return encode_highlight(highlight_pixels(pixels, mask))


def highlight_pixels(pixels: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A copy of the RGB ``pixels`` with the mask blended and outlined."""
    image = pixels.copy()
    # Only the mask's own box changes. Eroding the box alone is exact: outside it the mask is 0,
    # which is also the constant the erosion assumes beyond the crop.
    x, y, w, h = cv2.boundingRect(mask.view(np.uint8))
    region, inside = image[y : y + h, x : x + w], mask[y : y + h, x : x + w]
    colour = np.array(HIGHLIGHT_COLOUR, dtype=np.uint16)
    # Blend the whole box, keep it where the mask is: cheaper than gathering and scattering the pixels.
    blended = ((region.astype(np.uint16) + colour + 1) // 2).astype(np.uint8)
    np.copyto(region, blended, where=inside[:, :, None])
    inner = cv2.erode(inside.view(np.uint8), np.ones((3, 3), np.uint8), borderType=cv2.BORDER_CONSTANT, borderValue=0)
    region[inside & (inner == 0)] = (255, 0, 0)
    return image


def encode_highlight(rgb: np.ndarray) -> bytes:
    """PNG bytes of an RGB image with HIGHLIGHT_PNG_PARAMS."""
    ok, encoded = cv2.imencode(".png", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), list(HIGHLIGHT_PNG_PARAMS))
    if not ok:  # imencode reports failure by its flag, not by raising
        raise GroundBenchError("highlight", "png", f"OpenCV could not encode a {rgb.shape} image")
    return encoded.tobytes()


def _part(p: PartInView, action: str) -> dict[str, object]:
    return {
        "part_id": p.link,
        "category": p.category,
        "action": action,
        "bbox_xyxy": list(p.bbox),
        "point_xy": list(p.point),
        "box_quality": p.quality,
        "joint_type": p.mechanics.joint_type,
        "motion_axis_3d": list(p.axis_camera),
        "motion_axis_2d": list(p.axis_2d),
        "mask_area": p.area,
        "secondary_actions": [],
        "visible_bbox_xyxy": list(p.visible) if p.visible else None,
        "projected_bbox_xyxy": list(p.projected) if p.projected else None,
        "mask_pieces": p.pieces,
        "mask_rle": list(p.mask_rle) if p.mask_rle is not None else None,
    }


def _part_extras(p: PartInView) -> dict[str, object]:
    m = p.mechanics
    return {
        "part_id": p.link,
        "instance_id": p.instance_id,
        "own_joint": m.own_joint,
        "own_joint_type": m.own_joint_type,
        "joint": m.joint,
        "moving_link": m.moving_link,
        "joint_origin_world": list(m.origin_world),
        "axis_world": list(m.axis_world),
        "axis_camera": list(p.axis_camera),
        "qpos": m.qpos,
        "projected_bbox_xyxy": list(p.projected) if p.projected else [],
        "box_iou": p.iou,
        "mask_coverage": p.coverage,
        "projection_mismatch": p.mismatch,
        "instance_assignment": p.assignment,
        "instance_overlap": p.overlap,
        "instance_ambiguous": p.ambiguous,
    }


def target_flags(part: PartInView, curated: bool, min_mask_pixels: int) -> list[str]:
    """Informational flags of a target (schemas/vocab.py FLAGS): kept and scored, but worth knowing."""
    flags = []
    if curated and part.mismatch:
        flags.append(MISMATCH_TAG)  # curated keeps the audited target with its mask's box
    if part.pieces is not None and part.pieces >= 2:
        flags.append(SPLIT_FLAG)
    if part.instance_id >= 0 and part.area < min_mask_pixels:
        flags.append(FLOOR_FLAG)
    return flags


def target_tags(part: PartInView, curated: bool) -> list[str]:
    """Exclusion tags of a target: a projection that misses its mask (not in curated), an untrusted mask."""
    tags = []
    if part.mismatch and not curated:
        tags.append(MISMATCH_TAG)
    if part.ambiguous:
        tags.append(AMBIGUOUS_TAG)
    return tags


def build_record(
    task: Task,
    view: AnalysedView,
    target: PartInView,
    stratum: str,
    example_id: str,
    image: bytes,
    highlighted: bool,
    override: str | None = None,
    left_out: list[dict[str, object]] | None = None,
    extra_tags: tuple[str, ...] = (),
) -> dict[str, object]:
    camera = view.meta.camera
    r_wc, t_wc = camera.world_to_camera()
    actions = {p.link: action_of(p.category) for p in view.parts}
    if override is not None:
        actions[target.link] = override
    kind = "highlighted" if highlighted else "clean"
    sha = sha256_bytes(image)
    curated = stratum == "curated"
    tags = [*target_tags(target, curated), *extra_tags]
    names = sorted(view.meta.joint_qpos)
    return new_record(
        example_id=example_id,
        source=SOURCE,
        stratum=stratum,
        object_id=task.obj.object_id,
        object_category=task.obj.category,
        image={"bytes": image, "path": f"{sha}.png"},
        image_sha256=sha,
        width=camera.width,
        height=camera.height,
        render={
            "kind": kind,
            "highlighted_part_id": target.link if highlighted else None,
            "camera": {
                "fx": camera.fx,
                "fy": camera.fy,
                "cx": camera.cx,
                "cy": camera.cy,
                "world2camera_rotation": [float(v) for v in r_wc.reshape(-1)],
                "world2camera_translation": [float(v) for v in t_wc],
            },
        },
        object_bbox_xyxy=list(view.object_box) if view.object_box else None,
        parts=[_part(p, actions[p.link]) for p in view.parts],
        target_part_id=target.link,
        target_action=actions[target.link],
        conditions=list(valid_conditions(stratum, kind)),
        exclusion_tags=tags,
        excluded=bool(tags),
        flags=target_flags(target, curated, task.settings.min_mask_pixels),
        provenance={
            "source_paths": [*view.paths, *task_paths(task)],
            "source_sha256": [*view.hashes, *task_hashes(task)],
            "converter": CONVERTER,
            "converter_version": CONVERTER_VERSION,
        },
        extras={
            "gapartnet": {
                "view_id": view.view.name,
                "camera_idx": view.view.camera_idx,
                "render_idx": view.view.render_idx,
                "dataset": task.obj.dataset,
                "target_link": target.link,
                "has_distractor": len(view.parts) >= 2,
                "joint_names": names,
                "joint_qpos": [view.meta.joint_qpos[n] for n in names],
                "camera_position": [float(v) for v in camera.position],
                "highlight_method": HIGHLIGHT_METHOD if highlighted else None,
                "action_overridden": override is not None,
                "audit_note": task.audit.row_note if task.audit and curated else None,
                "actions_version": GAPARTNET_ACTIONS_VERSION,
                "parts": [_part_extras(p) for p in view.parts],
                "left_out": list(left_out or []),
            }
        },
    )


def task_paths(task: Task) -> list[str]:
    return [relative_to(task.assets, task.obj.path / name) for name in (LINK_ANNOTATION, URDF)]


def task_hashes(task: Task) -> list[str]:
    return [sha256_bytes((task.obj.path / name).read_bytes()) for name in (LINK_ANNOTATION, URDF)]


def _entry(image: bytes, width: int, height: int, source: str, call: str, packages: dict[str, str]) -> ManifestEntry:
    return ManifestEntry(
        sha256=sha256_bytes(image),
        bytes=len(image),
        width=width,
        height=height,
        format="PNG",
        source_path=source,
        producer=Producer(name=CONVERTER, version=CONVERTER_VERSION, call=call, packages=packages),
    )


def _packages() -> dict[str, str]:
    import PIL

    return {"numpy": np.__version__, "opencv-python-headless": cv2.__version__, "pillow": PIL.__version__}


def left_out_parts(
    annotations: tuple[LinkAnnotation, ...], analysed: list[AnalysedView], min_mask_pixels: int
) -> list[dict[str, object]]:
    """Annotated GAParts without a bulk row, and why (sorted by link)."""
    largest: dict[str, int] = {}
    for view in analysed:
        for part in view.parts:
            largest[part.link] = max(largest.get(part.link, 0), part.area)
    out: list[dict[str, object]] = []
    for a in sorted(annotations, key=lambda a: a.link_name):
        if not a.is_gapart:
            continue
        area = largest.get(a.link_name, 0)
        if area == 0:
            out.append({"part_id": a.link_name, "reason": NEVER_VISIBLE, "max_mask_area": 0})
        elif area < min_mask_pixels:
            out.append({"part_id": a.link_name, "reason": BELOW_FLOOR, "max_mask_area": area})
    return out


def convert_object(task: Task) -> ObjectResult:
    """Every row of one object: bulk (best view per visible part, highlighted) and curated (audited view)."""
    obj = task.obj
    ann_bytes, ann_rel = _read(task.assets, obj.path / LINK_ANNOTATION)
    annotations = parse_link_annotations(ann_bytes, ann_rel)
    urdf_bytes, urdf_rel = _read(task.assets, obj.path / URDF)
    urdf = parse_urdf(urdf_bytes, urdf_rel)
    for a in annotations:
        if a.link_name not in urdf.links:
            raise GroundBenchError(ann_rel, a.link_name, "names no link of mobility_annotation_gapartnet.urdf")
    result = ObjectResult(obj.object_id, [], [], {}, {}, [], len(task.views))
    best: dict[str, tuple[int, int]] = {}  # link -> (area, -view index)
    analysed = [analyse_view(task, urdf, annotations, v) for v in task.views]
    result.left_out = left_out_parts(annotations, analysed, task.settings.min_mask_pixels)
    result.unassigned = sum(len(v.unassigned) for v in analysed)
    for index, view in enumerate(analysed):
        for part in view.parts:
            key = (part.area, -index)
            if part.link not in best or key > best[part.link]:
                best[part.link] = key
    packages = _packages()
    pixels: dict[int, np.ndarray] = {}  # view index -> decoded render, decoded only if some part's best view
    for link in sorted(best):
        if best[link][0] < task.settings.min_mask_pixels:
            continue  # below the visibility floor everywhere: listed in left_out
        index = -best[link][1]
        view = analysed[index]
        part = next(p for p in view.parts if p.link == link)
        if index not in pixels:
            pixels[index] = decode_rgb(view.rgb)
        image = highlight(pixels[index], view.masks[link])
        example_id = f"gapartnet/bulk/{obj.object_id}/{link}"
        record = build_record(task, view, part, "bulk", example_id, image, True, left_out=result.left_out)
        result.bulk.append(record)
        call = f"highlight({view.rgb_rel}, instance {part.instance_id} = {link}): {HIGHLIGHT_METHOD}"
        entry = _entry(image, view.meta.width, view.meta.height, view.rgb_rel, call, packages)
        result.manifest_bulk[entry.sha256] = entry
        result.parts.append((part.category, str(record["target_action"]), part.quality, part.mismatch))
    if task.audit is not None:
        result.curated.append(_curated(task, analysed, annotations, result.left_out))
        view = next(v for v in analysed if v.view.name == task.audit.view)
        entry = _entry(view.rgb, view.meta.width, view.meta.height, view.rgb_rel, "copied source bytes unchanged", {})
        result.manifest_curated[entry.sha256] = entry
    return result


def _curated(
    task: Task, analysed: list[AnalysedView], annotations: tuple[LinkAnnotation, ...], left_out: list[dict[str, object]]
) -> dict[str, object]:
    """The audited target, kept with its best honest box; only the audit file's ``exclude`` excludes it."""
    entry = task.audit
    assert entry is not None
    where = f"{entry.where}.view"
    view = next((v for v in analysed if v.view.name == entry.view), None)
    if view is None:
        names = [v.view.name for v in analysed]
        raise GroundBenchError(task.audit_path, where, f"view {entry.view!r} not rendered; object has {names}")
    annotation = next((a for a in annotations if a.link_name == entry.target), None)
    if annotation is None or not annotation.is_gapart:
        kind = "unknown link" if annotation is None else "link that is not a GAPart"
        raise GroundBenchError(task.audit_path, f"{entry.where}.target", f"{kind} {entry.target!r}")
    target = next((p for p in view.parts if p.link == entry.target), None)
    if target is None:
        raise GroundBenchError(
            task.audit_path, f"{entry.where}.target", f"part {entry.target} not visible in {entry.view}"
        )
    extra = (AUDIT_EXCLUDED_TAG,) if entry.exclude is not None else ()
    return build_record(
        task,
        view,
        target,
        "curated",
        f"gapartnet/curated/{task.obj.object_id}",
        view.rgb,
        False,
        entry.action,
        left_out=left_out,
        extra_tags=extra,
    )
