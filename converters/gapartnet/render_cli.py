"""``groundbench render``: one clean view of one object folder, written in GAPartNet's render format."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from groundbench.converters.gapartnet.annotations import parse_link_annotations, parse_meta
from groundbench.converters.gapartnet.layout import LINK_ANNOTATION, META, URDF
from groundbench.converters.gapartnet.renderer import DEFAULT_ENGINE, look_at_camera, render_view, spherical_position
from groundbench.converters.gapartnet.urdf import parse_urdf
from groundbench.core.atomic import write_bytes
from groundbench.errors import GroundBenchError


def parse_qpos(items: list[str], joints: set[str]) -> dict[str, float]:
    qpos: dict[str, float] = {}
    for item in items:
        name, _, value = item.partition("=")
        if name not in joints:
            raise GroundBenchError("--qpos", name, f"names no joint of the URDF; expected one of {sorted(joints)}")
        try:
            qpos[name] = float(value)
        except ValueError as exc:
            raise GroundBenchError("--qpos", name, f"expected JOINT=NUMBER, got {item!r}") from exc
    return qpos


def render_object(
    folder: Path,
    out: Path,
    qpos: list[str],
    theta: float,
    phi: float,
    distance: float,
    width: int,
    height: int,
    camera_idx: int = 0,
    render_idx: int = 0,
    category: str | None = None,
    engine: str = DEFAULT_ENGINE,
) -> str:
    """Render and write the view; returns its name ``<Category>_<id>_<cc>_<rrr>``."""
    for name in (URDF, LINK_ANNOTATION):
        if not (folder / name).is_file():
            raise GroundBenchError(folder / name, "file", "missing; expected a GAPartNet object folder")
    if not folder.name.isdigit():
        raise GroundBenchError(folder, "object id", "expected the folder to be named by its numeric id")
    urdf = parse_urdf((folder / URDF).read_bytes(), str(folder / URDF))
    annotations = parse_link_annotations((folder / LINK_ANNOTATION).read_bytes(), str(folder / LINK_ANNOTATION))
    if category is None and (folder / META).is_file():
        category = parse_meta((folder / META).read_bytes(), str(folder / META))
    if not category:
        raise GroundBenchError(folder, "category", "no --category and no meta.json model_cat")
    camera = look_at_camera(spherical_position(theta, phi, distance), np.zeros(3), width, height)
    meta = {"model_id": int(folder.name), "category": category, "camera_idx": camera_idx, "render_idx": render_idx}
    view = render_view(folder, urdf, annotations, parse_qpos(qpos, set(urdf.joints)), camera, meta, engine)
    name = f"{category}_{folder.name}_{camera_idx:02d}_{render_idx:03d}"
    out.mkdir(parents=True, exist_ok=True)
    for kind, suffix, data in (
        ("rgb", ".png", view.rgb_png),
        ("segmentation", ".npz", view.segmentation_npz),
        ("depth", ".npz", view.depth_npz),
        ("metafile", ".json", view.metafile_json),
        ("bbox", ".pkl", view.bbox_pkl),
    ):
        target = out / kind
        target.mkdir(exist_ok=True)
        write_bytes(target / f"{name}{suffix}", data)
    return name
