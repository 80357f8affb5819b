"""A headless CPU renderer for GAPartNet objects: URDF + OBJ meshes at a joint pose -> the render format.

Every pixel is the ray through its centre and sees exactly one triangle, and each triangle belongs
to one link, so instance and semantic segmentation are exact per-pixel part ids rather than
colour-coded approximations. Depth is the hit point's camera-frame z, from the hit triangle's plane.
Engines (``cast``): ``raster`` (the default, ``raster.py``) is a float64 numpy z-buffer over pixel
centres whose bytes are the same on every CPU; ``embree`` (trimesh + embreex) picks its kernels
by instruction set at run time, so its edge pixels differ between CPUs;
``triangle`` is trimesh's pure-numpy ray intersector (needs ``rtree``, slow).

Same inputs give the same bytes: fixed pixel order, fixed shading, PNG and npz written with fixed
settings (npz timestamps pinned, see ``views.npz_bytes``), the bbox pickle at a fixed protocol; the
float arithmetic is ``groundbench.core.exact``'s (no BLAS, no libm; docs/determinism.md).
The camera is persisted in the metafile (the paper had to recover unpersisted poses).
"""

from __future__ import annotations

import io
import math
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import get_args

import numpy as np
import trimesh
from PIL import Image

from groundbench.converters.gapartnet.annotations import PART_CLASSES, LinkAnnotation
from groundbench.converters.gapartnet.geometry import (
    Camera,
    apply,
    link_transforms,
    pose_corners,
    rpy_matrix,
    to_camera,
    transform,
)
from groundbench.converters.gapartnet.raster import pixel_grid, rasterize
from groundbench.converters.gapartnet.urdf import Urdf
from groundbench.converters.gapartnet.views import BACKGROUND, NOT_A_PART, metafile_json, npz_bytes
from groundbench.core import exact
from groundbench.core.params import RenderEngine
from groundbench.core.paths import inside_root, relative_to
from groundbench.errors import GroundBenchError

BACKGROUND_RGB = (216, 206, 189)  # GAPartNet's render background
FOV_Y_DEGREES = 35.0  # GAPartNet: fovx = fovy = 35 degrees
PICKLE_PROTOCOL = 4
ENGINES: tuple[str, ...] = get_args(RenderEngine)  # params.yaml's choice, in one place
DEFAULT_ENGINE = "raster"
ENGINE_NAMES = {  # the metafile's "renderer"
    "raster": "groundbench z-buffer rasterizer (raster)",
    "embree": "groundbench ray casting (embree)",
    "triangle": "groundbench ray casting (triangle)",
}

# Base colours per part class (and for links that are not GAPart), shaded by the view angle.
COLOURS: dict[str, tuple[int, int, int]] = {
    "": (170, 165, 160),
    "line_fixed_handle": (60, 60, 66),
    "round_fixed_handle": (70, 64, 60),
    "slider_button": (90, 110, 150),
    "hinge_door": (180, 140, 95),
    "slider_drawer": (165, 130, 90),
    "slider_lid": (120, 150, 130),
    "hinge_lid": (150, 120, 110),
    "hinge_knob": (200, 190, 80),
    "hinge_handle": (80, 80, 90),
}


def look_at_camera(position: np.ndarray, target: np.ndarray, width: int, height: int) -> Camera:
    """GAPartNet's camera: looks at ``target``, world +z up, square pixels, vertical fov 35 degrees."""
    forward = np.asarray(target, dtype=np.float64) - position
    forward = forward / exact.norm(forward)
    right = exact.cross(forward, np.array([0.0, 0.0, 1.0]))
    right = right / exact.norm(right)
    down = exact.cross(forward, right)
    rotation = np.stack([right, down, forward], axis=1)  # camera (OpenCV) -> world
    focal = (height / 2.0) / exact.tan(math.radians(FOV_Y_DEGREES / 2.0))
    intrinsic = np.array([[focal, 0.0, width / 2.0], [0.0, focal, height / 2.0], [0.0, 0.0, 1.0]])
    return Camera(intrinsic, rotation, np.asarray(position, dtype=np.float64), width, height)


def spherical_position(theta_deg: float, phi_deg: float, distance: float) -> np.ndarray:
    """GAPartNet's camera placement: polar angle theta from +z, azimuth phi, distance from the origin."""
    (st, ct), (sp, cp) = exact.sin_cos(math.radians(theta_deg)), exact.sin_cos(math.radians(phi_deg))
    return np.array([st * cp, st * sp, ct]) * distance


@dataclass(frozen=True)
class Scene:
    vertices: np.ndarray  # (V, 3) world, float64
    faces: np.ndarray  # (F, 3) int64
    face_link: np.ndarray  # (F,) index into ``links``
    links: tuple[str, ...]


def _load_obj(folder: Path, mesh: str, where: str) -> tuple[np.ndarray, np.ndarray]:
    path = inside_root(folder, folder / mesh, f"mesh {mesh}")
    if not path.is_file():
        raise GroundBenchError(where, f"mesh {mesh}", "file not found in the object folder")
    try:
        loaded = trimesh.load(path, file_type="obj", process=False, force="mesh", maintain_order=True)
    except Exception as exc:  # trimesh raises many types on a broken OBJ
        raise GroundBenchError(relative_to(folder, path), "file", f"expected an OBJ mesh ({exc})") from exc
    return np.asarray(loaded.vertices, dtype=np.float64), np.asarray(loaded.faces, dtype=np.int64)  # type: ignore[union-attr,attr-defined]


def build_scene(folder: Path, urdf: Urdf, qpos: dict[str, float], where: str) -> Scene:
    """Every visual mesh of every link, placed at the pose ``qpos``, concatenated in link order."""
    poses = link_transforms(urdf, qpos)
    vertices, faces, face_link = [], [], []
    offset = 0
    links = tuple(urdf.links)
    for index, link in enumerate(links):
        for visual in urdf.links[link]:
            local, tris = _load_obj(folder, visual.mesh, where)
            visual_pose = transform(rpy_matrix(visual.rpy), np.asarray(visual.xyz))
            placed = apply(exact.matmul(poses[link], visual_pose), local * visual.scale)
            vertices.append(placed)
            faces.append(tris + offset)
            face_link.append(np.full(len(tris), index, dtype=np.int64))
            offset += len(placed)
    if not faces:
        raise GroundBenchError(where, "visual", "no mesh to render")
    return Scene(np.concatenate(vertices), np.concatenate(faces), np.concatenate(face_link), links)


def camera_directions(camera: Camera) -> np.ndarray:
    """(H * W, 3) camera-frame rays through the pixel centres, row-major, scaled so z = 1."""
    cols, rows = pixel_grid(camera)
    grid_x, grid_y = np.meshgrid(cols, rows)
    return np.stack([grid_x, grid_y, np.ones_like(grid_x)], axis=-1).reshape(-1, 3)


def pixel_rays(camera: Camera) -> tuple[np.ndarray, np.ndarray]:
    """Origin and per-pixel world directions through pixel centres, scaled so camera z = 1."""
    return camera.position, exact.matmul(camera_directions(camera), np.ascontiguousarray(camera.rotation.T))


def _hit_triangles(scene: Scene, camera: Camera, faces: np.ndarray) -> np.ndarray:
    """(N, 3, 3) camera-frame corners of the given triangles."""
    return to_camera(camera, scene.vertices[scene.faces[faces]].reshape(-1, 3)).reshape(-1, 3, 3)


def cast(scene: Scene, camera: Camera, engine: str = DEFAULT_ENGINE) -> tuple[np.ndarray, np.ndarray]:
    """(H, W) index of the first triangle hit (-1 for none) and (H, W) float64 camera-z depth (0 for none)."""
    if engine == "raster":
        return rasterize(scene.vertices, scene.faces, camera)
    origin, directions = pixel_rays(camera)
    mesh = trimesh.Trimesh(scene.vertices, scene.faces, process=False)
    origins = np.broadcast_to(origin, directions.shape)
    if engine == "embree":
        from trimesh.ray import ray_pyembree

        hits = ray_pyembree.RayMeshIntersector(mesh, scale_to_box=False).intersects_first(origins, directions)
    elif engine == "triangle":
        try:
            import rtree  # noqa: F401  (trimesh's numpy intersector needs it; not in the lock file)
        except ImportError as exc:
            raise GroundBenchError("renderer", "engine", "engine 'triangle' needs the rtree package") from exc
        from trimesh.ray import ray_triangle

        hits = ray_triangle.RayMeshIntersector(mesh).intersects_first(origins, directions)
    else:
        raise GroundBenchError("renderer", "engine", f"expected one of {ENGINES}, got {engine!r}")
    hits = np.asarray(hits, dtype=np.int64)
    depth = np.zeros(len(hits), dtype=np.float64)
    found = hits >= 0
    tri = _hit_triangles(scene, camera, hits[found])  # depth from the hit plane, in the camera frame
    normal = exact.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    depth[found] = exact.dot(normal, tri[:, 0]) / exact.dot(normal, camera_directions(camera)[found])
    shape = (camera.height, camera.width)
    return hits.reshape(shape), depth.reshape(shape)


@dataclass(frozen=True)
class RenderedView:
    rgb_png: bytes
    segmentation_npz: bytes
    depth_npz: bytes
    metafile_json: bytes
    bbox_pkl: bytes
    instance_links: tuple[str, ...]  # instance id -> link name


def _shade(scene: Scene, hits: np.ndarray, camera: Camera, categories: dict[str, str]) -> np.ndarray:
    image = np.empty((*hits.shape, 3), dtype=np.uint8)
    image[...] = BACKGROUND_RGB
    found = hits >= 0
    if not found.any():
        return image
    tri = _hit_triangles(scene, camera, hits[found])
    normal = exact.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    normal /= exact.norm(normal)[:, None]
    d = camera_directions(camera)[found.reshape(-1)]
    d = d / exact.norm(d)[:, None]
    light = 0.35 + 0.65 * np.abs(exact.dot(normal, d))  # a headlight: faces turned away darken
    palette = np.array([COLOURS[categories.get(link, "")] for link in scene.links], dtype=np.float64)
    colour = palette[scene.face_link[hits[found]]] * light[:, None]
    image[found] = np.clip(np.rint(colour), 0, 255).astype(np.uint8)
    return image


def png_bytes(image: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, format="PNG", compress_level=6, optimize=False)
    return buffer.getvalue()


def every_joint(urdf: Urdf, qpos: dict[str, float]) -> dict[str, float]:
    """``qpos`` for every joint of the URDF: 0 for joints it leaves out and for fixed joints."""
    return {name: (0.0 if j.type == "fixed" else float(qpos.get(name, 0.0))) for name, j in urdf.joints.items()}


def render_view(
    folder: Path,
    urdf: Urdf,
    annotations: tuple[LinkAnnotation, ...],
    qpos: dict[str, float],
    camera: Camera,
    meta: dict[str, object],
    engine: str = DEFAULT_ENGINE,
) -> RenderedView:
    """Render one clean view in GAPartNet's format; ``meta`` adds model_id/category/indices."""
    where = relative_to(folder.parent, folder)
    full_qpos = every_joint(urdf, qpos)
    scene = build_scene(folder, urdf, full_qpos, where)
    hits, depth = cast(scene, camera, engine)
    categories = {a.link_name: a.category for a in annotations if a.is_gapart}
    link_of_pixel = np.where(hits >= 0, scene.face_link[np.maximum(hits, 0)], -1)
    semantic = np.full(hits.shape, BACKGROUND, dtype=np.int32)
    instance = np.full(hits.shape, BACKGROUND, dtype=np.int32)
    semantic[hits >= 0] = NOT_A_PART
    instance[hits >= 0] = NOT_A_PART
    visible: list[str] = []
    rest, posed = link_transforms(urdf, {}), link_transforms(urdf, full_qpos)
    boxes: dict[str, dict[str, object]] = {}
    for annotation in annotations:  # instance ids follow the annotation file's order (as GAPartNet's)
        if not annotation.is_gapart or annotation.link_name not in scene.links:
            continue
        mask = link_of_pixel == scene.links.index(annotation.link_name)
        if not mask.any():
            continue
        instance_id = len(visible)
        visible.append(annotation.link_name)
        class_id = PART_CLASSES.index(annotation.category)
        semantic[mask] = class_id
        instance[mask] = instance_id
        assert annotation.bbox is not None
        corners = pose_corners(annotation.bbox, rest[annotation.link_name], posed[annotation.link_name])
        boxes[annotation.link_name] = {"bbox": corners, "category_id": class_id, "instance_id": instance_id}
    metafile = {
        **meta,
        "width": camera.width,
        "height": camera.height,
        "joint_qpos": full_qpos,
        "camera_pos": [float(v) for v in camera.position],
        "camera_intrinsic": [float(v) for v in camera.intrinsic.reshape(-1)],
        "world2camera_rotation": [float(v) for v in camera.rotation.reshape(-1)],
        "camera2world_translation": [float(v) for v in camera.position],
        "target_gaparts": list(PART_CLASSES),
        "use_raytracing": True,
        "replace_texture": False,
        "renderer": ENGINE_NAMES[engine],
    }
    return RenderedView(
        rgb_png=png_bytes(_shade(scene, hits, camera, categories)),
        segmentation_npz=npz_bytes({"semantic_segmentation": semantic, "instance_segmentation": instance}),
        depth_npz=npz_bytes({"depth_map": depth.astype(np.float32)}),
        metafile_json=metafile_json(metafile),
        bbox_pkl=pickle.dumps({"bbox_pose_dict": boxes}, protocol=PICKLE_PROTOCOL),
        instance_links=tuple(visible),
    )


def write_view(renders: Path, name: str, view: RenderedView) -> None:
    """Place one view's five files under ``renders`` (the caller makes the whole tree atomic)."""
    for kind, suffix, data in (
        ("rgb", ".png", view.rgb_png),
        ("segmentation", ".npz", view.segmentation_npz),
        ("depth", ".npz", view.depth_npz),
        ("metafile", ".json", view.metafile_json),
        ("bbox", ".pkl", view.bbox_pkl),
    ):
        (renders / kind).mkdir(parents=True, exist_ok=True)
        (renders / kind / f"{name}{suffix}").write_bytes(data)
