"""Clean renders for the contrast pool, made with the GAPartNet renderer (``renderer.py``).

Two kinds, both deterministic: a bulk view rendered again without its highlight, at the view's own
camera and joint pose (read from its metafile); and a raw object (no render at all) rendered for the
first time at its rest pose (every joint 0, the closed pose the paper's build used), the camera at
``theta``/``phi`` from ``params.yaml`` looking at the centre of the object's meshes, far enough that
their bounding sphere fits the frame with ``margin`` to spare. Each returns the rendered view and
the exact call, recorded in the image manifest's producer with the package versions.

A render fails with ``GroundBenchError`` when the object's meshes are missing or unreadable; the
caller turns that into an exclusion tag (``highlight_mismatch`` or ``no_render``), never a skip.
"""

from __future__ import annotations

import math
from importlib import metadata
from pathlib import Path

import numpy as np

from groundbench.converters.gapartnet.annotations import LinkAnnotation
from groundbench.converters.gapartnet.geometry import Camera
from groundbench.converters.gapartnet.layout import ObjectFolder
from groundbench.converters.gapartnet.params import RenderParams
from groundbench.converters.gapartnet.renderer import (
    FOV_Y_DEGREES,
    RenderedView,
    build_scene,
    look_at_camera,
    render_view,
    spherical_position,
)
from groundbench.converters.gapartnet.urdf import Urdf
from groundbench.converters.gapartnet.views import ViewMeta
from groundbench.core import exact

RENDERER = "groundbench.converters.gapartnet.renderer"
PACKAGES = ("embreex", "numpy", "pillow", "trimesh")  # embreex: only engine embree uses it


def render_packages() -> dict[str, str]:
    """Versions of the packages that can determine a render's bytes (embreex matters with engine embree only)."""
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "(not installed)"
    return versions


def _fmt(values: np.ndarray | tuple[float, ...] | list[float]) -> str:
    return "(" + ", ".join(repr(round(float(v), 9) + 0.0) for v in values) + ")"


def rest_qpos(urdf: Urdf) -> dict[str, float]:
    return {name: 0.0 for name, joint in urdf.joints.items() if joint.type != "fixed"}


def framed_camera(points: np.ndarray, settings: RenderParams) -> tuple[Camera, str]:
    """A look-at camera that fits ``points`` (world, (N, 3)); returns it and how it was placed."""
    lo, hi = points.min(axis=0), points.max(axis=0)
    centre = (lo + hi) / 2.0
    radius = float(exact.norm(points - centre).max())
    half_y = math.radians(FOV_Y_DEGREES / 2.0)
    # sin of the smaller half field of view; the horizontal one is atan(tan(half_y) * w / h), whose sine
    # is z / sqrt(1 + z^2) (no atan: elementwise arithmetic only, the same bits on every CPU)
    z = exact.tan(half_y) * settings.width / settings.height
    sine = exact.sin(half_y) if settings.width >= settings.height else z / math.sqrt(1.0 + z * z)
    distance = settings.margin * max(radius, 1e-6) / sine
    position = centre + spherical_position(settings.theta, settings.phi, distance)
    camera = look_at_camera(position, centre, settings.width, settings.height)
    how = (
        f"look_at_camera(position={_fmt(position)}, target={_fmt(centre)}, {settings.width}x{settings.height}, "
        f"fov_y {FOV_Y_DEGREES} deg; theta {settings.theta}, phi {settings.phi}, distance {distance!r} = "
        f"margin {settings.margin} x bounding radius {radius!r} / sin(half fov))"
    )
    return camera, how


def render_raw(
    obj: ObjectFolder, rel: str, urdf: Urdf, annotations: tuple[LinkAnnotation, ...], settings: RenderParams
) -> tuple[RenderedView, str]:
    """Render a never-rendered object clean at rest; returns the view and the exact call."""
    qpos = rest_qpos(urdf)
    scene = build_scene(obj.path, urdf, qpos, rel)  # raises when a mesh is missing or unreadable
    camera, how = framed_camera(scene.vertices, settings)
    meta = {"model_id": int(obj.object_id), "category": obj.category, "camera_idx": 0, "render_idx": 0}
    view = render_view(obj.path, urdf, annotations, qpos, camera, meta, settings.engine)
    call = (
        f"render_view({rel}, qpos=rest (every joint 0), camera={how}, meta={meta}, "
        f"engine={settings.engine!r}); PNG compress_level 6"
    )
    return view, call


def rerender_view(
    obj: ObjectFolder,
    rel: str,
    urdf: Urdf,
    annotations: tuple[LinkAnnotation, ...],
    meta: ViewMeta,
    metafile_rel: str,
    engine: str,
) -> tuple[RenderedView, str]:
    """Render a rendered view again, clean, at its own camera and joint pose (from its metafile)."""
    extra = {"model_id": int(obj.object_id), "category": obj.category}
    extra["camera_idx"] = meta.camera_idx or 0
    extra["render_idx"] = meta.render_idx or 0
    view = render_view(obj.path, urdf, annotations, meta.joint_qpos, meta.camera, extra, engine)
    call = (
        f"render_view({rel}, qpos=joint_qpos of {metafile_rel}, camera=the camera of {metafile_rel} "
        f"({meta.width}x{meta.height}), meta={extra}, engine={engine!r}); PNG compress_level 6"
    )
    return view, call


def write_rendered(renders: Path, name: str, view: RenderedView) -> None:
    """The view's files in GAPartNet's render format, so the converter's analysis reads them as any view."""
    from groundbench.converters.gapartnet.renderer import write_view

    write_view(renders, name, view)
