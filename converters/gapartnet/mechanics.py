"""Mechanics of a part: the URDF joint whose child is the part's link, at the view's pose.

Fixed handles (GAPartNet splits them into their own links on a ``fixed`` joint) have no motion of
their own: they report the nearest moving joint above them (the door's hinge, the drawer's slide)
and say so through ``own_joint_type`` = ``fixed`` and ``moving_link``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from groundbench.converters.gapartnet.geometry import joint_frame
from groundbench.converters.gapartnet.urdf import Urdf
from groundbench.core import exact


@dataclass(frozen=True)
class Mechanics:
    link: str
    own_joint: str  # the joint whose child is the link ("" for the root)
    own_joint_type: str
    joint: str  # the joint that moves the link ("" when none)
    joint_type: str  # its type; "fixed" when nothing above the link moves
    moving_link: str  # the child of ``joint`` (the link itself unless it is fixed to a moving parent)
    origin_world: tuple[float, ...]  # joint origin at the view's pose; () when no joint
    axis_world: tuple[float, ...]  # unit motion axis at the view's pose; () for fixed
    qpos: float | None  # the moving joint's position in the view


def mechanics_of(urdf: Urdf, link: str, qpos: dict[str, float], poses: dict[str, np.ndarray]) -> Mechanics:
    own = urdf.joint_of(link)
    if own is None:
        return Mechanics(link, "", "fixed", "", "fixed", link, (), (), None)
    moving = own
    while moving.type == "fixed":
        above = urdf.joint_of(moving.parent)
        if above is None:
            break
        moving = above
    frame = exact.matmul(poses[moving.parent], joint_frame(moving))
    origin = tuple(float(v) for v in frame[:3, 3])
    if moving.type == "fixed":
        return Mechanics(link, own.name, own.type, own.name, "fixed", link, origin, (), None)
    axis = exact.matmul(frame[:3, :3], np.asarray(moving.axis, dtype=np.float64))
    axis = axis / exact.norm(axis)
    return Mechanics(
        link=link,
        own_joint=own.name,
        own_joint_type=own.type,
        joint=moving.name,
        joint_type=moving.type,
        moving_link=moving.child,
        origin_world=origin,
        axis_world=tuple(float(v) for v in axis),
        qpos=float(qpos.get(moving.name, 0.0)),
    )
