"""Analyse one object's views and build its records (pure apart from reading the object's own files).

Per view and visible GAPart: pose its rest box to the view's ``joint_qpos``, project it, and check
it against the part's own instance mask (automatic box verification, the paper's "draw the box and
look" done for every row):

* ``mismatch`` when fewer than ``coverage_min`` of the mask's pixels fall inside the projected box
  (the box is in another frame, e.g. GAPartNet's slider_button boxes); rows whose target mismatches
  are tagged ``box_projection_mismatch`` and excluded; the part's box then comes from the mask;
* ``exact`` when the projection covers the mask and its IoU with the mask's tight box is at least
  ``iou_min``: the projected box is used;
* ``from-mask`` otherwise (the projection covers the mask but is much larger, e.g. an occluded part
  or a drawer's hidden body): the mask's tight box is used.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from groundbench.converters.gapartnet import CONVERTER, CONVERTER_VERSION
from groundbench.converters.gapartnet.annotations import LinkAnnotation, parse_link_annotations
from groundbench.converters.gapartnet.audit import AuditEntry
from groundbench.converters.gapartnet.geometry import (
    Box,
    box_iou,
    image_direction,
    link_transforms,
    mask_box,
    mask_coverage,
    pose_corners,
    projected_box,
)
from groundbench.converters.gapartnet.layout import LINK_ANNOTATION, URDF, ObjectFolder, View
from groundbench.converters.gapartnet.mechanics import Mechanics, mechanics_of
from groundbench.converters.gapartnet.urdf import Urdf, parse_urdf
from groundbench.converters.gapartnet.views import (
    ViewMeta,
    parse_bbox_pickle,
    parse_metafile,
    parse_segmentation,
)
from groundbench.converters.umd.regions import interior_point
from groundbench.errors import GroundBenchError
from groundbench.images import inspect_image
from groundbench.manifests import ManifestEntry, Producer, sha256_bytes
from groundbench.paths import relative_to
from groundbench.schemas.conditions import valid_conditions
from groundbench.schemas.features import new_record
from groundbench.schemas.gapartnet_actions import GAPARTNET_ACTIONS_VERSION, action_of

SOURCE = "gapartnet"
MISMATCH_TAG = "box_projection_mismatch"
HIGHLIGHT_COLOUR = (255, 40, 40)
HIGHLIGHT_METHOD = (
    "target instance mask blended 50% with RGB(255,40,40) (rounded half up), its inner boundary "
    "(mask minus its 3x3 erosion) painted RGB(255,0,0); PNG compress_level 6"
)


@dataclass(frozen=True)
class Settings:
    iou_min: float = 0.5
    coverage_min: float = 0.9
    max_pixels: int = 64_000_000


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


@dataclass(frozen=True)
class Task:
    assets: Path
    renders: Path
    obj: ObjectFolder
    views: tuple[View, ...]
    audit: AuditEntry | None
    audit_path: str
    settings: Settings


@dataclass
class ObjectResult:
    object_id: str
    bulk: list[dict[str, object]]
    curated: list[dict[str, object]]
    manifest_bulk: dict[str, ManifestEntry]
    manifest_curated: dict[str, ManifestEntry]
    parts: list[tuple[str, str, str, bool]]  # (part class, action, box quality, mismatch) per bulk row
    views: int


def _read(root: Path, path: Path) -> tuple[bytes, str]:
    return path.read_bytes(), relative_to(root, path)


def _instance_links(
    view: View, renders: Path, annotations: tuple[LinkAnnotation, ...], instance: np.ndarray
) -> dict[int, str]:
    """Instance id -> link: from ``bbox/<view>.pkl`` when present, else the annotation order of visible GAParts."""
    if "bbox" in view.files:
        data, rel = _read(renders, view.files["bbox"])
        return {p.instance_id: link for link, p in parse_bbox_pickle(data, rel).items()}
    ids = sorted(int(i) for i in np.unique(instance) if i >= 0)
    gaparts = [a.link_name for a in annotations if a.is_gapart]
    if ids and ids[-1] >= len(gaparts):
        raise GroundBenchError(
            view.name, "instance_segmentation", f"instance {ids[-1]} but only {len(gaparts)} GAParts"
        )
    # Without the pickle the ids only say "the k-th visible GAPart"; that needs visibility, which the
    # ids themselves give: GAPartNet numbers visible parts in annotation order, so id k is the k-th.
    return dict(enumerate(gaparts))


def analyse_view(task: Task, urdf: Urdf, annotations: tuple[LinkAnnotation, ...], view: View) -> AnalysedView:
    renders, settings = task.renders, task.settings
    meta_bytes, meta_rel = _read(renders, view.files["metafile"])
    meta = parse_metafile(meta_bytes, meta_rel)
    rgb, rgb_rel = _read(renders, view.files["rgb"])
    info = inspect_image(rgb, rgb_rel, settings.max_pixels)
    shape = (meta.height, meta.width)
    if (info.height, info.width) != shape or info.format != "PNG":
        raise GroundBenchError(
            rgb_rel, "image", f"expected a {meta.width}x{meta.height} PNG, got {info.format} {info.width}x{info.height}"
        )
    seg_bytes, seg_rel = _read(renders, view.files["segmentation"])
    semantic, instance = parse_segmentation(seg_bytes, seg_rel, shape, settings.max_pixels * 8)
    paths, hashes = [rgb_rel, seg_rel, meta_rel], [sha256_bytes(rgb), sha256_bytes(seg_bytes), sha256_bytes(meta_bytes)]
    links_by_instance = _instance_links(view, renders, annotations, instance)
    if "bbox" in view.files:
        paths.append(relative_to(renders, view.files["bbox"]))
        hashes.append(sha256_bytes(view.files["bbox"].read_bytes()))
    unknown = [q for q in meta.joint_qpos if q not in urdf.joints]
    if unknown:
        raise GroundBenchError(meta_rel, f"joint_qpos.{unknown[0]}", "names no joint of the object's URDF")
    rest, posed = link_transforms(urdf, {}), link_transforms(urdf, meta.joint_qpos)
    r_wc, _ = meta.camera.world_to_camera()
    by_link = {a.link_name: a for a in annotations}
    # Pixel counts of the ids present; a bincount would allocate one slot per id up to the largest,
    # which a hostile id (2**31 - 1 in the mask, 10**30 in the pickle) turns into gigabytes.
    ids, sizes = np.unique(instance[instance >= 0], return_counts=True)
    counts = {int(i): int(n) for i, n in zip(ids, sizes, strict=True)}
    parts: list[PartInView] = []
    masks: dict[str, np.ndarray] = {}
    for instance_id in sorted(links_by_instance):
        link = links_by_instance[instance_id]
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
        corners = pose_corners(annotation.bbox, rest[link], posed[link])
        projected = projected_box(meta.camera, corners)
        coverage = mask_coverage(mask, projected) if projected else 0.0
        iou = box_iou(projected, tight) if projected else 0.0
        mismatch = coverage < settings.coverage_min
        exact = not mismatch and iou >= settings.iou_min
        mechanics = mechanics_of(urdf, link, meta.joint_qpos, posed)
        axis_camera: tuple[float, ...] = ()
        axis_2d: tuple[float, ...] = ()
        if mechanics.axis_world:
            axis = np.asarray(mechanics.axis_world)
            axis_camera = tuple(float(v) for v in r_wc @ axis)
            size = float(np.linalg.norm(corners.max(axis=0) - corners.min(axis=0)))
            axis_2d = image_direction(meta.camera, corners.mean(axis=0), axis, max(size, 1e-6) * 0.1)
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
            )
        )
        masks[link] = mask
    del semantic
    return AnalysedView(view, meta, rgb, rgb_rel, paths, hashes, parts, mask_box(instance != -2), masks)


def decode_rgb(rgb: bytes) -> np.ndarray:
    """A render's pixels as an H x W x 3 uint8 array (decoded once per view, then shared by its highlights)."""
    with Image.open(io.BytesIO(rgb)) as opened:
        return np.asarray(opened.convert("RGB"))


def highlight(pixels: np.ndarray, mask: np.ndarray) -> bytes:
    """The target-highlighted image, made deterministically from the instance mask (HIGHLIGHT_METHOD)."""
    image = pixels.copy()
    # Only the mask's own box changes. Eroding the box alone is exact: outside it the mask is 0,
    # which is also the constant the erosion assumes beyond the crop.
    x, y, w, h = cv2.boundingRect(mask.view(np.uint8))
    region, inside = image[y : y + h, x : x + w], mask[y : y + h, x : x + w]
    colour = np.array(HIGHLIGHT_COLOUR, dtype=np.uint16)
    region[inside] = ((region[inside].astype(np.uint16) + colour + 1) // 2).astype(np.uint8)
    inner = cv2.erode(inside.view(np.uint8), np.ones((3, 3), np.uint8), borderType=cv2.BORDER_CONSTANT, borderValue=0)
    region[inside & (inner == 0)] = (255, 0, 0)
    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, format="PNG", compress_level=6, optimize=False)
    return buffer.getvalue()


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
    }


def build_record(
    task: Task,
    view: AnalysedView,
    target: PartInView,
    stratum: str,
    example_id: str,
    image: bytes,
    highlighted: bool,
    override: str | None = None,
) -> dict[str, object]:
    camera = view.meta.camera
    r_wc, t_wc = camera.world_to_camera()
    actions = {p.link: action_of(p.category) for p in view.parts}
    if override is not None:
        actions[target.link] = override
    kind = "highlighted" if highlighted else "clean"
    sha = sha256_bytes(image)
    tags = [MISMATCH_TAG] if target.mismatch else []
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
                "audit_note": task.audit.note if task.audit and stratum == "curated" else None,
                "actions_version": GAPARTNET_ACTIONS_VERSION,
                "parts": [_part_extras(p) for p in view.parts],
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
    for index, view in enumerate(analysed):
        for part in view.parts:
            key = (part.area, -index)
            if part.link not in best or key > best[part.link]:
                best[part.link] = key
    packages = _packages()
    pixels: dict[int, np.ndarray] = {}  # view index -> decoded render, decoded only if some part's best view
    for link in sorted(best):
        index = -best[link][1]
        view = analysed[index]
        part = next(p for p in view.parts if p.link == link)
        if index not in pixels:
            pixels[index] = decode_rgb(view.rgb)
        image = highlight(pixels[index], view.masks[link])
        record = build_record(task, view, part, "bulk", f"gapartnet/bulk/{obj.object_id}/{link}", image, True)
        result.bulk.append(record)
        call = f"highlight({view.rgb_rel}, instance {part.instance_id} = {link}): {HIGHLIGHT_METHOD}"
        entry = _entry(image, view.meta.width, view.meta.height, view.rgb_rel, call, packages)
        result.manifest_bulk[entry.sha256] = entry
        result.parts.append((part.category, str(record["target_action"]), part.quality, part.mismatch))
    if task.audit is not None:
        result.curated.append(_curated(task, analysed, annotations))
        view = next(v for v in analysed if v.view.name == task.audit.view)
        entry = _entry(view.rgb, view.meta.width, view.meta.height, view.rgb_rel, "copied source bytes unchanged", {})
        result.manifest_curated[entry.sha256] = entry
    return result


def _curated(task: Task, analysed: list[AnalysedView], annotations: tuple[LinkAnnotation, ...]) -> dict[str, object]:
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
    return build_record(
        task, view, target, "curated", f"gapartnet/curated/{task.obj.object_id}", view.rgb, False, entry.action
    )
