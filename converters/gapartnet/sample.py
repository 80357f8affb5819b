"""The embedded GAPartNet sample: objects in the release's on-disk format, made deterministically.

Each object is authored as axis-aligned boxes in GAPartNet's world frame (z up, fronts facing -x)
and written like a PartNet-Mobility asset: the root joint ``base -> body`` carries PartNet's
``rpy = (pi/2, 0, -pi/2)``, meshes are OBJ files in the y-up mesh frame with visual origins that
undo the joint offsets, fixed handles are their own links on ``fixed`` joints (as GAPartNet splits
them). ``link_annotation_gapartnet.json`` holds each part's rest box in GAPartNet's corner order,
inflated by 0.1 % per axis. One object (``WRONG_FRAME_OBJECT``) has its button boxes written in the
mesh frame instead of the world frame, the error the paper found by drawing boxes; verification
must exclude it. The views are then rendered by ``renderer.py`` into ``renders/``.

Objects 900011-900015 exist for the re-ask constructions (``contrast.py``): raw objects without any
render (a washing machine with push and pull parts, one of whose button boxes is planted in the
mesh frame; a coffee machine with push and lift-vertical parts; a box whose closed lid hides a
button), a safe that is rendered but whose meshes are not shipped (so it can only be shown through
its highlighted bulk images), and an oven whose meshes are not shipped either (no image at all).
"""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np

from groundbench.converters.gapartnet.annotations import LinkAnnotation
from groundbench.converters.gapartnet.geometry import Camera, rpy_matrix
from groundbench.converters.gapartnet.renderer import (
    DEFAULT_ENGINE,
    Scene,
    build_scene,
    every_joint,
    look_at_camera,
    render_view,
    spherical_position,
    write_view,
)
from groundbench.converters.gapartnet.urdf import parse_urdf
from groundbench.core import exact
from groundbench.core.atomic import atomic_dir
from groundbench.core.parallel import ordered_map, worker_count

if TYPE_CHECKING:
    from groundbench.core.params import Params

Vec3 = tuple[float, float, float]
ROOT_RPY: Vec3 = (math.pi / 2, 0.0, -math.pi / 2)  # PartNet-Mobility: world = (-z, -x, y) of the mesh frame
R0 = rpy_matrix(ROOT_RPY)
R0_T = np.ascontiguousarray(R0.T)
INFLATE = 1.001  # GAPartNet grows each box's half-size by 0.1 %
WRONG_FRAME_OBJECT = "900010"
PUSH_PULL_OBJECT = "900011"  # raw; button_1's box is planted in the mesh frame
PUSH_LIFT_OBJECT = "900012"  # raw
HIGHLIGHT_ONLY_OBJECT = "900013"  # rendered, meshes not shipped: only its highlighted bulk images exist
CLOSED_POSE_OBJECT = "900014"  # raw; the closed lid hides the button inside
NO_RENDER_OBJECT = "900015"  # raw, meshes not shipped: no image can be made
JOINT_WORDS = {"revolute": "hinge", "continuous": "hinge", "prismatic": "slider", "fixed": "fixed"}


@dataclass(frozen=True)
class Part:
    name: str  # a readable name; the link is link_<index>
    category: str  # GAPart class, "" for the body
    boxes: tuple[tuple[Vec3, Vec3], ...]  # (lo, hi) world corners at rest
    joint: str = "fixed"
    parent: str = "body"  # another part's name for handles
    origin: Vec3 = (0.0, 0.0, 0.0)  # a world point on the joint axis at rest
    axis: Vec3 = (0.0, 0.0, 1.0)  # world direction at rest
    limit: tuple[float, float] | None = None
    frame_x: Vec3 = (1.0, 0.0, 0.0)  # the annotation box's canonical x and z axes (world)
    frame_z: Vec3 = (0.0, 0.0, 1.0)
    wrong_frame: bool = False  # planted error: its annotation box is written in the mesh frame


@dataclass(frozen=True)
class ViewSpec:
    theta: float
    phi: float
    distance: float
    qpos: tuple[tuple[str, float], ...]  # (part name, joint position)


@dataclass(frozen=True)
class SampleObject:
    object_id: str
    category: str
    parts: tuple[Part, ...]  # the body first
    views: tuple[ViewSpec, ...]  # () = a raw object: annotated, never rendered
    meshes_shipped: bool = True  # False: the meshes are removed after rendering (not distributed)


def _body(lo: Vec3, hi: Vec3) -> Part:
    return Part("body", "", ((lo, hi),))


def _keys(rows: int, cols: int) -> tuple[Part, ...]:
    keys = []
    for r in range(rows):
        for c in range(cols):
            x0, y0 = -0.24 + r * 0.16, 0.7 - c * 0.15
            keys.append(
                Part(
                    f"key_{r}_{c}",
                    "slider_button",
                    (((x0, y0 - 0.12, 0.04), (x0 + 0.12, y0, 0.07)),),
                    "prismatic",
                    axis=(0.0, 0.0, -1.0),
                    limit=(0.0, 0.02),
                    frame_x=(0.0, 1.0, 0.0),
                    frame_z=(0.0, 0.0, 1.0),
                )
            )
    return tuple(keys)


def _drawer(index: int) -> tuple[Part, Part]:
    z0 = 0.2 - index * 0.32
    drawer = Part(
        f"drawer_{index}",
        "slider_drawer",
        (((-0.43, -0.42, z0), (0.35, 0.42, z0 + 0.28)),),
        "prismatic",
        axis=(-1.0, 0.0, 0.0),
        limit=(0.0, 0.4),
        frame_x=(-1.0, 0.0, 0.0),
    )
    knob = Part(
        f"drawer_{index}_handle",
        "round_fixed_handle",
        (((-0.48, -0.04, z0 + 0.1), (-0.43, 0.04, z0 + 0.18)),),
        parent=f"drawer_{index}",
        frame_x=(0.0, 0.0, 1.0),
        frame_z=(-1.0, 0.0, 0.0),
    )
    return drawer, knob


SAMPLE_OBJECTS: tuple[SampleObject, ...] = (
    SampleObject(
        "900001",
        "StorageFurniture",
        (
            _body((-0.4, -0.5, -0.6), (0.4, 0.5, 0.6)),
            Part(
                "door_left",
                "hinge_door",
                (((-0.43, 0.005, -0.55), (-0.4, 0.495, 0.55)),),
                "revolute",
                origin=(-0.4, 0.5, 0.0),
                axis=(0.0, 0.0, -1.0),
                limit=(0.0, 1.6),
                frame_x=(0.0, 0.0, -1.0),
                frame_z=(-1.0, 0.0, 0.0),
            ),
            Part(
                "door_right",
                "hinge_door",
                (((-0.43, -0.495, -0.55), (-0.4, -0.005, 0.55)),),
                "revolute",
                origin=(-0.4, -0.5, 0.0),
                axis=(0.0, 0.0, 1.0),
                limit=(0.0, 1.6),
                frame_x=(0.0, 0.0, 1.0),
                frame_z=(-1.0, 0.0, 0.0),
            ),
            Part(
                "handle_left",
                "line_fixed_handle",
                (((-0.47, 0.05, -0.2), (-0.43, 0.09, 0.2)),),
                parent="door_left",
                frame_x=(0.0, 0.0, 1.0),
                frame_z=(-1.0, 0.0, 0.0),
            ),
            Part(
                "handle_right",
                "line_fixed_handle",
                (((-0.47, -0.09, -0.2), (-0.43, -0.05, 0.2)),),
                parent="door_right",
                frame_x=(0.0, 0.0, 1.0),
                frame_z=(-1.0, 0.0, 0.0),
            ),
        ),
        (
            ViewSpec(65, 200, 2.55, (("door_left", 0.5), ("door_right", 0.15))),
            ViewSpec(70, 165, 2.7, (("door_left", 0.0), ("door_right", 0.9))),
        ),
    ),
    SampleObject(
        "900002",
        "StorageFurniture",
        (_body((-0.4, -0.45, -0.75), (0.4, 0.45, 0.5)), *_drawer(0), *_drawer(1), *_drawer(2)),
        (
            ViewSpec(60, 195, 2.55, (("drawer_0", 0.25), ("drawer_1", 0.0), ("drawer_2", 0.1))),
            ViewSpec(55, 160, 2.55, (("drawer_0", 0.0), ("drawer_1", 0.3), ("drawer_2", 0.0))),
        ),
    ),
    SampleObject(
        "900003",
        "Keyboard",
        (_body((-0.3, -0.8, -0.04), (0.3, 0.8, 0.04)), *_keys(3, 10)),
        (
            ViewSpec(45, 180, 2.25, (("key_1_4", 0.02),)),
            ViewSpec(40, 210, 2.4, ()),
        ),
    ),
    SampleObject(
        "900004",
        "Printer",
        (
            _body((-0.35, -0.4, -0.25), (0.35, 0.4, 0.25)),
            Part(
                "button",
                "slider_button",
                (((-0.3, 0.22, 0.25), (-0.2, 0.33, 0.28)),),
                "prismatic",
                axis=(0.0, 0.0, -1.0),
                limit=(0.0, 0.02),
                frame_x=(0.0, 1.0, 0.0),
                frame_z=(0.0, 0.0, 1.0),
            ),
        ),
        (ViewSpec(50, 190, 2.25, ()), ViewSpec(45, 170, 2.25, (("button", 0.01),))),
    ),
    SampleObject(
        "900005",
        "Dishwasher",
        (
            _body((-0.35, -0.35, -0.45), (0.35, 0.35, 0.45)),
            Part(
                "door",
                "hinge_door",
                (((-0.38, -0.33, -0.43), (-0.35, 0.33, 0.43)),),
                "revolute",
                origin=(-0.35, 0.0, -0.45),
                axis=(0.0, -1.0, 0.0),
                limit=(0.0, 1.5),
                frame_x=(0.0, -1.0, 0.0),
                frame_z=(-1.0, 0.0, 0.0),
            ),
        ),
        (ViewSpec(60, 190, 2.4, (("door", 0.35),)), ViewSpec(65, 170, 2.4, (("door", 0.0),))),
    ),
    SampleObject(
        "900006",
        "Box",
        (
            _body((-0.35, -0.45, -0.3), (0.35, 0.45, 0.25)),
            Part(
                "lid",
                "hinge_lid",
                (((-0.36, -0.46, 0.25), (0.36, 0.46, 0.29)),),
                "revolute",
                origin=(0.36, 0.0, 0.25),
                axis=(0.0, 1.0, 0.0),
                limit=(0.0, 1.9),
                frame_x=(0.0, 1.0, 0.0),
                frame_z=(0.0, 0.0, 1.0),
            ),
            Part(
                "lid_handle",
                "line_fixed_handle",
                (((-0.4, -0.1, 0.25), (-0.36, 0.1, 0.28)),),
                parent="lid",
                frame_x=(0.0, 1.0, 0.0),
                frame_z=(-1.0, 0.0, 0.0),
            ),
        ),
        (ViewSpec(55, 195, 2.25, (("lid", 0.45),)), ViewSpec(50, 165, 2.25, (("lid", 0.0),))),
    ),
    SampleObject(
        "900007",
        "KitchenPot",
        (
            _body((-0.3, -0.3, -0.25), (0.3, 0.3, 0.15)),
            Part(
                "lid",
                "slider_lid",
                (((-0.31, -0.31, 0.15), (0.31, 0.31, 0.19)),),
                "prismatic",
                axis=(0.0, 0.0, 1.0),
                limit=(0.0, 0.3),
                frame_x=(-1.0, 0.0, 0.0),
                frame_z=(0.0, 0.0, 1.0),
            ),
            Part("lid_knob", "round_fixed_handle", (((-0.04, -0.04, 0.19), (0.04, 0.04, 0.25)),), parent="lid"),
        ),
        (ViewSpec(55, 185, 1.95, (("lid", 0.12),)), ViewSpec(60, 215, 1.95, (("lid", 0.0),))),
    ),
    SampleObject(
        "900008",
        "Bucket",
        (
            _body((-0.25, -0.25, -0.3), (0.25, 0.25, 0.2)),
            Part(
                "lid",
                "slider_lid",
                (((-0.26, -0.26, 0.2), (0.26, 0.26, 0.23)),),
                "prismatic",
                axis=(0.0, 0.0, 1.0),
                limit=(0.0, 0.3),
                frame_x=(-1.0, 0.0, 0.0),
                frame_z=(0.0, 0.0, 1.0),
            ),
            Part(
                "handle",
                "hinge_handle",
                (
                    ((-0.02, 0.25, 0.0), (0.02, 0.28, 0.45)),
                    ((-0.02, -0.28, 0.0), (0.02, -0.25, 0.45)),
                    ((-0.02, -0.28, 0.42), (0.02, 0.28, 0.45)),
                ),
                "revolute",
                origin=(0.0, 0.0, 0.05),
                axis=(0.0, 1.0, 0.0),
                limit=(-1.5, 1.5),
                frame_x=(0.0, 1.0, 0.0),
                frame_z=(0.0, 0.0, 1.0),
            ),
        ),
        (ViewSpec(55, 200, 1.95, (("handle", -0.3),)), ViewSpec(50, 175, 1.95, (("handle", 0.4),))),
    ),
    SampleObject(
        "900009",
        "Microwave",
        (
            _body((-0.3, -0.5, -0.3), (0.3, 0.5, 0.3)),
            Part(
                "door",
                "hinge_door",
                (((-0.33, -0.05, -0.28), (-0.3, 0.48, 0.28)),),
                "revolute",
                origin=(-0.3, 0.5, 0.0),
                axis=(0.0, 0.0, -1.0),
                limit=(0.0, 1.6),
                frame_x=(0.0, 0.0, -1.0),
                frame_z=(-1.0, 0.0, 0.0),
            ),
            Part(
                "knob",
                "hinge_knob",
                (((-0.36, -0.32, 0.05), (-0.3, -0.22, 0.15)),),
                "continuous",
                origin=(-0.3, -0.27, 0.1),
                axis=(-1.0, 0.0, 0.0),
                frame_x=(0.0, 0.0, 1.0),
                frame_z=(-1.0, 0.0, 0.0),
            ),
            Part(
                "button_start",
                "slider_button",
                (((-0.32, -0.34, -0.12), (-0.3, -0.2, -0.06)),),
                "prismatic",
                axis=(1.0, 0.0, 0.0),
                limit=(0.0, 0.01),
                frame_x=(0.0, 1.0, 0.0),
                frame_z=(-1.0, 0.0, 0.0),
            ),
            Part(
                "button_stop",
                "slider_button",
                (((-0.32, -0.34, -0.22), (-0.3, -0.2, -0.16)),),
                "prismatic",
                axis=(1.0, 0.0, 0.0),
                limit=(0.0, 0.01),
                frame_x=(0.0, 1.0, 0.0),
                frame_z=(-1.0, 0.0, 0.0),
            ),
        ),
        (
            ViewSpec(65, 195, 2.25, (("door", 0.3), ("knob", 0.8))),
            ViewSpec(60, 170, 2.25, (("door", 0.0), ("knob", 2.0), ("button_stop", 0.005))),
        ),
    ),
    SampleObject(
        WRONG_FRAME_OBJECT,
        "Remote",
        (
            _body((-0.12, -0.4, -0.03), (0.12, 0.4, 0.03)),
            *(
                Part(
                    f"button_{i}",
                    "slider_button",
                    (((x0, y0, 0.03), (x0 + 0.07, y0 + 0.09, 0.05)),),
                    "prismatic",
                    axis=(0.0, 0.0, -1.0),
                    limit=(0.0, 0.01),
                    frame_x=(0.0, 1.0, 0.0),
                    frame_z=(0.0, 0.0, 1.0),
                )
                for i, (x0, y0) in enumerate(((-0.09, 0.15), (0.02, 0.15), (-0.09, -0.05), (0.02, -0.05)))
            ),
        ),
        (ViewSpec(40, 185, 1.5, ()), ViewSpec(45, 200, 1.65, (("button_1", 0.005),))),
    ),
    SampleObject(
        PUSH_PULL_OBJECT,
        "WashingMachine",
        (
            _body((-0.35, -0.35, -0.45), (0.35, 0.35, 0.45)),
            Part(
                "door",
                "hinge_door",
                (((-0.38, -0.25, -0.35), (-0.35, 0.25, 0.2)),),
                "revolute",
                origin=(-0.35, 0.25, 0.0),
                axis=(0.0, 0.0, -1.0),
                limit=(0.0, 1.6),
                frame_x=(0.0, 0.0, -1.0),
                frame_z=(-1.0, 0.0, 0.0),
            ),
            *(
                Part(
                    f"button_{i}",
                    "slider_button",
                    (((-0.37, y0, 0.28), (-0.35, y0 + 0.1, 0.36)),),
                    "prismatic",
                    axis=(1.0, 0.0, 0.0),
                    limit=(0.0, 0.01),
                    frame_x=(0.0, 1.0, 0.0),
                    frame_z=(-1.0, 0.0, 0.0),
                    wrong_frame=i == 1,
                )
                for i, y0 in enumerate((-0.25, 0.05))
            ),
        ),
        (),
    ),
    SampleObject(
        PUSH_LIFT_OBJECT,
        "CoffeeMachine",
        (
            _body((-0.2, -0.2, -0.3), (0.2, 0.2, 0.3)),
            Part(
                "lid",
                "hinge_lid",
                (((-0.16, -0.16, 0.3), (0.16, 0.16, 0.33)),),
                "revolute",
                origin=(0.16, 0.0, 0.3),
                axis=(0.0, 1.0, 0.0),
                limit=(0.0, 1.9),
                frame_x=(0.0, 1.0, 0.0),
                frame_z=(0.0, 0.0, 1.0),
            ),
            Part(
                "button",
                "slider_button",
                (((-0.22, -0.06, 0.05), (-0.2, 0.06, 0.13)),),
                "prismatic",
                axis=(1.0, 0.0, 0.0),
                limit=(0.0, 0.01),
                frame_x=(0.0, 1.0, 0.0),
                frame_z=(-1.0, 0.0, 0.0),
            ),
        ),
        (),
    ),
    SampleObject(
        HIGHLIGHT_ONLY_OBJECT,
        "Safe",
        (
            _body((-0.3, -0.3, -0.3), (0.3, 0.3, 0.3)),
            Part(
                "door",
                "hinge_door",
                (((-0.33, -0.28, -0.28), (-0.3, 0.28, 0.28)),),
                "revolute",
                origin=(-0.3, 0.28, 0.0),
                axis=(0.0, 0.0, -1.0),
                limit=(0.0, 1.6),
                frame_x=(0.0, 0.0, -1.0),
                frame_z=(-1.0, 0.0, 0.0),
            ),
            Part(
                "dial",
                "hinge_knob",
                (((-0.37, -0.06, 0.0), (-0.33, 0.06, 0.12)),),
                "continuous",
                parent="door",
                origin=(-0.33, 0.0, 0.06),
                axis=(-1.0, 0.0, 0.0),
                frame_x=(0.0, 0.0, 1.0),
                frame_z=(-1.0, 0.0, 0.0),
            ),
        ),
        (ViewSpec(60, 195, 1.95, (("door", 0.2),)),),
        meshes_shipped=False,
    ),
    SampleObject(
        CLOSED_POSE_OBJECT,
        "Box",
        (
            _body((-0.3, -0.3, -0.2), (0.3, 0.3, 0.2)),
            Part(
                "lid",
                "hinge_lid",
                (((-0.31, -0.31, 0.2), (0.31, 0.31, 0.23)),),
                "revolute",
                origin=(0.31, 0.0, 0.2),
                axis=(0.0, 1.0, 0.0),
                limit=(0.0, 1.9),
                frame_x=(0.0, 1.0, 0.0),
                frame_z=(0.0, 0.0, 1.0),
            ),
            Part(
                "inner_button",
                "slider_button",
                (((-0.05, -0.05, 0.1), (0.05, 0.05, 0.13)),),
                "prismatic",
                axis=(0.0, 0.0, -1.0),
                limit=(0.0, 0.01),
                frame_x=(0.0, 1.0, 0.0),
                frame_z=(0.0, 0.0, 1.0),
            ),
        ),
        (),
    ),
    SampleObject(
        NO_RENDER_OBJECT,
        "Oven",
        (
            _body((-0.35, -0.4, -0.35), (0.35, 0.4, 0.35)),
            Part(
                "door",
                "hinge_door",
                (((-0.38, -0.35, -0.3), (-0.35, 0.35, 0.15)),),
                "revolute",
                origin=(-0.35, 0.0, -0.3),
                axis=(0.0, -1.0, 0.0),
                limit=(0.0, 1.5),
                frame_x=(0.0, -1.0, 0.0),
                frame_z=(-1.0, 0.0, 0.0),
            ),
            Part(
                "knob",
                "hinge_knob",
                (((-0.41, -0.3, 0.2), (-0.35, -0.2, 0.3)),),
                "continuous",
                origin=(-0.35, -0.25, 0.25),
                axis=(-1.0, 0.0, 0.0),
                frame_x=(0.0, 0.0, 1.0),
                frame_z=(-1.0, 0.0, 0.0),
            ),
        ),
        (),
        meshes_shipped=False,
    ),
)


def link_names(obj: SampleObject) -> dict[str, str]:
    """Part name -> link name: parts are link_0.. in order, the body is the last link (as in 45780)."""
    parts = [p for p in obj.parts if p.name != "body"]
    names = {p.name: f"link_{i}" for i, p in enumerate(parts)}
    names["body"] = f"link_{len(parts)}"
    return names


def _fmt(values: np.ndarray | tuple[float, ...]) -> str:
    return " ".join(repr(round(float(v), 12) + 0.0) for v in values)


def _box_obj(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, list[tuple[int, int, int]]]:
    corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
    # vertex index = 4*ix + 2*iy + iz; outward counter-clockwise triangles per face
    quads = ((0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3))
    faces = [t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))]
    return corners, faces


def _annotation_box(part: Part) -> np.ndarray:
    """The part's rest box in GAPartNet's corner order (+/-x, +/-y, +/-z of its own frame), inflated."""
    lo = np.min([b[0] for b in part.boxes], axis=0)
    hi = np.max([b[1] for b in part.boxes], axis=0)
    centre, half = (lo + hi) / 2.0, (hi - lo) / 2.0
    x_hat, z_hat = np.asarray(part.frame_x), np.asarray(part.frame_z)
    axes = np.stack([x_hat, exact.cross(z_hat, x_hat), z_hat])  # rows: x, y, z of the part frame
    half_l, half_w, half_h = exact.matmul(np.abs(axes), half) * INFLATE
    signs = np.array(
        [(-1, 1, 1), (1, 1, 1), (1, -1, 1), (-1, -1, 1), (-1, 1, -1), (1, 1, -1), (1, -1, -1), (-1, -1, -1)], float
    )
    return centre + exact.matmul(signs * np.array([half_l, half_w, half_h]), axes)


def _files(obj: SampleObject) -> dict[str, bytes]:
    names = link_names(obj)
    by_name = {p.name: p for p in obj.parts}
    files: dict[str, bytes] = {}
    links_xml, joints_xml = ['\t<link name="base"/>'], []
    rest_origin: dict[str, np.ndarray] = {"body": np.zeros(3)}  # link frame origin (world) at rest
    ordered = [p for p in obj.parts if p.name != "body"] + [by_name["body"]]
    for part in ordered:
        link = names[part.name]
        if part.name == "body":
            joint_xml = (
                f'\t<joint name="joint_{link[5:]}" type="fixed">\n\t\t<origin rpy="{_fmt(ROOT_RPY)}" xyz="0 0 0"/>\n'
                f'\t\t<child link="{link}"/>\n\t\t<parent link="base"/>\n\t</joint>'
            )
        else:
            parent_origin = rest_origin[part.parent]
            world = np.asarray(part.origin) if part.joint != "fixed" else parent_origin
            rest_origin[part.name] = world
            xyz = exact.matmul(R0_T, world - parent_origin)  # every link frame has the body's rotation at rest
            lines = [f'\t<joint name="joint_{link[5:]}" type="{part.joint}">', f'\t\t<origin xyz="{_fmt(xyz)}"/>']
            if part.joint != "fixed":
                lines.append(f'\t\t<axis xyz="{_fmt(exact.matmul(R0_T, np.asarray(part.axis)))}"/>')
            lines += [f'\t\t<child link="{link}"/>', f'\t\t<parent link="{names[part.parent]}"/>']
            if part.limit is not None:
                lines.append(f'\t\t<limit lower="{part.limit[0]!r}" upper="{part.limit[1]!r}"/>')
            joint_xml = "\n".join([*lines, "\t</joint>"])
        visual_xyz = exact.matmul(R0_T, -rest_origin[part.name])  # meshes stay in the mesh frame (PartNet style)
        visuals = []
        for number, (lo, hi) in enumerate(part.boxes):
            mesh = f"textured_objs/{link}-{number}.obj"
            corners, faces = _box_obj(np.asarray(lo), np.asarray(hi))
            local = exact.matmul(corners, R0)  # world -> mesh frame: R0.T @ p
            files[mesh] = (
                f"# GroundBench sample mesh: {obj.category} {obj.object_id} {part.name}\n"
                + "".join(f"v {_fmt(v)}\n" for v in local)
                + "".join(f"f {a + 1} {b + 1} {c + 1}\n" for a, b, c in faces)
            ).encode()
            geometry = f'\t\t\t<geometry>\n\t\t\t\t<mesh filename="{mesh}"/>\n\t\t\t</geometry>'
            origin = f'\t\t\t<origin xyz="{_fmt(visual_xyz)}"/>'
            visuals.append(f'\t\t<visual name="{part.name}-{number}">\n{origin}\n{geometry}\n\t\t</visual>')
        links_xml.append(f'\t<link name="{link}">\n' + "\n".join(visuals) + "\n\t</link>")
        joints_xml.append(joint_xml)
    files["mobility_annotation_gapartnet.urdf"] = (
        f'<?xml version="1.0" ?>\n<robot name="groundbench_sample_{obj.object_id}">\n'
        + "\n".join(links_xml + joints_xml)
        + "\n</robot>\n"
    ).encode()
    annotations = []
    semantics = []
    for part in ordered:
        link = names[part.name]
        if part.category:
            box = _annotation_box(part)
            if obj.object_id == WRONG_FRAME_OBJECT or part.wrong_frame:
                box = exact.matmul(box, R0)  # planted error: written in the mesh frame, not the world frame
            annotations.append(
                {"link_name": link, "is_gapart": True, "category": part.category, "bbox": box.round(12).tolist()}
            )
            word, label = JOINT_WORDS[part.joint], part.category.split("_")[-1]
        else:
            annotations.append({"link_name": link, "is_gapart": False, "category": "", "bbox": []})
            word, label = "heavy", "body"
        semantics.append(f"{link} {word} {label}\n")
    files["link_annotation_gapartnet.json"] = json.dumps(annotations).encode()
    files["semantics_gapartnet.txt"] = "".join(semantics).encode()
    files["meta.json"] = json.dumps(
        {"model_id": obj.object_id, "anno_id": obj.object_id, "model_cat": obj.category}
    ).encode()
    return files


def view_name(obj: SampleObject, index: int) -> str:
    return f"{obj.category}_{obj.object_id}_00_{index:03d}"


@dataclass(frozen=True)
class _ViewTask:
    folder: Path
    object_index: int
    view_index: int
    width: int
    height: int
    engine: str


def _render_task(task: _ViewTask) -> Any:
    """One view of one sample object (runs in a worker: the object folder must be visible there)."""
    from groundbench.converters.gapartnet.annotations import parse_link_annotations

    obj = SAMPLE_OBJECTS[task.object_index]
    spec = obj.views[task.view_index]
    urdf = parse_urdf((task.folder / "mobility_annotation_gapartnet.urdf").read_bytes(), obj.object_id)
    annotations: tuple[LinkAnnotation, ...] = parse_link_annotations(
        (task.folder / "link_annotation_gapartnet.json").read_bytes(), obj.object_id
    )
    meta = {"model_id": int(obj.object_id), "category": obj.category, "camera_idx": 0, "render_idx": task.view_index}
    camera = view_camera(spec, task.width, task.height)
    return render_view(task.folder, urdf, annotations, view_qpos(obj, spec), camera, meta, task.engine)


def view_camera(spec: ViewSpec, width: int, height: int) -> Camera:
    return look_at_camera(spherical_position(spec.theta, spec.phi, spec.distance), np.zeros(3), width, height)


def view_qpos(obj: SampleObject, spec: ViewSpec) -> dict[str, float]:
    names = link_names(obj)
    return {f"joint_{names[part][5:]}": value for part, value in spec.qpos}


def view_scenes(root: Path, width: int, height: int) -> list[tuple[Scene, Camera]]:
    """Every rendered view of the sample as the renderer's input (its object folders written under ``root``):
    what tests and ``benchmarks/render_bench.py`` give the engines."""
    scenes = []
    for obj in SAMPLE_OBJECTS:
        folder = root / obj.object_id
        for name, data in _files(obj).items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(data)
        urdf = parse_urdf((folder / "mobility_annotation_gapartnet.urdf").read_bytes(), obj.object_id)
        for spec in obj.views:
            scene = build_scene(folder, urdf, every_joint(urdf, view_qpos(obj, spec)), obj.object_id)
            scenes.append((scene, view_camera(spec, width, height)))
    return scenes


def write_sample(
    out: Path,
    width: int = 320,
    height: int = 240,
    engine: str = DEFAULT_ENGINE,
    map_engine: Mapping[str, Any] = MappingProxyType({}),
) -> int:
    """Write ``out/assets/<id>/`` and ``out/renders/`` (replaced atomically); returns the views rendered.

    ``engine`` is the renderer's (``renderer.ENGINES``). The views are rendered by ``ordered_map`` (the
    process pool, or the cluster that ``map_engine``, its further keywords, names) and written here in
    order, so the bytes do not depend on where they were rendered.
    """
    count = 0
    with atomic_dir(out) as tmp:
        lines = []
        tasks = []
        for number, obj in enumerate(SAMPLE_OBJECTS):
            folder = tmp / "assets" / obj.object_id
            for name, data in sorted(_files(obj).items()):
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                (folder / name).write_bytes(data)
            lines.append(f"{obj.category} {obj.object_id}\n")
            tasks += [_ViewTask(folder, number, index, width, height, engine) for index in range(len(obj.views))]
        for task, view in zip(tasks, ordered_map(_render_task, tasks, worker_count(0), 16, **map_engine), strict=True):
            obj = SAMPLE_OBJECTS[task.object_index]
            write_view(tmp / "renders", view_name(obj, task.view_index), view)
            count += 1
        for obj in SAMPLE_OBJECTS:
            if not obj.meshes_shipped:
                shutil.rmtree(tmp / "assets" / obj.object_id / "textured_objs")
        (tmp / "assets" / "meta").mkdir()
        (tmp / "assets" / "meta" / "partnet_all_id_list.txt").write_text("".join(lines))
    return count


def write(root: Path, params: Params, progress: bool = False) -> int:
    """The uniform sample writer (spec.py names it): <root>/<sample.root>/gapartnet/; returns the views written."""
    from groundbench.core.parallel import DaskCluster

    knobs = params.sample.gapartnet
    # Where the views are rendered (params.yaml `engine`), as for every source's map; changes no byte.
    engine = {"cluster": DaskCluster(params.engine.address, ())} if params.engine.name == "dask" else {}
    return write_sample(root / params.sample.root / "gapartnet", knobs.width, knobs.height, knobs.engine, engine)
