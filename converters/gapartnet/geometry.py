"""Posing and projection: pure functions on arrays (URDF joint conventions, GAPartNet's camera).

Link annotation boxes are world corners at rest (every qpos 0). A box is rigidly attached to its
link, so at a view's ``joint_qpos`` it is ``T_link(q) @ inverse(T_link(0))`` applied to the rest
corners; this equals GAPartNet's own walk (prismatic: translate along the world axis;
revolute/continuous: rotate about the joint origin; fixed: move with the parent).

Camera (metafile): ``world2camera_rotation`` R is, despite its name, camera(OpenCV)->world and
``camera2world_translation`` t is the camera centre, so ``p_cam = (p - t) @ R`` and
``u = fx * x / z + cx``, ``v = fy * y / z + cy`` on the continuous pixel plane (pixel (c, r) covers
[c, c+1) x [r, r+1)).

Every product, sum, inverse and trigonometric value is computed by ``groundbench.core.exact``
(fixed order, no BLAS/LAPACK, no libm), so the poses and projections are the same bits on every CPU.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from groundbench.converters.gapartnet.urdf import Joint, Urdf
from groundbench.core import exact
from groundbench.core.geometry import Box

NEAR = 1e-6  # corners closer than this to the camera plane cannot be projected


def rpy_matrix(rpy: tuple[float, float, float]) -> np.ndarray:
    """URDF fixed-axis roll, pitch, yaw: R = Rz(yaw) @ Ry(pitch) @ Rx(roll)."""
    (sr, cr), (sp, cp), (sy, cy) = (exact.sin_cos(angle) for angle in rpy)
    return np.array(
        [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ]
    )


def axis_angle(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rotation by ``angle`` (radians, right hand) about the unit ``axis`` (Rodrigues)."""
    x, y, z = (float(v) for v in axis)
    s, c = exact.sin_cos(angle)
    k = 1.0 - c
    return np.array(
        [
            [c + x * x * k, x * y * k - z * s, x * z * k + y * s],
            [y * x * k + z * s, c + y * y * k, y * z * k - x * s],
            [z * x * k - y * s, z * y * k + x * s, c + z * z * k],
        ]
    )


def transform(rotation: np.ndarray, translation: np.ndarray) -> np.ndarray:
    matrix = np.eye(4)
    matrix[:3, :3] = rotation
    matrix[:3, 3] = translation
    return matrix


def joint_frame(joint: Joint) -> np.ndarray:
    """The joint frame in its parent link's frame (the URDF ``<origin>``)."""
    return transform(rpy_matrix(joint.rpy), np.asarray(joint.xyz, dtype=np.float64))


def joint_motion(joint: Joint, q: float) -> np.ndarray:
    if joint.type == "fixed" or joint.axis is None or q == 0.0:
        return np.eye(4)
    axis = np.asarray(joint.axis, dtype=np.float64)
    if joint.type == "prismatic":
        return transform(np.eye(3), axis * q)
    return transform(axis_angle(axis, q), np.zeros(3))


def link_transforms(urdf: Urdf, qpos: dict[str, float]) -> dict[str, np.ndarray]:
    """World pose (4x4) of every link; the root link sits at the identity (``fix_root_link``)."""
    poses = {urdf.root: np.eye(4)}
    pending = list(urdf.joints.values())
    while pending:
        rest = []
        for joint in pending:
            if joint.parent in poses:
                q = 0.0 if joint.type == "fixed" else float(qpos.get(joint.name, 0.0))
                frame = exact.matmul(poses[joint.parent], joint_frame(joint))
                poses[joint.child] = exact.matmul(frame, joint_motion(joint, q))
            else:
                rest.append(joint)
        if len(rest) == len(pending):  # parse_urdf guarantees one tree; defensive
            break
        pending = rest
    return poses


def apply(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    return exact.matmul(points, np.ascontiguousarray(matrix[:3, :3].T)) + matrix[:3, 3]


def pose_corners(rest_corners: np.ndarray, rest_pose: np.ndarray, posed_pose: np.ndarray) -> np.ndarray:
    """Move world corners that were attached to a link at ``rest_pose`` to ``posed_pose``."""
    return apply(exact.matmul(posed_pose, exact.rigid_inverse(rest_pose)), rest_corners)


@dataclass(frozen=True)
class Camera:
    intrinsic: np.ndarray  # 3x3 K
    rotation: np.ndarray  # camera(OpenCV: x right, y down, z forward) -> world
    position: np.ndarray  # camera centre in world
    width: int
    height: int

    @property
    def fx(self) -> float:
        return float(self.intrinsic[0, 0])

    @property
    def fy(self) -> float:
        return float(self.intrinsic[1, 1])

    @property
    def cx(self) -> float:
        return float(self.intrinsic[0, 2])

    @property
    def cy(self) -> float:
        return float(self.intrinsic[1, 2])

    def world_to_camera(self) -> tuple[np.ndarray, np.ndarray]:
        """(R_wc, t_wc) with p_cam = R_wc @ p + t_wc (what ``render.camera`` stores)."""
        r_wc = np.ascontiguousarray(self.rotation.T)
        return r_wc, -exact.matmul(r_wc, self.position)


def to_camera(camera: Camera, points: np.ndarray) -> np.ndarray:
    return exact.matmul(np.asarray(points, dtype=np.float64) - camera.position, camera.rotation)


def project(camera: Camera, points_cam: np.ndarray) -> np.ndarray:
    """(N, 3) camera-frame points -> (N, 2) continuous pixel coordinates (z must be > 0)."""
    z = points_cam[:, 2]
    u = camera.fx * points_cam[:, 0] / z + camera.cx
    v = camera.fy * points_cam[:, 1] / z + camera.cy
    return np.stack([u, v], axis=1)


def projected_box(camera: Camera, corners_world: np.ndarray) -> Box | None:
    """Extent of the projected corners clipped to the image; None if behind the camera or off-image."""
    cam = to_camera(camera, corners_world)
    if not np.all(np.isfinite(cam)) or np.any(cam[:, 2] <= NEAR):
        return None  # not finite: finite but huge poses or cameras overflowed; nothing to project
    uv = project(camera, cam)
    if not np.all(np.isfinite(uv)):
        return None
    x0 = max(0.0, float(uv[:, 0].min()))
    y0 = max(0.0, float(uv[:, 1].min()))
    x1 = min(float(camera.width), float(uv[:, 0].max()))
    y1 = min(float(camera.height), float(uv[:, 1].max()))
    if x1 <= x0 or y1 <= y0:
        return None
    return (x0, y0, x1, y1)


def mask_coverage(mask: np.ndarray, box: Box, total: int | None = None) -> float:
    """Share of the mask's pixels whose centres lie inside ``box``; ``total``: the mask's pixel count, if known."""
    total = int(mask.sum()) if total is None else total
    if total == 0:
        return 0.0
    c0, r0 = max(0, math.ceil(box[0] - 0.5)), max(0, math.ceil(box[1] - 0.5))
    c1, r1 = math.floor(box[2] - 0.5), math.floor(box[3] - 0.5)
    if c1 < c0 or r1 < r0:
        return 0.0
    return int(mask[r0 : r1 + 1, c0 : c1 + 1].sum()) / total


def motion_axis_in_view(
    camera: Camera, corners_world: np.ndarray, axis_world: tuple[float, ...]
) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """A part's motion axis in the camera frame and as a unit image direction at its box centre; () for none."""
    if not axis_world:
        return (), ()
    axis = np.asarray(axis_world, dtype=np.float64)
    axis_camera = tuple(float(v) for v in exact.matmul(camera.world_to_camera()[0], axis))
    size = float(exact.norm(corners_world.max(axis=0) - corners_world.min(axis=0)))
    return axis_camera, image_direction(camera, exact.mean_rows(corners_world), axis, max(size, 1e-6) * 0.1)


def image_direction(camera: Camera, anchor_world: np.ndarray, axis_world: np.ndarray, step: float) -> tuple[float, ...]:
    """Unit 2-D image direction of ``axis_world`` at ``anchor_world``; () when it points at the camera."""
    points = np.stack([anchor_world, anchor_world + axis_world * step])
    cam = to_camera(camera, points)
    if not np.all(np.isfinite(cam)) or np.any(cam[:, 2] <= NEAR):
        return ()
    uv = project(camera, cam)
    dx, dy = float(uv[1, 0] - uv[0, 0]), float(uv[1, 1] - uv[0, 1])
    largest = max(abs(dx), abs(dy))  # scaled first, so the squares cannot overflow (as hypot)
    qx, qy = (dx / largest, dy / largest) if largest > 0 else (0.0, 0.0)
    norm = largest * math.sqrt(qx * qx + qy * qy)  # products, not ** (Python's ** calls the C library's pow)
    if not math.isfinite(norm) or norm < 1e-3:  # under a thousandth of a pixel: the axis is (nearly) the viewing ray
        return ()
    return (dx / norm, dy / norm)
