"""``mobility_annotation_gapartnet.urdf``: links (with mesh visuals) and joints, via defusedxml.

Only what posing, mechanics and rendering need: joint type,
parent, child, origin (xyz, rpy; missing = 0), axis (joint frame; default x as in URDF), limits;
per link its visual meshes and their origins. Anything else in the file is ignored.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from xml.etree.ElementTree import Element

import defusedxml.ElementTree as defused_xml
from defusedxml import DefusedXmlException

from groundbench.errors import GroundBenchError

JOINT_TYPES = ("revolute", "prismatic", "continuous", "fixed")
Vec3 = tuple[float, float, float]


@dataclass(frozen=True)
class Visual:
    mesh: str  # file name as written, relative to the object folder
    xyz: Vec3
    rpy: Vec3
    scale: Vec3


@dataclass(frozen=True)
class Joint:
    name: str
    type: str
    parent: str
    child: str
    xyz: Vec3
    rpy: Vec3
    axis: Vec3 | None  # unit vector in the joint frame; None for fixed joints
    limit: tuple[float, float] | None


@dataclass(frozen=True)
class Urdf:
    name: str
    links: dict[str, tuple[Visual, ...]]  # in file order
    joints: dict[str, Joint]  # in file order
    root: str

    def joint_of(self, link: str) -> Joint | None:
        """The joint whose child is ``link`` (None for the root)."""
        return next((j for j in self.joints.values() if j.child == link), None)

    def chain(self, link: str) -> list[Joint]:
        """Joints from the root down to ``link``."""
        joints: list[Joint] = []
        current = self.joint_of(link)
        while current is not None:
            joints.append(current)
            current = self.joint_of(current.parent)
        return joints[::-1]


def _vec(element: Element | None, attribute: str, where: str, field: str, default: Vec3) -> Vec3:
    if element is None or element.get(attribute) is None:
        return default
    text = element.get(attribute, "")
    try:
        values = tuple(float(v) for v in text.split())
    except ValueError as exc:
        raise GroundBenchError(where, field, f"expected three numbers, got {text!r}") from exc
    # float() also reads "nan", "inf" and "1e999"; a non-finite pose would silently poison every box.
    if len(values) != 3 or not all(math.isfinite(v) for v in values):
        raise GroundBenchError(where, field, f"expected three finite numbers, got {text!r}")
    return (values[0], values[1], values[2])


def _joint(element: Element, where: str) -> Joint:
    name = element.get("name")
    if not name:
        raise GroundBenchError(where, "joint.name", "missing required attribute")
    field = f"joint {name}"
    kind = element.get("type")
    if kind not in JOINT_TYPES:
        raise GroundBenchError(where, f"{field}.type", f"expected one of {JOINT_TYPES}, got {kind!r}")
    ends = {}
    for tag in ("parent", "child"):
        node = element.find(tag)
        if node is None or not node.get("link"):
            raise GroundBenchError(where, f"{field}.{tag}", "missing required <" + tag + ' link="..."/>')
        ends[tag] = node.get("link", "")
    origin = element.find("origin")
    axis: Vec3 | None = None
    if kind != "fixed":
        raw = _vec(element.find("axis"), "xyz", where, f"{field}.axis", (1.0, 0.0, 0.0))
        norm = math.sqrt(raw[0] * raw[0] + raw[1] * raw[1] + raw[2] * raw[2])  # not ** 0.5: that is libm's pow
        if norm == 0:
            raise GroundBenchError(where, f"{field}.axis", "expected a non-zero axis")
        axis = (raw[0] / norm, raw[1] / norm, raw[2] / norm)
    limit = None
    node = element.find("limit")
    if node is not None and kind in ("revolute", "prismatic"):
        try:
            limit = (float(node.get("lower", "0")), float(node.get("upper", "0")))
        except ValueError as exc:
            raise GroundBenchError(where, f"{field}.limit", "expected numeric lower/upper") from exc
        if not all(math.isfinite(v) for v in limit):
            raise GroundBenchError(where, f"{field}.limit", f"expected finite lower/upper, got {limit}")
    return Joint(
        name=name,
        type=kind,
        parent=ends["parent"],
        child=ends["child"],
        xyz=_vec(origin, "xyz", where, f"{field}.origin.xyz", (0.0, 0.0, 0.0)),
        rpy=_vec(origin, "rpy", where, f"{field}.origin.rpy", (0.0, 0.0, 0.0)),
        axis=axis,
        limit=limit,
    )


def _visuals(link: Element, where: str) -> tuple[Visual, ...]:
    visuals = []
    for number, visual in enumerate(link.findall("visual")):
        field = f"link {link.get('name')}.visual[{number}]"
        mesh = visual.find("geometry/mesh")
        if mesh is None:
            continue  # primitives (box, cylinder) are not used by GAPartNet assets
        filename = mesh.get("filename")
        if not filename:
            raise GroundBenchError(where, f"{field}.mesh.filename", "missing required attribute")
        origin = visual.find("origin")
        visuals.append(
            Visual(
                mesh=filename,
                xyz=_vec(origin, "xyz", where, f"{field}.origin.xyz", (0.0, 0.0, 0.0)),
                rpy=_vec(origin, "rpy", where, f"{field}.origin.rpy", (0.0, 0.0, 0.0)),
                scale=_vec(mesh, "scale", where, f"{field}.mesh.scale", (1.0, 1.0, 1.0)),
            )
        )
    return tuple(visuals)


def parse_urdf(data: bytes, where: str) -> Urdf:
    """Parse with defusedxml (no entities, no external references); check the tree is one tree."""
    try:
        robot = defused_xml.fromstring(data)
    except (defused_xml.ParseError, DefusedXmlException, ValueError) as exc:
        raise GroundBenchError(
            where, "file", f"expected safe, well-formed URDF XML ({type(exc).__name__}: {exc})"
        ) from exc
    if robot.tag != "robot":
        raise GroundBenchError(where, "robot", f"expected a <robot> root element, got <{robot.tag}>")
    links: dict[str, tuple[Visual, ...]] = {}
    for link in robot.findall("link"):
        name = link.get("name")
        if not name:
            raise GroundBenchError(where, "link.name", "missing required attribute")
        if name in links:
            raise GroundBenchError(where, f"link {name}", "defined twice")
        links[name] = _visuals(link, where)
    joints: dict[str, Joint] = {}
    children: set[str] = set()
    for element in robot.findall("joint"):
        joint = _joint(element, where)
        if joint.name in joints:
            raise GroundBenchError(where, f"joint {joint.name}", "defined twice")
        for end in (joint.parent, joint.child):
            if end not in links:
                raise GroundBenchError(where, f"joint {joint.name}", f"names unknown link {end!r}")
        if joint.child in children:
            raise GroundBenchError(where, f"joint {joint.name}", f"link {joint.child} has two parent joints")
        children.add(joint.child)
        joints[joint.name] = joint
    roots = [name for name in links if name not in children]
    if len(roots) != 1:
        raise GroundBenchError(where, "robot", f"expected exactly one root link, found {roots}")
    urdf = Urdf(name=robot.get("name", ""), links=links, joints=joints, root=roots[0])
    for link in links:  # a cycle would make chain() loop; the walk is bounded by the link count
        steps, current = 0, urdf.joint_of(link)
        while current is not None:
            steps += 1
            if steps > len(links):
                raise GroundBenchError(where, f"link {link}", "joint cycle")
            current = urdf.joint_of(current.parent)
    return urdf
