"""``contrast_gapartnet``: mine every GAPartNet object for parts with different actions (paper 3.4).

Searched: every object in the assets, both the bulk stratum's (objects with rendered views) and raw
objects that have no render. An object qualifies when its annotated GAParts carry at least two
distinct defined actions (the part-class table, with the curated audit's override for its target);
it yields one row per ordered pair (original target, contrast part with a different action).

The image of a pair, in the order the paper tried them:

* bulk-stratum object whose original target has a bulk row: that row's image highlights the
  original target, not the requested one, so the view is first **rendered again, clean**, at its
  own camera and joint pose (``rerendered_clean``). Only when that fails (meshes missing or
  unreadable) does the row keep the highlighted image, tagged ``highlight_mismatch``
  (``highlighted_only``; the bytes are recomputed from the source view and must equal the bulk row's);
* otherwise (a raw object, or an original target never visible in any view) the object is rendered
  clean at rest for the first time (``rendered_clean``); when that fails the row is tagged
  ``no_render`` and carries a flat placeholder image (``placeholder``, see ``placeholder_png``).

Every image is analysed by the converter's own code (``records.analyse_view``): masks, boxes and the
automatic box verification. ``closed_pose_ambiguous`` when the requested part's mask is missing or
smaller than ``min_mask_share`` of the image (a hidden part is still listed as a candidate, its box
the projected 3-D box, ``approximate``, mask area null); ``box_projection_mismatch`` when its
projected box misses its own mask; ``instance_ambiguous`` when its mask's instance id could belong to
another part. Tagged rows stay, ``excluded``; the rest is the mined pool, which must equal the
frozen pool file (``pool.py``, ``data/audits/contrast_pool.yaml``) or the stage stops with the diff.
"""

from __future__ import annotations

import math
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from groundbench.converters.gapartnet.actions import action_of
from groundbench.converters.gapartnet.annotations import LinkAnnotation, parse_link_annotations
from groundbench.converters.gapartnet.audit import AuditEntry, read_audit
from groundbench.converters.gapartnet.clean_render import (
    RENDERER,
    framed_camera,
    render_packages,
    render_raw,
    rerender_view,
    rest_qpos,
    write_rendered,
)
from groundbench.converters.gapartnet.geometry import (
    Box,
    Camera,
    link_transforms,
    motion_axis_in_view,
    pose_corners,
    projected_box,
)
from groundbench.converters.gapartnet.layout import (
    LINK_ANNOTATION,
    URDF,
    ObjectFolder,
    View,
    find_objects,
    find_views,
)
from groundbench.converters.gapartnet.mechanics import mechanics_of
from groundbench.converters.gapartnet.params import ContrastParams, GapartnetParams, RenderParams
from groundbench.converters.gapartnet.pool import check_pool, write_pool_draft
from groundbench.converters.gapartnet.reask import (
    BOX_PROJECTION_MISMATCH,
    CLOSED_POSE_AMBIGUOUS,
    HIGHLIGHT_MISMATCH,
    HIGHLIGHTED_ONLY,
    INSTANCE_AMBIGUOUS,
    NO_RENDER,
    PLACEHOLDER,
    REASK_CONVERTER,
    REASK_VERSION,
    RENDERED_CLEAN,
    RERENDERED_CLEAN,
    ReaskFacts,
    format_reask,
    light,
    ordered_tags,
    retarget,
    summarize_reask,
)
from groundbench.converters.gapartnet.records import (
    AnalysedView,
    PartInView,
    Task,
    analyse_view,
    build_record,
    decode_rgb,
    highlight,
)
from groundbench.converters.gapartnet.renderer import png_bytes
from groundbench.converters.gapartnet.urdf import Urdf, parse_urdf
from groundbench.converters.gapartnet.version import CONVERTER_VERSION
from groundbench.converters.gapartnet.views import ViewMeta, parse_metafile
from groundbench.core.manifests import ManifestEntry, Producer, read_manifest, sha256_bytes
from groundbench.core.parallel import worker_count
from groundbench.core.params import ShardParams, source_root
from groundbench.core.paths import inside_root, relative_to
from groundbench.core.runner import Context, Emit, MapOptions, Output, Source, run
from groundbench.core.shards import iter_batches
from groundbench.errors import GroundBenchError
from groundbench.schemas.conditions import valid_conditions

CONFIG = "contrast_gapartnet"
CONSTRUCTION = "contrast"
PLACEHOLDER_GREY = 128
PLACEHOLDER_METHOD = (
    "placeholder: no image could be made; a flat RGB(128,128,128) image with a black 3-pixel diagonal cross, "
    "PNG compress_level 6; never shown to a model (the row is excluded, no_render)"
)


@dataclass(frozen=True)
class BulkRow:
    """A bulk row of the original target: its example id, view and (highlighted) image hash."""

    example_id: str
    target: str
    view_id: str
    sha256: str


@dataclass(frozen=True)
class MineTask:
    assets: Path
    renders: Path
    obj: ObjectFolder
    views: tuple[View, ...]
    bulk: tuple[BulkRow, ...]
    bulk_entries: dict[str, ManifestEntry]  # the bulk manifest's entries of this object's images
    audit: AuditEntry | None
    audit_path: str
    settings: GapartnetParams
    render: RenderParams
    min_mask_share: float


@dataclass
class MineResult:
    object_id: str
    stratum: str  # "bulk" (has rendered views) or "raw"
    actions: dict[str, str]  # link -> action of every annotated GAPart
    rows: list[dict[str, Any]] = field(default_factory=list)
    manifest: dict[str, ManifestEntry] = field(default_factory=dict)

    @property
    def qualifies(self) -> bool:
        return len(set(self.actions.values())) >= 2


@dataclass
class Shown:
    """The image a pair is asked on, and the analysis of that image."""

    origin: str
    view: AnalysedView
    image: bytes
    entry: ManifestEntry
    highlighted: str | None = None  # the part highlighted in the image
    source_example_id: str | None = None
    error: str | None = None
    provenance: tuple[list[str], list[str]] = ([], [])


def object_actions(annotations: tuple[LinkAnnotation, ...], audit: AuditEntry | None) -> dict[str, str]:
    """Link -> action of every annotated GAPart: the table, with the audit's override for its target."""
    actions = {a.link_name: action_of(a.category) for a in annotations if a.is_gapart}
    if audit is not None and audit.action is not None and audit.target in actions:
        actions[audit.target] = audit.action
    return actions


def contrast_pairs(actions: dict[str, str]) -> list[tuple[str, str]]:
    """Every ordered (original, contrast) pair whose actions differ, sorted."""
    return sorted((o, c) for o in actions for c in actions if actions[o] != actions[c])


def min_mask_pixels(width: int, height: int, share: float) -> int:
    return max(1, math.ceil(share * width * height))


def placeholder_png(width: int, height: int) -> bytes:
    """A deterministic stand-in image, unmistakably not a render: flat grey with a black cross."""
    image = np.full((height, width, 3), PLACEHOLDER_GREY, dtype=np.uint8)
    rows = np.arange(height)
    diagonal = (rows * (width - 1)) // max(1, height - 1)
    for offset in (-1, 0, 1):
        for cols in (diagonal, width - 1 - diagonal):
            image[rows, np.clip(cols + offset, 0, width - 1)] = 0
    return png_bytes(image)


def projected_part(
    urdf: Urdf, annotation: LinkAnnotation, camera: Camera, qpos: dict[str, float], fallback: Box
) -> PartInView:
    """A part without a mask in the image: its posed 3-D box projected (``approximate``)."""
    assert annotation.bbox is not None
    link = annotation.link_name
    rest, posed = link_transforms(urdf, {}), link_transforms(urdf, qpos)
    corners = pose_corners(annotation.bbox, rest[link], posed[link])
    projected = projected_box(camera, corners)
    box = projected or fallback  # off-image: the object's box stands in (the row is excluded anyway)
    mechanics = mechanics_of(urdf, link, qpos, posed)
    axis_camera, axis_2d = motion_axis_in_view(camera, corners, mechanics.axis_world)
    return PartInView(
        link=link,
        category=annotation.category,
        instance_id=-1,
        area=0,
        bbox=box,
        point=((box[0] + box[2]) / 2.0, (box[1] + box[3]) / 2.0),
        quality="approximate",
        projected=projected,
        iou=0.0,
        coverage=0.0,
        mismatch=False,
        mechanics=mechanics,
        axis_camera=axis_camera,
        axis_2d=axis_2d,
    )


class _Object:
    """One object's parsed files and the images made for it (cached: pairs share images)."""

    def __init__(self, task: MineTask, scratch: Path) -> None:
        self.task = task
        self.scratch = scratch
        obj = task.obj
        self.rel = relative_to(task.assets, obj.path)
        self.annotation_bytes = (obj.path / LINK_ANNOTATION).read_bytes()
        self.annotations = parse_link_annotations(self.annotation_bytes, f"{self.rel}/{LINK_ANNOTATION}")
        self.urdf_bytes = (obj.path / URDF).read_bytes()
        self.urdf = parse_urdf(self.urdf_bytes, f"{self.rel}/{URDF}")
        for a in self.annotations:
            if a.link_name not in self.urdf.links:
                raise GroundBenchError(f"{self.rel}/{LINK_ANNOTATION}", a.link_name, f"names no link of {URDF}")
        self.by_link = {a.link_name: a for a in self.annotations}
        self.base = Task(task.assets, task.renders, obj, task.views, task.audit, task.audit_path, task.settings)
        self.cache: dict[str, Shown] = {}

    def files(self, meshes: bool) -> tuple[list[str], list[str]]:
        """Relative paths and sha256 of the object's annotation files (and its meshes, when rendered)."""
        paths = [f"{self.rel}/{LINK_ANNOTATION}", f"{self.rel}/{URDF}"]
        hashes = [sha256_bytes(self.annotation_bytes), sha256_bytes(self.urdf_bytes)]
        if meshes:
            names = sorted({v.mesh for visuals in self.urdf.links.values() for v in visuals})
            for name in names:
                path = inside_root(self.task.obj.path, self.task.obj.path / name, f"mesh {name}")
                paths.append(relative_to(self.task.assets, self.task.obj.path / name))
                hashes.append(sha256_bytes(path.read_bytes()))
        return paths, hashes

    def _analyse(self, folder_name: str, name: str, rendered: Any, indices: tuple[int, int]) -> AnalysedView:
        """Analyse a render with the converter's own code (written in the render format to a scratch folder)."""
        folder = self.scratch / folder_name
        write_rendered(folder, name, rendered)
        kinds = (("rgb", ".png"), ("segmentation", ".npz"), ("metafile", ".json"), ("bbox", ".pkl"))
        files = {kind: folder / kind / f"{name}{suffix}" for kind, suffix in kinds}
        view = View(name, self.task.obj.object_id, self.task.obj.category, indices[0], indices[1], files)
        return analyse_view(replace(self.base, renders=folder), self.urdf, self.annotations, view)

    def _entry(self, image: bytes, width: int, height: int, call: str) -> ManifestEntry:
        return ManifestEntry(
            sha256=sha256_bytes(image),
            bytes=len(image),
            width=width,
            height=height,
            format="PNG",
            source_path=self.rel,
            producer=Producer(name=RENDERER, version=CONVERTER_VERSION, call=call, packages=render_packages()),
        )

    def for_bulk_row(self, row: BulkRow) -> Shown:
        """The original target's bulk view: re-rendered clean, or (failing that) its highlighted image."""
        key = f"{row.view_id}/{row.target}"  # the highlight differs per target; a clean re-render does not
        if key in self.cache:
            return self.cache[key]
        view = next((v for v in self.task.views if v.name == row.view_id), None)
        if view is None:
            raise GroundBenchError(row.example_id, "extras.gapartnet.view_id", f"view {row.view_id} not in the renders")
        clean = self._rerendered(view)
        if isinstance(clean, str):
            shown = self._highlighted(view, row, clean)
        else:
            shown = replace(clean, source_example_id=row.example_id)
        self.cache[key] = shown
        return shown

    def _rerendered(self, view: View) -> Shown | str:
        """The view rendered again, clean, at its own camera and pose; the error text when that fails."""
        key = f"{view.name}/(clean)"
        if key in self.cache:
            return self.cache[key]
        meta_rel = relative_to(self.task.renders, view.files["metafile"])
        meta_bytes = view.files["metafile"].read_bytes()
        meta = parse_metafile(meta_bytes, meta_rel)
        try:
            rendered, call = rerender_view(
                self.task.obj, self.rel, self.urdf, self.annotations, meta, meta_rel, self.task.render.engine
            )
        except GroundBenchError as exc:
            return str(exc)
        analysed = self._analyse(f"clean_{view.name}", view.name, rendered, (view.camera_idx, view.render_idx))
        paths, hashes = self.files(meshes=True)
        shown = Shown(
            origin=RERENDERED_CLEAN,
            view=analysed,
            image=rendered.rgb_png,
            entry=self._entry(rendered.rgb_png, meta.width, meta.height, call),
            provenance=([*paths, meta_rel], [*hashes, sha256_bytes(meta_bytes)]),
        )
        self.cache[key] = shown
        return shown

    def _highlighted(self, view: View, row: BulkRow, error: str) -> Shown:
        analysed = analyse_view(self.base, self.urdf, self.annotations, view)
        image = highlight(decode_rgb(analysed.rgb), analysed.masks[row.target])
        sha = sha256_bytes(image)
        if sha != row.sha256 or sha not in self.task.bulk_entries:
            raise GroundBenchError(
                row.example_id, "image", f"the highlight remade from {view.name} ({sha}) is not the bulk row image"
            )
        paths, hashes = self.files(meshes=False)
        return Shown(
            origin=HIGHLIGHTED_ONLY,
            view=analysed,
            image=image,
            entry=self.task.bulk_entries[sha],
            highlighted=row.target,
            source_example_id=row.example_id,
            error=error,
            provenance=([*analysed.paths, *paths], [*analysed.hashes, *hashes]),
        )

    def fresh(self) -> Shown:
        """The object rendered clean at rest for the first time, or a placeholder when that fails."""
        key = "(fresh)"
        if key in self.cache:
            return self.cache[key]
        settings = self.task.render
        try:
            rendered, call = render_raw(self.task.obj, self.rel, self.urdf, self.annotations, settings)
        except GroundBenchError as exc:
            shown = self._placeholder(str(exc))
        else:
            name = f"{self.task.obj.category}_{self.task.obj.object_id}_00_000"
            analysed = self._analyse("fresh", name, rendered, (0, 0))
            shown = Shown(
                origin=RENDERED_CLEAN,
                view=analysed,
                image=rendered.rgb_png,
                entry=self._entry(rendered.rgb_png, settings.width, settings.height, call),
                provenance=self.files(meshes=True),
            )
        self.cache[key] = shown
        return shown

    def _placeholder(self, error: str) -> Shown:
        """No image: the parts' rest boxes projected through the camera the render would have used."""
        settings = self.task.render
        gaparts = [a for a in self.annotations if a.is_gapart and a.bbox is not None]
        corners = np.concatenate([a.bbox for a in gaparts if a.bbox is not None])
        camera, _how = framed_camera(corners, settings)  # framed on the annotated parts: no meshes to frame
        qpos = rest_qpos(self.urdf)
        frame: Box = (0.0, 0.0, float(settings.width), float(settings.height))
        parts = [projected_part(self.urdf, a, camera, qpos, frame) for a in gaparts]
        image = placeholder_png(settings.width, settings.height)
        name = f"{self.task.obj.category}_{self.task.obj.object_id}_00_000"
        view = View(name, self.task.obj.object_id, self.task.obj.category, 0, 0, {})
        meta = ViewMeta(settings.width, settings.height, qpos, camera, self.task.obj.object_id, None, 0, 0)
        analysed = AnalysedView(view, meta, image, "", [], [], parts, None)
        entry = ManifestEntry(
            sha256=sha256_bytes(image),
            bytes=len(image),
            width=settings.width,
            height=settings.height,
            format="PNG",
            source_path="(none: no image could be made)",
            producer=Producer(
                name=REASK_CONVERTER, version=REASK_VERSION, call=PLACEHOLDER_METHOD, packages=render_packages()
            ),
        )
        return Shown(PLACEHOLDER, analysed, image, entry, error=error, provenance=self.files(meshes=False))


def _row(obj: _Object, actions: dict[str, str], shown: Shown, original: str, requested: str) -> dict[str, Any]:
    task = obj.task
    view = shown.view
    width, height = view.meta.width, view.meta.height
    threshold = min_mask_pixels(width, height, task.min_mask_share)
    shown_target = next((p for p in view.parts if p.link == requested), None)
    tags: set[str] = set()
    placeholder = shown.origin == PLACEHOLDER
    if shown.origin == HIGHLIGHTED_ONLY:
        tags.add(HIGHLIGHT_MISMATCH)
    if placeholder:
        tags.add(NO_RENDER)  # nothing can be judged on a missing image; no further tags
    else:
        if shown_target is None or shown_target.area < threshold:
            tags.add(CLOSED_POSE_AMBIGUOUS)
        if shown_target is not None and shown_target.mismatch:
            tags.add(BOX_PROJECTION_MISMATCH)
        if shown_target is not None and shown_target.ambiguous:
            tags.add(INSTANCE_AMBIGUOUS)
    # Both parts of the pair are always candidates: one hidden in this pose gets its projected box.
    fallback: Box = view.object_box or (0.0, 0.0, float(width), float(height))
    for link in (original, requested):
        if all(p.link != link for p in view.parts):
            part = projected_part(obj.urdf, obj.by_link[link], view.meta.camera, view.meta.joint_qpos, fallback)
            view = replace(view, parts=[*view.parts, part])
    target = next(p for p in view.parts if p.link == requested)
    example_id = f"gapartnet/contrast/{task.obj.object_id}/{original}->{requested}"
    record = build_record(obj.base, view, target, CONSTRUCTION, example_id, shown.image, shown.highlighted is not None)
    hidden = {p.link for p in view.parts if p.instance_id < 0}
    record["parts"] = [
        {**p, "action": actions[p["part_id"]], "mask_area": None if p["part_id"] in hidden else p["mask_area"]}
        for p in record["parts"]  # type: ignore[attr-defined]
    ]
    record["target_action"] = actions[requested]
    render = dict(record["render"])  # type: ignore[arg-type]
    render["highlighted_part_id"] = shown.highlighted
    if placeholder:
        render["kind"] = PLACEHOLDER
    record["render"] = render
    record["conditions"] = list(valid_conditions(CONSTRUCTION, str(render["kind"])))
    gapartnet = dict(record["extras"]["gapartnet"])  # type: ignore[index]
    overridden = task.audit is not None and task.audit.action is not None and task.audit.target == requested
    gapartnet["action_overridden"] = overridden
    record["extras"] = {**record["extras"], "gapartnet": gapartnet}  # type: ignore[dict-item]
    record["provenance"] = {
        "source_paths": list(shown.provenance[0]),
        "source_sha256": list(shown.provenance[1]),
        "converter": REASK_CONVERTER,
        "converter_version": REASK_VERSION,
    }
    facts = ReaskFacts(
        construction=CONSTRUCTION,
        object_id=task.obj.object_id,
        original=original,
        original_action=actions[original],
        requested=requested,
        requested_action=actions[requested],
        source_example_id=shown.source_example_id,
        image_origin=shown.origin,
        render_error=shown.error,
        requested_visible=shown_target is not None and shown_target.area >= threshold and not placeholder,
        requested_mask_area=None if placeholder else (shown_target.area if shown_target else 0),
        mask_min_pixels=None if placeholder else threshold,
    )
    return retarget(record, facts, example_id, ordered_tags(tags))


def mine_object(task: MineTask) -> MineResult:
    """The contrast rows of one object (none when its parts share fewer than two actions)."""
    with tempfile.TemporaryDirectory(prefix="groundbench-contrast-") as scratch:
        obj = _Object(task, Path(scratch))
        actions = object_actions(obj.annotations, task.audit)
        result = MineResult(task.obj.object_id, "bulk" if task.views else "raw", actions)
        if not result.qualifies:
            return result
        bulk = {row.target: row for row in task.bulk}
        for original, requested in contrast_pairs(actions):
            shown = obj.for_bulk_row(bulk[original]) if original in bulk else obj.fresh()
            result.rows.append(_row(obj, actions, shown, original, requested))
            result.manifest[shown.entry.sha256] = shown.entry
    result.rows.sort(key=lambda r: str(r["example_id"]))
    return result


def read_bulk(bulk: Path) -> tuple[dict[str, list[BulkRow]], dict[str, ManifestEntry]]:
    """The bulk stratum's rows (without images) by object, and its manifest."""
    manifest_path = bulk / "manifest.jsonl"
    if not manifest_path.is_file():
        raise GroundBenchError(bulk, "manifest.jsonl", "missing; run `groundbench convert gapartnet` first")
    rows: dict[str, list[BulkRow]] = {}
    columns = ["example_id", "object_id", "target_part_id", "image_sha256", "extras"]
    for batch in iter_batches(bulk):
        for row in batch.select(columns).to_pylist():
            view_id = row["extras"]["gapartnet"]["view_id"]
            entry = BulkRow(row["example_id"], row["target_part_id"], view_id, row["image_sha256"])
            rows.setdefault(row["object_id"], []).append(entry)
    return rows, read_manifest(manifest_path)


class ContrastSource(Source[MineTask, MineResult]):
    """Every GAPartNet object (the bulk rows for their views) -> ``contrast_gapartnet``, checked against the pool."""

    label, unit, configs = "contrast objects", "object", (CONFIG,)

    def __init__(
        self,
        assets: Path,
        renders: Path,
        bulk: Path,
        audit_path: Path,
        pool: Path | None,  # the frozen pool file; None only where no pool is evaluated (tests of mining)
        knobs: GapartnetParams,
        contrast: ContrastParams,
    ) -> None:
        self.knobs, self.pool, self.min_mask_share = knobs, pool, contrast.closed_pose_min_mask_share
        self.convert = mine_object
        objects = find_objects(assets)
        views = find_views(renders)
        bulk_rows, bulk_manifest = read_bulk(bulk)
        audit = {e.object_id: e for e in read_audit(audit_path)}
        self.tasks = []
        for o in objects:
            rows = tuple(bulk_rows.get(o.object_id, []))
            self.tasks.append(
                MineTask(
                    assets,
                    renders,
                    o,
                    tuple(views.get(o.object_id, [])),
                    rows,
                    {r.sha256: bulk_manifest[r.sha256] for r in rows if r.sha256 in bulk_manifest},
                    audit.get(o.object_id),
                    str(audit_path),
                    knobs,
                    contrast.render,
                    self.min_mask_share,
                )
            )
        self.light: list[dict[str, Any]] = []
        self.mined_pool: list[str] = []  # pair ids of the rows not excluded
        self.pool_notes: list[tuple[str, str]] = []  # (pair id, what the miner found) for a pool draft
        self.pool_draft: Path | None = None  # --write-pool-draft: write the mined pool here, reasons empty
        self.search: dict[str, dict[str, Any]] = {s: {"objects": 0, "qualifying": {}} for s in ("bulk", "raw")}
        self.summary: dict[str, Any] = {}

    def items(self) -> Sequence[MineTask]:
        return self.tasks

    def map_options(self, items: Sequence[MineTask]) -> MapOptions:
        return MapOptions(worker_count(self.knobs.workers), self.knobs.window)

    def accept(self, result: MineResult) -> Iterable[Emit]:
        group = self.search[result.stratum]
        group["objects"] += 1
        if result.qualifies:
            group["qualifying"][result.object_id] = {
                "actions": sorted(set(result.actions.values())),
                "pairs": len(result.rows),
            }
        for record in result.rows:
            self.light.append(light(record))
            if not record["excluded"]:
                self.mined_pool.append(record["extras"]["reask"]["pair_id"])
                self.pool_notes.append((record["extras"]["reask"]["pair_id"], pair_note(record)))
        return [Emit(CONFIG, result.rows, result.manifest.values())]

    def finalize(self, output: Output) -> None:
        if self.pool_draft is not None:  # before the check: a draft is what a pool that differs needs
            write_pool_draft(self.pool_draft, self.pool_notes, self.pool)
            sys.stderr.write(f"pool draft: {len(self.pool_notes)} pairs, reasons empty -> {self.pool_draft}\n")
        if self.pool is not None:  # raising here leaves the previous outputs in place (the runner's atomic folder)
            check_pool(self.pool, self.mined_pool)
        summary = summarize_reask(self.light, CONSTRUCTION)
        summary["search"] = self.search
        summary["min_mask_share"] = self.min_mask_share
        summary["pool_file"] = None if self.pool is None else self.pool.name
        output.write_summary(summary)
        self.summary = summary

    def report(self, progress: bool) -> None:
        for stratum, group in self.search.items():
            sys.stderr.write(
                f"contrast search, {stratum} objects: {group['objects']} searched, {len(group['qualifying'])} with "
                f"two or more actions ({', '.join(group['qualifying']) or 'none'})\n"
            )
        sys.stderr.write(format_reask(self.summary) + "\n")


def pair_note(record: dict[str, Any]) -> str:
    """What a reviewer of a mined pair needs first: the row, its two parts with their actions, the image."""
    parts = {p["part_id"]: p for p in record["parts"]}
    original = parts.get(record["original_target_part_id"]) or {}
    requested = parts.get(record["target_part_id"]) or {}
    reask = record["extras"]["reask"]
    return (
        f"{record['example_id']}: {record['object_category']}: {original.get('category')} "
        f"({original.get('action')}) asked about the {requested.get('category')} ({requested.get('action')}); "
        f"image {reask['image_origin']}"
    )


def mine_contrast(
    assets: Path,
    renders: Path,
    bulk: Path,
    out: Path,
    audit: Path,
    pool: Path | None,
    knobs: GapartnetParams,
    contrast: ContrastParams,
    shards: ShardParams,
    progress: bool = True,
) -> dict[str, Any]:
    """Search every object, write ``<out>/contrast_gapartnet/`` and ``<out>/summary.json``; return the summary."""
    mined = ContrastSource(assets, renders, bulk, audit, pool, knobs, contrast)
    run(mined, out, shards, progress)
    return dict(mined.summary)


def source(ctx: Context) -> ContrastSource:
    """The registry's factory: contrast mining as ``params.yaml`` configures it (reads the converted bulk rows)."""
    params = ctx.params
    assets = source_root(ctx.root, params, "gapartnet.assets")
    renders = source_root(ctx.root, params, "gapartnet.renders")
    assert assets is not None and renders is not None  # the pipeline marks a null source absent
    return ContrastSource(
        assets,
        renders,
        ctx.interim / "gapartnet" / "bulk_gapartnet",
        ctx.root / params.gapartnet.audit,
        ctx.root / params.contrast.pool,
        params.gapartnet,
        params.contrast,
    )
